"""The race tells its log for the replay: where each event goes (boards, the table, the end),
one line per event, the layout and results under a revealed board, the standings at the end."""

from __future__ import annotations

from match.v1 import race_command_pb2, race_pb2
from match_rules.game import ENDING, OPENING, PLAYING, Place, Told
from match_rules.race import describe
from match_rules.race import events as ev
from match_rules.race.game import GAME
from match_rules.race.view import OpponentMoved


class Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


T = Teller()


def test_each_event_has_its_place() -> None:
    assert GAME.place(ev.GameStarted(1, ("ann",), frozenset(), 1, 1, "v")) == Place(OPENING)
    assert GAME.place(ev.GameEnded(1, ())) == Place(ENDING)
    assert GAME.place(ev.BoardStarted(1, 2)) == Place(2, starts=True)
    assert GAME.place(ev.ReadyOpened(1, 3, 9)) == Place(3)
    assert GAME.place(OpponentMoved(1, 0, "bob", 1, 1, 0)) == Place(PLAYING)


def test_headings() -> None:
    assert GAME.heading(2) == "board 2"
    assert GAME.heading(ENDING) == "end of the game (times from the last board's T0)"


def test_every_event_is_one_line() -> None:
    cases = {
        ev.GameStarted(1, ("ann", "bob"), frozenset(), 1, 1, "match-deal-v1"): (
            "the game starts: Ann, Bob; dealt with match-deal-v1"
        ),
        ev.ReadyOpened(1, 1, 9): "Ready opens for board 1 until @9",
        ev.PlayerReady(1, 1, "ann"): "Ann is Ready",
        ev.PlayerMissedReady(1, 1, "ann"): "Ann missed Ready and is out",
        ev.CountdownStarted(1, 1, 5): "countdown: the board starts at @5",
        ev.BoardStarted(1, 1): "the board starts (T0)",
        ev.TilesTurnedDown(1, 1, "ann", (3, 4)): "Ann: tiles 3 and 4 turn face down",
        ev.TileTurned(1, 1, "ann", 3, 7, 2): "Ann turns tile 3: symbol 7 (turn 2)",
        ev.PairFound(
            1, 1, "ann", (3, 4), 7, 1
        ): "Ann finds a pair: tiles 3 and 4, symbol 7 (1 pairs)",
        ev.AttemptMissed(1, 1, "ann", (3, 4), 8): "Ann misses with tiles 3 and 4: paused until @8",
        ev.HintGiven(1, 1, "ann", 3, 9, 1): "Ann gets a hint: tile 3's partner is tile 9 (1 used)",
        ev.TurnsExhausted(1, 1, "ann"): "Ann is out of turns",
        ev.BoardCleared(1, 1, "ann", 20_000): "Ann clears the board in 20000 ms",
        ev.ClearDisqualified(1, 1, "ann", 9_000): "Ann clears in 9000 ms: under 12 s, disqualified",
        ev.BoardTaken(1, 1, "ann", 7): "Ann takes the board; the others have until @7",
        ev.PlayerResigned(1, 1, "ann"): "Ann resigns",
        ev.BoardEnded(1, 1, ev.EndReason.TIME_CAP): "board 1 ends: the two minutes are up",
    }
    for event, text in cases.items():
        assert GAME.describe(event, T) == Told(text), event


def test_a_revealed_board_shows_its_layout_and_results() -> None:
    revealed = ev.BoardRevealed(
        1,
        2,
        (1, 2, 3, 4, 5, 6),
        (ev.BoardResult("ann", ev.Outcome.CLEARED, 10, 10, 1, 30_000, 2),),
    )
    assert GAME.describe(revealed, T) == Told(
        "board 2 is revealed",
        (
            "layout (tile:symbol, 4 across):",
            "     1:1    2:2    3:3    4:4 ",
            "     5:5    6:6 ",
            "results:",
            "    Ann: cleared, 10 pairs, 1 turn, 30000 ms, 2 hints",
        ),
    )


def test_the_end_shows_the_standings() -> None:
    ended = ev.GameEnded(
        1,
        (
            ev.Standing("ann", 1, 1, 30_000, 1, 1, False),
            ev.Standing("bob", 2, 0, 0, 2, 0, True),
        ),
    )
    assert GAME.describe(ended, T) == Told(
        "the game ends",
        (
            "standings:",
            "    1. Ann: 1 pair, 30000 ms, 1 turn, 1 hint",
            "    2. Bob: 0 pairs, 0 ms, 2 turns, 0 hints, out",
        ),
    )


def test_an_opponents_move_is_shown_as_it_is() -> None:
    """A redacted event is never in the log; shown as it is should one be read."""
    moved = OpponentMoved(1, 0, "bob", 1, 1, 0)
    assert GAME.describe(moved, T) == Told(repr(moved))


def test_commands_and_settings() -> None:
    def said(**command: object) -> str:
        return GAME.describe_command(race_command_pb2.RaceCommand(player_id="ann", **command), T)  # type: ignore[arg-type]

    assert said(turn_tile={"tile": 4}) == "Ann turns tile 4"
    assert said(press_ready={}) == "Ann presses Ready"
    assert said(resign={}) == "Ann resigns"
    assert said(request_hint={}) == "Ann request hint"
    assert said() == "Ann sends nothing"
    settings = race_pb2.RaceSettings(ready_window_ms=30_000, hints_per_board=3)
    assert GAME.describe_settings(settings) == "Ready window 30000 ms, 3 hints per board"


def test_a_players_line_is_their_name_and_the_verb() -> None:
    """The lines built once at import (``_player``): the player's name, then the verb."""
    said = describe._player("resigns")
    assert said(T, ev.PlayerResigned(1, 1, "bob")) == "Bob resigns"
