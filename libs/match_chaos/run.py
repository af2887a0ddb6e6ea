"""One chaos run: the local cluster, games played through it while replicas are killed, then the
checks (see match_chaos.check for what is counted), `match-audit verify` of every game, the
players projection against a fold of the log (match_chaos.projection) and how long the tables
were unavailable to the players, per fault kind (match_chaos.unavailable).

Every game is played, in turn (``Options.kinds``): race tables (the scripted player and the
bots), Concentration (the scripted player and CPU players, which the rules play on the
referee's timers), Match Cards (solo, and challenge tables of 2 or 3 the bots fill, in turn),
Number Match (solo: its only kind of table) and MATCH 5 (three scripted players at one table)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import random
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import referee_pb2
from match_audit import cli as audit_cli
from match_bus import subjects
from match_bus.clock import Clock
from match_bus.jetstream import TableLog
from match_chaos import games, projection
from match_chaos.check import GameCheck, check_game
from match_chaos.faults import Faults
from match_chaos.player import Received, Tally
from match_chaos.unavailable import KindReport, Outage, by_fault
from match_launch.natscluster import NatsCluster
from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, SERVICES, Stack
from match_rules import registry

RACE, CONCENTRATION = "race", "concentration"  # the two the partition run plays
KINDS = games.NAMES  # every game, in turn


@dataclass(frozen=True, slots=True)
class Options:
    out: Path = Path("var")
    games: int = 25  # 5 of each game
    kinds: tuple[str, ...] = KINDS  # the games played, in turn
    concurrency: int = 6
    min_kills: int = 10
    rate: float = 10.0  # the system's clock: 10x, so a game takes about 40 s
    replicas: int = 2  # of every service
    seed: int | None = None
    game_timeout_s: float = 300.0
    ready_window_ms: int = 60_000  # game time: 6 s of wall time at rate 10

    def game_of(self, index: int) -> str:
        """The kinds in turn: every kind as often as the others (give or take one); the games
        played beyond ``games`` (while the faults are not done) in the same order again."""
        return self.kinds[index % len(self.kinds)]

    def challenge(self, index: int) -> bool:
        """Whether a Match Cards game is a challenge table: every other one of them."""
        return (index // len(self.kinds)) % 2 == 1


@dataclass
class SeatResult:
    """What one scripted player at a table got."""

    player_id: str = ""
    received: Received = field(default_factory=Received)
    tally: Tally = field(default_factory=Tally)
    outages: list[Outage] = field(default_factory=list)


@dataclass
class GameResult:
    index: int
    game: str = RACE
    table_id: str = ""
    player_id: str = ""  # the host's (the one scripted player at most tables)
    finished: bool = False
    error: str = ""
    seconds: float = 0.0
    received: Received = field(default_factory=Received)  # the host's
    tally: Tally = field(default_factory=Tally)  # the host's
    table: str = ""  # what kind of table: "solo", "3 seats"
    seats: list[SeatResult] = field(default_factory=list)  # every scripted player, host first

    def every_seat(self) -> list[SeatResult]:
        """Every scripted player at the table (a result made with the host's fields alone: the
        host)."""
        return self.seats or [SeatResult(self.player_id, self.received, self.tally)]

    def total(self) -> Tally:
        return add_tallies(s.tally for s in self.every_seat())


def add_tallies(tallies: Iterable[Tally]) -> Tally:
    total = Tally()
    for tally in tallies:
        for name in vars(total):
            setattr(total, name, getattr(total, name) + getattr(tally, name))
    return total


@dataclass
class Summary:
    games: int = 0
    by_game: dict[str, int] = field(default_factory=dict)  # games played, per game
    kills: int = 0
    # Fields of the summary line after kills=, in order (another kind of fault adds its count
    # here: partitions=3), each a name and what it says.
    extra: dict[str, str] = field(default_factory=dict)
    lost: int = 0
    duplicated: int = 0
    verified: int = 0
    mismatched: int = 0
    ledgers_identical: bool = False
    players_counted: bool = False  # every players replica counted every finished game once
    players_identical: bool = False  # and their read models are the same rows
    projections_ok: bool = False  # and hold what a fold of the log says (match_chaos.projection)
    nats_stops: int = 0

    def fields(self) -> list[tuple[str, str]]:
        per = " ".join(f"{game}={n}" for game, n in sorted(self.by_game.items())) or "none"
        return [
            ("games", f"{self.games} ({per})"),
            ("kills", str(self.kills)),
            *self.extra.items(),
            ("lost", str(self.lost)),
            ("duplicated", str(self.duplicated)),
            ("verified", str(self.verified)),
            ("projections", "ok" if self.projections_ok else "WRONG"),
        ]

    def line(self) -> str:
        return "chaos: " + " ".join(f"{name}={value}" for name, value in self.fields())

    @property
    def ok(self) -> bool:
        return (
            self.games > 0
            and self.lost == 0
            and self.duplicated == 0
            and self.verified == self.games
            and self.mismatched == 0
            and self.ledgers_identical
            and self.players_counted
            and self.players_identical
            and self.projections_ok
        )


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def stack_env(rate: float, anchor_ms: int) -> dict[str, str]:
    return {
        "REFEREE_CLOCK_RATE": str(rate),
        "REFEREE_CLOCK_ANCHOR_MS": str(anchor_ms),
        "REFEREE_FILL_WAIT_MS": "3600000",  # bots fill only when the host starts the table
        "BOT_PACE": "1.0",  # a person's pace on the wall clock: slow on the fast clock
        "LOG_FORMAT": "json",
        **ONE_ADDRESS_MANY_PLAYERS,  # every scripted player comes from 127.0.0.1
    }


def cluster_stack(workdir: Path, env: dict[str, str], replicas: int) -> Stack:
    return Stack(
        workdir / "stack",
        cluster=NatsCluster(workdir / "nats"),
        replicas=dict.fromkeys(SERVICES, replicas),
        env=env,
    )


KEYED_PLAYERS = 6


def player_key(n: int) -> Ed25519PrivateKey:
    """Chaos player ``n``'s key: the same every run."""
    return Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(f"chaos-player-{n}".encode()).digest()
    )


