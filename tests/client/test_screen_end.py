"""The full-screen view of ``match play`` at the end of a race (issue 31, the web client, item 4):
the board shows the last board's layout, as its reveal gave it to everybody, and beside it
the result (the place, how the last board went, the final standings), never a blank grid and
``board 3, 0 pairs, 0 turns``. Before the end the board shows no face the player's view does
not hold: between boards it is the next board, face down.

A whole game is played through the rules core; the view folds what the player receives (the
events redacted for them) and, as after a reconnection, the lobby's snapshot of the finished
game (``race_view``). The app runs under Textual's pilot with a stand-in for
``match_client.race.play.Game``
that follows no stream: the tracker is the whole of what it draws.
"""

from __future__ import annotations

import re
from typing import Any, cast

from textual.widgets import Static

from match.v1 import common_pb2
from match_client import symbols
from match_client.race.screen import MatchApp
from match_client.race.tracker import ViewTracker
from match_rules.game import TableContext
from match_rules.race import commands as cmd
from match_rules.race import decide, evolve, initial_state, redact
from match_rules.race.game import race_view, to_proto
from match_rules.race.state import Phase, RaceState

ME, BOT = "ann", "bot1"
DEAL = tuple(tuple([*range(b, b + 10), *range(b, b + 10)][::-1]) for b in (0, 5, 10))


class Table:
    """A race through the rules core; every event redacted for ``ME`` and folded."""

    def __init__(self) -> None:
        self.state: RaceState = initial_state(DEAL)
        self.number = 0
        self.now = 1_000_000
        self.tracker = ViewTracker(player=ME, table_id="t1")

    def run(self, command: cmd.Command) -> None:
        for e in decide(self.state, command):
            self.state = evolve(self.state, e)
            self.number += 1
            env = common_pb2.EventEnvelope(
                table_id="t1",
                game_id="t1",
                game_kind=common_pb2.GAME_KIND_MATCH_RACE,
                event_number=self.number,
                server_time_ms=e.at,
                race=to_proto(redact(self.state, e, ME)),
            )
            assert self.tracker.apply_event(env)

    def board(self, number: int) -> None:
        """Both press Ready; ``ME`` clears in 20 turns (13.3 s, not under 12), the bot turns
        nothing; the board ends at the end of the grace."""
        self.now += 1_000
        for p in (ME, BOT):
            self.run(cmd.PressReady(self.now, p))
        self.now += 3_000  # the countdown: T0
        layout = self.state.layout(number)
        for symbol in sorted(set(layout)):
            for tile, s in enumerate(layout, 1):
                if s == symbol:
                    self.now += 700
                    self.run(cmd.TurnTile(self.now, ME, tile))
        self.now += 21_000
        self.run(cmd.Tick(self.now))

    def snapshot(self) -> ViewTracker:
        """A tracker from the lobby's snapshot alone, as after a reconnection."""
        t = ViewTracker(player=ME, table_id="t1")
        t.apply_snapshot(
            race_view(
                self.state,
                ME,
                TableContext(
                    table_id="t1",
                    event_number=self.number,
                    server_time_ms=self.now,
                    names={ME: "Ann", BOT: "Bot 1"},
                    commitment="c0ffee",
                    seed=None,
                    bots=frozenset({BOT}),
                ),
            )
        )
        return t


class StandIn:
    """What MatchApp uses of ``match_client.race.play.Game``, without a stream: the tracker as
    it is."""

    def __init__(self, tracker: ViewTracker, now: int) -> None:
        self.tracker = tracker
        self.at = now
        self.out: Any = print
        self.changed: Any = lambda: None
        self.show_boards = False

    def now(self) -> int:
        return self.at

    def tick(self) -> None:
        pass

    async def watch(self) -> None:
        pass

    async def handle(self, command: object) -> None:
        pass


async def drawn(tracker: ViewTracker, now: int) -> tuple[list[str], str, str]:
    """The tiles' texts (tile 1 first), the side panel and the clock line, as drawn."""
    app = MatchApp(cast(Any, StandIn(tracker, now)), [], "Ann")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        tiles = [str(app.query_one(f"#tile-{n}", Static).content) for n in range(1, 21)]
        scores = str(app.query_one("#scores", Static).content)
        clock = str(app.query_one("#clock", Static).content)
        await pilot.press("ctrl+d")
    return tiles, scores, clock


def names(layout: tuple[int, ...]) -> list[str]:
    return [symbols.name(s) for s in layout]


async def test_the_end_shows_the_last_boards_layout_and_the_result() -> None:
    table = Table()
    table.run(cmd.StartGame(table.now, (ME, BOT), frozenset({BOT}), 30_000, 3, "test"))
    table.board(1)

    # Between boards: board 2's Ready; the board is face down (board 1's faces are not
    # carried over to it: the reveal is listed, not drawn on the next board).
    assert table.tracker.board == 2 and not table.tracker.game_over
    tiles, scores, _ = await drawn(table.tracker, table.now)
    assert [t.strip() for t in tiles] == [str(n) for n in range(1, 21)], tiles

    table.board(2)
    table.board(3)
    assert table.state.phase is Phase.OVER
    last = table.state.layout(3)

    for tracker in (table.tracker, table.snapshot()):
        assert tracker.game_over
        # what the player's view reveals: board 3's whole layout, in its reveal
        assert tracker.revealed[-1].board == 3 and tracker.revealed[-1].layout == last
        tiles, scores, clock = await drawn(tracker, table.now)
        for n, (text, name) in enumerate(zip(tiles, names(last), strict=True), 1):
            assert re.fullmatch(rf"{n:>2} (\S+ )?{name}", text), (n, text, name)
        assert "0 pairs, 0 turns" not in scores, scores
        assert "board 3 revealed: you found 10 pairs in 20 turns" in scores, scores
        assert "you placed 1 of 2" in scores, scores
        assert "final standings:" in scores and "1. you: 30 pairs" in scores, scores
        assert "the game is over" in clock, clock
