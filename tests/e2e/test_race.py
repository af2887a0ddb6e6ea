"""A whole three-board game through the real gRPC API: two scripted players and two bots.

Every rule of the seed happens at least once: the pause, 80 turns, a disqualified fast clear,
the cap, a hint, a clear that takes the board and its grace, a missed Ready deadline, a
resignation, the reveals, the ranking and the published seed. Everything the two people
received is then checked for leaks.
"""

from __future__ import annotations

import grpc
import pytest
from nats.aio.client import Client

from match.v1 import race_pb2
from match_bus.clock import Clock
from match_launch.stack import Stack
from match_rules.deal import commitment
from match_rules.race import events as ev
from match_rules.race.deal import deal
from match_rules.race.game import from_proto
from tests.e2e.leaks import check_no_leaks
from tests.e2e.players_race import Player, fetch_deal, pairs_of

CAP, GRACE = 120_000, 20_000
WINDOW = 60_000


def events_of(reply: object) -> list[race_pb2.RaceEvent]:
    return [e.race for e in reply.events if e.HasField("race")]


def kinds(reply: object) -> list[str]:
    return [e.WhichOneof("event") or "" for e in events_of(reply)]


async def test_a_whole_game_through_the_api(
    stack: Stack, channel: grpc.aio.Channel, clock: Clock, nc: Client
) -> None:
    ann, bob = Player("Ann", channel, clock), Player("Bob", channel, clock)
    created = await ann.create(seats=4, window=WINDOW, hints=3)
    await bob.join(created.table_id)
    ann.watch()
    bob.watch()
    await ann.start_table()  # the bot fills the two empty seats
    await ann.wait_for("game_started", timeout=30)
    layouts = await fetch_deal(nc, ann.table_id)  # test privilege, to script a fast clear

    # Board 1: Ann clears too fast (disqualified); Bob misses, is paused, uses all 80 turns;
    # the bots are slow on this fast clock, so nobody takes the board and it runs to the cap.
    await ann.ready()
    await bob.ready()
    t0 = (await ann.wait_for("board_started", board=1, timeout=30)).at
    for a, b in pairs_of(layouts[0]):
        await ann.turn(a)
        last = await ann.turn(b)
    assert "clear_disqualified" in kinds(last)
    a1, b1, c1, d1 = _four_different(layouts[0])
    await bob.turn(a1)
    missed = await bob.turn(b1)
    assert "attempt_missed" in kinds(missed)
    with pytest.raises(grpc.aio.AioRpcError) as paused:
        await bob.turn(c1)
    assert paused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "paused" in (paused.value.details() or "")
    turns = 2
    while turns < 80:
        await bob.sleep_until(missed.counters.paused_until_ms)
        first, second = (c1, d1) if turns % 4 == 2 else (a1, b1)
        await bob.turn(first)
        missed = await bob.turn(second)
        turns += 2
    assert "turns_exhausted" in kinds(missed)
    assert missed.counters.turns == 80
    ended = await ann.wait_for("board_ended", board=1, timeout=30)
    assert (ended.at, ended.reason) == (t0 + CAP, race_pb2.RaceEvent.END_REASON_TIME_CAP)

    # Board 2: Ann asks for a hint, then clears at 13 s: she takes the board; the grace ends it.
    await ann.wait_for("ready_opened", board=2)
    await ann.ready()
    await bob.ready()
    t0 = t0_2 = (await ann.wait_for("board_started", board=2, timeout=30)).at
    pairs = pairs_of(layouts[1])
    await ann.turn(pairs[0][0])
    hint = await ann.hint()
    (given,) = [e.hint_given for e in events_of(hint) if e.WhichOneof("event") == "hint_given"]
    assert (given.tile, given.partner) == pairs[0]
    await ann.turn(pairs[0][1])
    await bob.turn(pairs[1][0])
    for a, b in pairs[1:]:
        if (a, b) == pairs[-1]:
            await ann.sleep_until(t0 + 13_000)
        await ann.turn(a)
        last = await ann.turn(b)
    assert {"board_cleared", "board_taken"} <= set(kinds(last))
    (taken,) = [e.board_taken for e in events_of(last) if e.WhichOneof("event") == "board_taken"]
    ended = await ann.wait_for("board_ended", board=2, timeout=30)
    assert (ended.at, ended.reason) == (taken.grace_until, race_pb2.RaceEvent.END_REASON_GRACE_OVER)
    assert taken.grace_until == taken.at + GRACE

    # Board 3: Bob misses the Ready deadline and is out; Ann resigns mid-board; the bots play
    # on to the cap and the game ends.
    opened = await ann.wait_for("ready_opened", board=3)
    await ann.ready()
    missed_ready = await ann.wait_for("player_missed_ready", board=3, timeout=30)
    assert (missed_ready.player, missed_ready.at) == (bob.player_id, opened.deadline)
    with pytest.raises(grpc.aio.AioRpcError) as out:
        await bob.turn(1)
    assert out.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    t0 = (await ann.wait_for("board_started", board=3, timeout=30)).at
    await ann.turn(pairs_of(layouts[2])[0][0])
    assert "player_resigned" in kinds(await ann.resign())
    ended = await ann.wait_for("board_ended", board=3, timeout=30)
    assert (ended.at, ended.reason) == (t0 + CAP, race_pb2.RaceEvent.END_REASON_TIME_CAP)
    game_ended = await bob.wait_for("game_ended", timeout=30)

    # The reveals, the ranking, the seed.
    for player in (ann, bob):
        revealed = [
            e.board_revealed for e in player.events() if e.WhichOneof("event") == "board_revealed"
        ]
        assert [tuple(r.layout) for r in revealed] == list(layouts)
    results = tuple(
        from_proto(e).results  # type: ignore[union-attr]
        for e in ann.events()
        if e.WhichOneof("event") == "board_revealed"
    )
    started = from_proto(next(e for e in ann.events() if e.WhichOneof("event") == "game_started"))
    assert isinstance(started, ev.GameStarted)
    a, b = ann.player_id, bob.player_id
    clear = taken.at - t0_2  # Ann's last pair on board 2: the moment she took it
    out = ev.Outcome
    # Written out from the script above, not from score.py: (player, outcome, scored pairs,
    # found, turns, time, hints). Disqualified, resigned and out count the board's end (the cap).
    assert [r for r in results[0] if r.player in (a, b)] == [
        ev.BoardResult(a, out.DISQUALIFIED, 0, 10, 20, CAP, 0),
        ev.BoardResult(b, out.OUT_OF_TURNS, 0, 0, 80, CAP, 0),
    ]
    assert [r for r in results[1] if r.player in (a, b)] == [
        ev.BoardResult(a, out.CLEARED, 10, 10, 20, clear, 1),
        ev.BoardResult(b, out.BOARD_ENDED, 0, 0, 1, clear + GRACE, 0),
    ]
    assert [r for r in results[2] if r.player in (a, b)] == [
        ev.BoardResult(a, out.RESIGNED, 0, 0, 1, CAP, 0),
        ev.BoardResult(b, out.OUT, 0, 0, 0, CAP, 0),
    ]
    # The bots stayed: places 1 and 2 by pairs, then time, over their three boards. The people
    # are out: below them, Ann (10 pairs) before Bob (none).
    bots = [p for p in started.players if p not in (a, b)]
    total = {
        p: (sum(r.pairs for rs in results for r in rs if r.player == p),
            sum(r.time_ms for rs in results for r in rs if r.player == p),
            sum(r.turns for rs in results for r in rs if r.player == p),
            sum(r.hints for rs in results for r in rs if r.player == p))
        for p in bots
    }  # fmt: skip
    first, second = sorted(bots, key=lambda p: (-total[p][0], total[p][1]))
    tied = total[first][:2] == total[second][:2]
    expected = (
        ev.Standing(first, 1, *total[first], False),
        ev.Standing(second, 1 if tied else 2, *total[second], False),
        ev.Standing(a, 3, 10, CAP + clear + CAP, 20 + 20 + 1, 1, True),
        ev.Standing(b, 4, 0, CAP + clear + GRACE + CAP, 80 + 1 + 0, 0, True),
    )
    ended_game = from_proto(race_pb2.RaceEvent(game_ended=game_ended))
    assert isinstance(ended_game, ev.GameEnded)
    assert ended_game.standings == expected
    seed = await _seed(bob)
    committed = next(
        t.seed_committed for t in bob.table_events() if t.WhichOneof("event") == "seed_committed"
    )
    assert commitment(seed) == committed.commitment
    assert deal(seed).boards == layouts

    for player in (ann, bob):
        await player.stop_watch()
        assert check_no_leaks(player.player_id, player.received) > 100


def _four_different(layout: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Four tiles with four different symbols."""
    chosen: list[int] = []
    for tile, symbol in enumerate(layout, start=1):
        if all(layout[t - 1] != symbol for t in chosen):
            chosen.append(tile)
        if len(chosen) == 4:
            break
    a, b, c, d = chosen
    return a, b, c, d


async def _seed(player: Player) -> bytes:
    import asyncio

    for _ in range(300):
        for event in player.table_events():
            if event.WhichOneof("event") == "seed_revealed":
                return event.seed_revealed.seed
        await asyncio.sleep(0.05)
    raise AssertionError("the seed was never published")