async def play_one(
    index: int, addr: str, clock: Clock, rng: random.Random, opts: Options
) -> GameResult:
    game = opts.game_of(index)
    result = GameResult(index, game)
    started = time.monotonic()
    seated = games.BY_NAME[game].seat(
        games.Setup(addr, f"Chaos {index}", clock, rng, opts.challenge(index), opts.ready_window_ms)
    )
    seats, players, play = seated.seats, seated.players, seated.play
    result.table = "solo" if seats == 1 else f"{seats} seats"
    # Six players with keys of their own, each in many games: the players service rates them,
    # and its replicas must agree on every row (check_all). At one table, different keys.
    for n, player in enumerate(players):
        player.key = player_key((index + n) % KEYED_PLAYERS)
        player.game = game
    try:
        await asyncio.wait_for(play, opts.game_timeout_s)
        result.finished = all(p.finished for p in players)
    except Exception as error:  # the game is then not verified: the run fails
        result.error = repr(error)[:500]
    finally:
        for player in players:
            await player.close()
    host = players[0]
    result.table_id, result.player_id = host.table_id_or_none(), host.player_id
    result.received, result.tally = host.received, host.tally
    result.seats = [SeatResult(p.player_id, p.received, p.tally, p.outages) for p in players]
    result.seconds = time.monotonic() - started
    return result


async def play_all(
    stack: Stack, faults: Faults, clock: Clock, rng: random.Random, opts: Options
) -> list[GameResult]:
    """``opts.games`` games, ``opts.concurrency`` at a time, and more while the chaos has not
    done what it must (at most three times as many)."""
    slots = asyncio.Semaphore(opts.concurrency)
    tasks: list[asyncio.Task[GameResult]] = []

    async def one(index: int) -> GameResult:
        try:
            result = await play_one(
                index, stack.lobby_addr, clock, random.Random(rng.random()), opts
            )
        finally:
            slots.release()
        state = "finished" if result.finished else f"NOT finished: {result.error}"
        say(f"game {index} ({result.game}) {result.table_id} {state} in {result.seconds:.0f}s")
        return result

    index = 0
    while index < opts.games or (not faults.satisfied and index < 3 * opts.games):
        await slots.acquire()
        tasks.append(asyncio.create_task(one(index)))
        index += 1
        await asyncio.sleep(rng.uniform(0.5, 2.0))  # games at different moments
    return list(await asyncio.gather(*tasks))


