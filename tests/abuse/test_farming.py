"""Abuse: farming a rating and the leaderboard with throwaway keys (issue 34, finding 3).

The report: a two-seat race in which both players resign at once counted as a rated game, and the
shown rating (1000 + 40 (mu - 3 sigma)) rises as sigma falls even when mu stays: 12 throwaway
keys and 12 such games in 5.2 s put one person first with 1,255 (not provisional), and 13 of the
15 rows of the board were that person's keys.

Here the same attack, at the same scale, is fed as real table records (made with the race's own
rules) to the players service on a real nats-server, and through the book directly: three
honest players have played each other; a farmer then plays 12 throwaway keys with mutual instant
resignations, then the same again with 10 tiles turned each before resigning, and one
throwaway key a dozen more times. The rules that hold it (docs/players.md, "Ratings that resist
farming"): a game nobody played is not rated, two keys count together 3 times in 24 h, a new
key gains at most 150 a UTC day, and provisional ratings come after every established one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from match.v1 import common_pb2, players_pb2, race_command_pb2, referee_pb2
from match_bus import subjects
from match_bus.jetstream import ensure_stream
from match_launch.stack import Stack
from match_rules import registry
from match_rules.game import SeatInfo
from match_rules.race.game import RATED_TURNS
from services.players.book import (
    DAILY_GAIN_CAP,
    NOT_PLAYED,
    RATED,
    RATING_BASE,
    REPEAT_LIMIT,
    REPEATED,
    Book,
)
from services.players.facts import finished
from tests.audit.replay_records import Command, UntilOver, table_records
from tests.conftest import running
from tests.services.players.games import keyed, retabled
from tests.services.players.test_projection import caught_up, dump

RaceCommand = race_command_pb2.RaceCommand
RACE = common_pb2.GAME_KIND_MATCH_RACE
DAY = 24 * 3600 * 1000
START = (1_800_000_000_000 // DAY + 1) * DAY + 3600 * 1000  # 01:00 UTC: one UTC day for all
HONEST = [keyed(0xA00 + n) for n in range(3)]
FARMER = keyed(0xF00)
THROWAWAY = [keyed(0xF01 + n) for n in range(12)]
FARMER_KEYS = {FARMER, *THROWAWAY}


def race(a: str, b: str, table_id: str, start: int, turns: int) -> list[referee_pb2.TableRecord]:
    """A race between ``a`` and ``b``: with ``turns``, both press Ready and each turns that many
    tiles, 2.5 s apart; then both resign (``turns`` 0: at once, as the report's games)."""
    seats = [SeatInfo(1, a, f"P{a[-3:]}", False), SeatInfo(2, b, f"P{b[-3:]}", False)]
    steps: list[object] = []
    at = start + 50
    if turns:
        for p in (a, b):
            steps.append(
                Command(at, RaceCommand(player_id=p, press_ready=RaceCommand.PressReady()))
            )
            at += 10
        at = start + 8_000
        for n in range(turns):
            for p in (a, b):
                turn = RaceCommand(player_id=p, turn_tile=RaceCommand.TurnTile(tile=n % 20 + 1))
                steps.append(Command(at, turn))
            at += 2_500
    for p in (b, a):
        steps.append(Command(at, RaceCommand(player_id=p, resign=RaceCommand.Resign())))
        at += 10
    steps.append(UntilOver())
    seed = table_id.encode().ljust(32, b".")[:32]
    records = table_records(registry.by_slug("race"), seed, None, seats, start, steps)  # type: ignore[arg-type]
    return retabled(records, table_id)


def the_games() -> Iterator[tuple[str, list[referee_pb2.TableRecord]]]:
    """Every table of the scenario, in log order, with its id."""
    at = START
    n = 0

    def table(a: str, b: str, turns: int, gap: int = 60_000) -> tuple[str, list]:  # type: ignore[type-arg]
        nonlocal at, n
        n += 1
        table_id = f"tfarm{n:04d}race"
        records = race(a, b, table_id, at, turns)
        at += gap
        return table_id, records

    # Honest players: each pair plays 3 races in earnest (12 tiles each), so each has 6.
    for i, a in enumerate(HONEST):
        for b in HONEST[i + 1 :]:
            for _ in range(3):
                yield table(a, b, 12)
    # The report's attack: 12 races with 12 throwaway keys, both resigning at once, in 5.2 s.
    for t in THROWAWAY:
        yield table(FARMER, t, 0, gap=430)
    # The same with the fewest moves that make a game played, then one key over and over.
    for t in THROWAWAY:
        yield table(FARMER, t, RATED_TURNS)
    for _ in range(12):
        yield table(FARMER, THROWAWAY[0], RATED_TURNS)


def check_board(rows: list[players_pb2.LeaderboardRow], farmer_rating: float | None) -> None:
    """What the rules promise of the board after the scenario."""
    firm = [r for r in rows if not r.provisional]
    assert rows[: len(firm)] == firm, "an established rating after a provisional one"
    assert max((r.rank for r in firm), default=0) < min(r.rank for r in rows if r.provisional)
    assert len([r for r in firm if r.player_id in FARMER_KEYS]) <= 1  # the farmer's own key
    assert {r.player_id for r in firm} >= set(HONEST)
    # Every throwaway key is provisional: listed after every established player.
    assert all(r.provisional for r in rows if r.player_id in THROWAWAY)
    # The farmer gained no more in the day than the cap allows anybody new.
    assert farmer_rating is not None and farmer_rating <= RATING_BASE + DAILY_GAIN_CAP + 1e-6


def test_the_attack_through_the_book(tmp_path: Path) -> None:
    book = Book(tmp_path / "players.sqlite3")
    notes: list[tuple[str, str]] = []
    for seq, (table_id, records) in enumerate(the_games(), start=1):
        book.count(seq, finished(records))
        (note,) = book._db.execute("SELECT rating FROM games WHERE game_id = ?", (table_id,))
        notes.append((table_id, note[0]))
    honest, instant, padded, repeated = notes[:9], notes[9:21], notes[21:33], notes[33:]
    assert {n for _, n in honest} == {RATED}
    # The report's games are not rated: nobody played them.
    assert {n for _, n in instant} == {NOT_PLAYED}
    # Played games with 12 different keys are rated (the cap and the board hold them) ...
    assert {n for _, n in padded} == {RATED}
    # ... but one key counts with the farmer 3 times in 24 h: once more here, then no more.
    assert [n for _, n in repeated] == [RATED] * (REPEAT_LIMIT - 1) + [REPEATED] * (
        12 - REPEAT_LIMIT + 1
    )
    farmer = book.profile(FARMER).ratings[0]
    assert farmer.games == 12 + REPEAT_LIMIT - 1
    rows = list(book.leaderboard(RACE, "", 1, 100).rows)
    assert len(rows) == 1 + 3 + 12
    check_board(rows, farmer.rating)
    book.close()


def test_mutual_instant_resignations_rate_nobody() -> None:
    book = Book(":memory:")
    for seq, (_, records) in enumerate(the_games(), start=1):
        if seq > 9 + 12:
            break
        book.count(seq, finished(records))
    assert book.profile(FARMER).ratings == []  # counted in statistics, not rated
    assert book.statistics(FARMER).games[0].games == 12
    rows = book.leaderboard(RACE, "", 1, 100).rows
    assert {r.player_id for r in rows} == set(HONEST)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    yield from running(Stack(tmp_path / "stack", services=("players",)))


async def publish(stack: Stack) -> int:
    nc = await stack.connect_nats()
    try:
        js = nc.jetstream()
        await ensure_stream(js)
        last = 0
        for table_id, records in the_games():
            for record in records:
                ack = await js.publish(subjects.events(table_id), record.SerializeToString())
                last = ack.seq
        return last
    finally:
        await nc.close()


async def ask(stack: Stack, query: players_pb2.PlayersQuery) -> players_pb2.PlayersAnswer:
    nc = await stack.connect_nats()
    try:
        reply = await nc.request(subjects.PLAYERS_QUERY, query.SerializeToString(), timeout=5)
        return players_pb2.PlayersAnswer.FromString(reply.data)
    finally:
        await nc.close()


async def test_the_attack_through_the_players_service(stack: Stack) -> None:
    last = await publish(stack)
    db = stack.players_db("players")
    await caught_up(db, last)
    board = (
        await ask(
            stack,
            players_pb2.PlayersQuery(
                leaderboard=players_pb2.GetLeaderboardRequest(game_kind=RACE, page_size=100)
            ),
        )
    ).leaderboard
    profile = (
        await ask(
            stack,
            players_pb2.PlayersQuery(player_id=FARMER, profile=players_pb2.GetProfileRequest()),
        )
    ).profile
    (farmer,) = profile.ratings
    assert farmer.games == 12 + REPEAT_LIMIT - 1
    assert board.total == 1 + 3 + 12
    check_board(list(board.rows), farmer.rating)
    # The page's first rows are the honest players' and at most one of the farmer's keys.
    assert {r.player_id for r in board.rows[:4]} <= {*HONEST, FARMER}
    # What the service counted is what the book counts from the same records (the stream
    # sequences aside), and the rebuild rule holds: every figure from the games alone.
    here = Book(Path(f"{db}.again"))
    for seq, (_, records) in enumerate(the_games(), start=1):
        here.count(seq, finished(records))
    assert figures(dump(db)) == figures(here.dump())
    here.close()


def figures(dumped: str) -> str:
    """A dump from its ratings on: what does not depend on the stream's sequence numbers."""
    return dumped.split("-- ratings", 1)[1]
