"""One chaos run: the local cluster, games played through it while replicas are killed, then the
checks (see match_chaos.check for what is counted) and `match-audit verify` of every game.

Two games are played: race tables (the scripted player and the bots) and Concentration tables
(the scripted player and CPU players, which the rules play on the referee's timers), the
Concentration ones spread evenly among the others (``Options.concentration``; default half)."""

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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import concentration_pb2, referee_pb2
from match_audit import cli as audit_cli
from match_bus import subjects
from match_bus.clock import Clock
from match_bus.jetstream import TableLog
from match_chaos.check import GameCheck, check_game
from match_chaos.faults import Faults
from match_chaos.player import ChaosPlayer, ChaosSeat, ConcentrationChaosPlayer, Received, Tally
from match_launch.natscluster import NatsCluster
from match_launch.stack import ONE_ADDRESS_MANY_PLAYERS, SERVICES, Stack


@dataclass(frozen=True, slots=True)
class Options:
    out: Path = Path("var")
    games: int = 20
    concentration: int | None = None  # how many of the games are Concentration; None: half
    concurrency: int = 6
    min_kills: int = 10
    rate: float = 10.0  # the system's clock: 10x, so a game takes about 40 s
    replicas: int = 2  # of every service
    seed: int | None = None
    game_timeout_s: float = 300.0
    ready_window_ms: int = 60_000  # game time: 6 s of wall time at rate 10

    @property
    def concentration_games(self) -> int:
        wanted = self.games // 2 if self.concentration is None else self.concentration
        return max(0, min(wanted, self.games))

    def game_of(self, index: int) -> str:
        """``race`` or ``concentration``: the Concentration tables spread evenly over the
        ``games`` (Bresenham); the games played beyond them (while the faults are not done)
        in the same order again."""
        if index >= self.games > 0:
            return self.game_of(index % self.games)
        share = self.concentration_games
        return (
            CONCENTRATION
            if (index + 1) * share // self.games > index * share // self.games
            else RACE
        )


RACE, CONCENTRATION = "race", "concentration"


@dataclass
class GameResult:
    index: int
    game: str = RACE
    table_id: str = ""
    player_id: str = ""
    finished: bool = False
    error: str = ""
    seconds: float = 0.0
    received: Received = field(default_factory=Received)
    tally: Tally = field(default_factory=Tally)


@dataclass
class Summary:
    games: int = 0
    by_game: dict[str, int] = field(default_factory=dict)  # games played, per game
    kills: int = 0
    lost: int = 0
    duplicated: int = 0
    verified: int = 0
    mismatched: int = 0
    ledgers_identical: bool = False
    players_counted: bool = False  # every players replica counted every finished game once
    players_identical: bool = False  # and their read models are the same rows
    nats_stops: int = 0

    def line(self) -> str:
        per = " ".join(f"{game}={n}" for game, n in sorted(self.by_game.items())) or "none"
        return (
            f"chaos: games={self.games} ({per}) kills={self.kills} lost={self.lost} "
            f"duplicated={self.duplicated} verified={self.verified}"
        )

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


def concentration_settings(rng: random.Random) -> concentration_pb2.ConcentrationSettings:
    """A small emoji deck (24 or 36 cards), with no turn limit or the 30 s one."""
    return concentration_pb2.ConcentrationSettings(
        cards=rng.choice((24, 36)), turn_limit_ms=rng.choice((0, 30_000))
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
    seats = rng.choice((2, 3))
    player: ChaosSeat
    started = time.monotonic()
    if game == CONCENTRATION:
        cplayer = ConcentrationChaosPlayer(addr, f"Chaos {index}", clock, rng)
        # Away once, for 0.2-0.8 s of wall time (2-8 s of game time at rate 10, well under
        # the CPU's 30 s takeover), then back: the presence path under failover.
        cplayer.drop_after, cplayer.drop_for_s = rng.randint(8, 40), rng.uniform(0.2, 0.8)
        player, play = cplayer, cplayer.play_game(seats, concentration_settings(rng))
    else:
        race = ChaosPlayer(addr, f"Chaos {index}", clock, rng)
        player, play = race, race.play_game(seats, opts.ready_window_ms)
    # Six players with keys of their own, each in many games: the players service rates them,
    # and its replicas must agree on every row (check_all).
    player.key = player_key(index % KEYED_PLAYERS)
    try:
        await asyncio.wait_for(play, opts.game_timeout_s)
        result.finished = player.finished
    except Exception as error:  # the game is then not verified: the run fails
        result.error = repr(error)[:500]
    finally:
        await player.close()
    result.table_id, result.player_id = player.table_id, player.player_id
    result.received, result.tally = player.received, player.tally
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


async def check_all(
    stack: Stack, results: list[GameResult], out: Callable[[str], None]
) -> tuple[Summary, list[GameCheck]]:
    summary = Summary(games=len(results))
    for result in results:
        summary.by_game[result.game] = summary.by_game.get(result.game, 0) + 1
    checks: list[GameCheck] = []
    stream_length = await ledgers_caught_up(stack)
    for result in results:
        if not result.finished:
            out(
                f"  game {result.index} ({result.game}) {result.table_id or '-'}: not finished "
                f"({result.error})"
            )
            continue
        records = await table_records(stack, result.table_id)
        check = check_game(
            result.table_id,
            records,
            result.player_id,
            result.received.events,
            result.received.snapshots,
        )
        checks.append(check)
        ok, verdict = await verify(stack, result.table_id)
        summary.lost += check.lost
        summary.duplicated += check.duplicated
        summary.mismatched += check.mismatched
        summary.verified += ok
        tally = result.tally
        out(
            f"  game {result.index} ({result.game}) {result.table_id}: {check.records} records, "
            f"events 1-"
            f"{check.last_event}, received {check.received}, lost {check.lost}, duplicated "
            f"{check.duplicated}; calls {tally.calls}, retried {tally.retries}, watches "
            f"{tally.watches}, drops {tally.drops}, taken over {tally.taken_over}; {verdict}"
        )
        for note in check.notes:
            out(f"    {note}")
    trees = [ledger_tree(stack.ledger_db(n)) for n in stack.names("ledger")]
    summary.ledgers_identical = all(t == trees[0] for t in trees)
    sizes = [len(leaves) for leaves, _ in trees]
    out(
        f"  ledgers: {len(trees)} copies of the {stream_length} records, tree sizes {sizes}, "
        + ("the same tree" if summary.ledgers_identical else "DIFFERENT TREES")
    )
    taken = await players_caught_up(stack, stream_length)
    copies = [players_rows(stack.players_db(n)) for n in stack.names("players")]
    finished = {r.table_id for r in results if r.finished}
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
    return summary, checks


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
    tally = Tally()
    for r in results:
        for name in vars(tally):
            setattr(tally, name, getattr(tally, name) + getattr(r.tally, name))
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
    refusals = stack.nats_refusals()  # a service refused a subject: a missing grant
    print(f"  NATS refused a service {len(refusals)} times", *refusals[:10], sep="\n    ")
    report = {
        "seed": seed,
        "summary": asdict(summary),
        "crashed": faults.crashed,
        "nats_refusals": refusals,
        "games": [
            {
                "index": r.index,
                "game": r.game,
                "table_id": r.table_id,
                "finished": r.finished,
                "error": r.error,
                "seconds": round(r.seconds, 1),
                "tally": asdict(r.tally),
            }
            for r in results
        ],
        "checks": [asdict(c) for c in checks],
    }
    (workdir / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"  report: {workdir / 'report.json'}")
    print(summary.line(), flush=True)
    return 0 if summary.ok and not refusals else 1