async def table_records(stack: Stack, table_id: str) -> list[referee_pb2.TableRecord]:
    nc = await stack.connect_nats()
    try:
        stored = await TableLog(nc.jetstream(), timeout=10).read(table_id)
    finally:
        await nc.close()
    return [referee_pb2.TableRecord.FromString(r.data) for r in stored]


def _servers(stack: Stack) -> list[str]:
    return stack.cluster.url_list if stack.cluster is not None else [stack.url]


async def verify(stack: Stack, game: str, within_s: float = 90.0) -> tuple[bool, str]:
    """``match-audit verify <game> --key <the ledger's verifier key>``; asked again while it
    cannot check anything (exit 2: a ledger replica catching up or restarting)."""
    argv = ["verify", game, "--addr", stack.ledger_addr, "--key", str(stack.verifier_key_file)]
    deadline = time.monotonic() + within_s
    while True:
        out = io.StringIO()
        code = await asyncio.to_thread(audit_cli.main, argv, out, out)
        last = out.getvalue().strip().splitlines()[-1:] or [""]
        if code != audit_cli.USAGE_ERROR or time.monotonic() > deadline:
            return code == 0, last[0]
        await asyncio.sleep(1.0)


async def ledgers_caught_up(stack: Stack, within_s: float = 60.0) -> int:
    """Wait until every ledger replica stored the whole stream; return the stream's length."""
    nc = await stack.connect_nats()
    try:
        last = (await nc.jetstream().stream_info(subjects.EVENTS_STREAM)).state.last_seq
    finally:
        await nc.close()
    deadline = time.monotonic() + within_s
    while True:
        stored = [_max_sequence(stack.ledger_db(n)) for n in stack.names("ledger")]
        if all(s >= last for s in stored) or time.monotonic() > deadline:
            return last
        await asyncio.sleep(0.5)


def _max_sequence(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (last,) = conn.execute("SELECT max(stream_sequence) FROM records").fetchone()
    return int(last or 0)


def ledger_tree(db: Path) -> tuple[list[tuple[int, int]], list[tuple[int, int, bytes]]]:
    """A ledger file's leaves (index, stream sequence) and every node hash."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        leaves = conn.execute(
            "SELECT leaf_index, stream_sequence FROM leaves ORDER BY 1"
        ).fetchall()
        nodes = conn.execute("SELECT level, idx, hash FROM nodes ORDER BY 1, 2").fetchall()
    return leaves, nodes


def _players_position(db: Path) -> int:
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            row = conn.execute("SELECT stream_seq FROM position WHERE id = 1").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0]) if row else 0


async def players_caught_up(stack: Stack, last: int, within_s: float = 60.0) -> list[int]:
    """Wait until every players replica has taken the whole stream; their positions."""
    deadline = time.monotonic() + within_s
    while True:
        taken = [_players_position(stack.players_db(n)) for n in stack.names("players")]
        if all(t >= last for t in taken) or time.monotonic() > deadline:
            return taken
        await asyncio.sleep(0.5)


def players_rows(db: Path) -> dict[str, list[str]]:
    """A players replica's read models: every row of every table, in a fixed order (the
    stream position aside: each replica writes it lazily)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'position' "
            "ORDER BY name"
        )]  # fmt: skip
        return {
            table: [repr(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3")]
            for table in tables
        }


def projection_rows(db: Path, players: set[str]) -> projection.Rows:
    """A players replica's games, statistics and figures (of ``players``' for the last two)."""
    rows = projection.Rows()
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        for game_id, kind, ended in conn.execute("SELECT game_id, kind, ended_at_ms FROM games"):
            rows.games[game_id] = (kind, ended)
        for player, kind, games, wins, draws in conn.execute(
            "SELECT player_id, kind, games, wins, draws FROM stats"
        ):
            if player in players:
                rows.stats[(player, kind)] = (games, wins, draws)
        for player, kind, name, value in conn.execute(
            "SELECT player_id, kind, name, value FROM figures"
        ):
            if player in players:
                rows.figures[(player, kind, name)] = value
    return rows


def kind_names() -> dict[int, str]:
    """Game kind number -> the name the run reports it by."""
    return {registry.by_slug(g.slug).kind: g.name for g in games.GAMES}


async def check_all(
    stack: Stack, results: list[GameResult], out: Callable[[str], None]
) -> tuple[Summary, list[GameCheck]]:
    summary = Summary(games=len(results))
    for result in results:
        summary.by_game[result.game] = summary.by_game.get(result.game, 0) + 1
    checks: list[GameCheck] = []
    folded: list[projection.Folded] = []
    unfolded: list[str] = []
    stream_length = await ledgers_caught_up(stack)
    for result in results:
        records = await table_records(stack, result.table_id) if result.table_id else []
        try:  # every table of the run: the players service counts each whose seed is out
            game = projection.fold(result.table_id, records)
        except projection.Unfolded as error:
            unfolded.append(str(error))
            game = None
        if game is not None:
            folded.append(game)
        if not result.finished:
            out(
                f"  game {result.index} ({result.game}) {result.table_id or '-'}: not finished "
                f"({result.error})"
            )
            continue
        # Every scripted player at the table against the log, as redacted for them; the log's
        # own repeats (the same for every player) counted once.
        seat_checks = [
            check_game(
                result.table_id, records, s.player_id, s.received.events, s.received.snapshots
            )
            for s in result.every_seat()
        ]
        check = seat_checks[0]
        checks.extend(seat_checks)
        ok, verdict = await verify(stack, result.table_id)
        lost = sum(c.lost for c in seat_checks)
        summary.lost += lost
        summary.duplicated += check.duplicated
        summary.mismatched += sum(c.mismatched for c in seat_checks)
        summary.verified += ok
        tally = result.total()
        received = "/".join(str(c.received) for c in seat_checks)
        out(
            f"  game {result.index} ({result.game}, {result.table}) {result.table_id}: "
            f"{check.records} records, events 1-{check.last_event}, received {received}, lost "
            f"{lost}, duplicated {check.duplicated}; calls {tally.calls}, retried "
            f"{tally.retries}, watches {tally.watches}, drops {tally.drops}, taken over "
            f"{tally.taken_over}; {verdict}"
        )
        for c in seat_checks:
            for note in c.notes:
                out(f"    {note}" if len(seat_checks) == 1 else f"    {c.table_id} seat: {note}")
    trees = [ledger_tree(stack.ledger_db(n)) for n in stack.names("ledger")]
    summary.ledgers_identical = all(t == trees[0] for t in trees)
    sizes = [len(leaves) for leaves, _ in trees]
    out(
        f"  ledgers: {len(trees)} copies of the {stream_length} records, tree sizes {sizes}, "
        + ("the same tree" if summary.ledgers_identical else "DIFFERENT TREES")
    )
    taken = await players_caught_up(stack, stream_length)
    names = stack.names("players")
    copies = [players_rows(stack.players_db(n)) for n in names]
    finished = {g.game_id for g in folded}
    # Each game id once (its primary key), and every finished game among them.
    counted = [[row.split("'")[1] for row in c.get("games", [])] for c in copies]
    summary.players_counted = all(finished <= set(ids) for ids in counted)
    summary.players_identical = all(c == copies[0] for c in copies)
    counts = [len(ids) for ids in counted]
    rated = len(copies[0].get("ratings", []))
    out(
        f"  players: {len(copies)} copies at stream positions {taken}, games counted {counts} "
        f"({len(finished)} finished here), {rated} ratings, "
        + ("each once" if summary.players_counted else "A GAME MISSED OR COUNTED TWICE")
        + ", "
        + ("the same rows" if summary.players_identical else "DIFFERENT ROWS")
    )
    # The projection against the fold of the log, per game kind.
    want = projection.expected(folded)
    keyed = {player for player, _ in want.stats}
    kinds = kind_names()
    wrong: dict[str, list[str]] = {}
    for name in names:
        have = projection_rows(stack.players_db(name), keyed)
        for kind, lines in projection.differences(want, have, kinds).items():
            wrong.setdefault(kind, []).extend(f"{name}: {line}" for line in lines)
    summary.projections_ok = not wrong and not unfolded
    for line in unfolded:
        out(f"  projection: {line}")
    for kind in sorted({kinds[g.game.kind] for g in folded} | set(wrong)):
        games = [g for g in folded if kinds[g.game.kind] == kind]
        won = sum(len(g.results.winners) for g in games)
        verdict = "as the log says" if kind not in wrong else f"{len(wrong[kind])} DIFFERENCES"
        out(
            f"  projection {kind}: {len(games)} games folded from the log ({won} winners), "
            f"{len(names)} players replicas' games, statistics and figures {verdict}"
        )
        for line in wrong.get(kind, [])[:10]:
            out(f"    {line}")
    return summary, checks


def unavailability(results: list[GameResult], faults: Faults) -> list[KindReport]:
    outages = [o for r in results for s in r.every_seat() for o in s.outages]
    return by_fault(outages, faults.windows)


async def run(opts: Options) -> int:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    workdir = (opts.out / "chaos" / stamp).resolve()
    seed = opts.seed if opts.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    anchor = int(time.time() * 1000)
    clock = Clock(opts.rate, anchor)
    stack = cluster_stack(workdir, stack_env(opts.rate, anchor), opts.replicas)
    say(f"chaos: seed {seed}, data and logs in {workdir}")
    try:
        await asyncio.to_thread(stack.start, 120.0)
        say(
            f"chaos: up: {' '.join(stack.processes)} on NATS {stack.cluster and stack.cluster.urls}"
        )
        faults = Faults(stack, random.Random(rng.random()), say, min_kills=opts.min_kills)
        stop = asyncio.Event()
        chaos = asyncio.create_task(faults.run(stop))
        try:
            results = await play_all(stack, faults, clock, rng, opts)
        finally:
            stop.set()
            await chaos
        lines: list[str] = []
        summary, checks = await check_all(stack, results, lines.append)
        summary.kills, summary.nats_stops = faults.kills, faults.nats_stops
    finally:
        await asyncio.to_thread(stack.stop)
    for line in lines:
        print(line)
    tally = add_tallies(r.total() for r in results)
    print(
        f"  players: {tally.calls} calls, {tally.retries} asked again with the same request id, "
        f"{tally.fresh} anew after an UNAVAILABLE refusal, {tally.refused} refused, "
        f"{tally.gave_up} given up; {tally.watches} Watch streams for {len(results)} games; "
        f"{tally.drops} drops on purpose and back, {tally.taken_over} seats taken over by the CPU"
    )
    print(
        f"  faults: {faults.kills} kills {dict(faults.killed)}, NATS node stops "
        f"{faults.nats_stops}, processes that exited by themselves: {faults.crashed or 'none'}"
    )
    unavailable = unavailability(results, faults)
    print("  unavailable to the players, per fault kind (gap: a failed call to its answer, a")
    print("  broken stream to its next item):")
    for kind in unavailable:
        print(f"    {kind.line()}")
    if not unavailable:
        print("    no fault made, no call failed")
    refusals = stack.nats_refusals()  # a service refused a subject: a missing grant
    print(f"  NATS refused a service {len(refusals)} times", *refusals[:10], sep="\n    ")
    report = {
        "seed": seed,
        "summary": asdict(summary),
        "crashed": faults.crashed,
        "nats_refusals": refusals,
        "faults": [asdict(w) for w in faults.windows],
        "unavailable": [kind.as_dict() for kind in unavailable],
        "outages": [
            {**asdict(o), "kind": kind.kind, "seconds": round(o.seconds, 2)}
            for kind in unavailable
            for o in kind.outages
        ],
        "games": [
            {
                "index": r.index,
                "game": r.game,
                "table": r.table,
                "table_id": r.table_id,
                "finished": r.finished,
                "error": r.error,
                "seconds": round(r.seconds, 1),
                "tally": asdict(r.total()),
            }
            for r in results
        ],
        "checks": [asdict(c) for c in checks],
    }
    (workdir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"  report: {workdir / 'report.json'}")
    print(summary.line(), flush=True)
    return 0 if summary.ok and not refusals else 1
