"""The clock a player sees and hears: what runs out next, counting down, and the milestones
said once in the line mode (the Ready warning before a missed Ready puts a player out)."""

from __future__ import annotations

from match.v1 import common_pb2, race_pb2
from match_client.race import text, timing
from match_client.race.tracker import ViewTracker

RE = race_pb2.RaceEvent
T0 = 1_000_000


def envelope(n: int, **race: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(event_number=n, race=RE(**race))  # type: ignore[arg-type]


def at_ready(deadline: int = T0 + 30_000) -> ViewTracker:
    t = ViewTracker(player="ann")
    t.apply_events(
        [
            envelope(1, game_started=RE.GameStarted(players=["ann", "bob"], bots=["bob"])),
            envelope(2, ready_opened=RE.ReadyOpened(at=T0, board=1, deadline=deadline)),
        ]
    )
    return t


def playing() -> ViewTracker:
    t = at_ready()
    t.apply_events(
        [
            envelope(3, player_ready=RE.PlayerReady(at=T0 + 1, board=1, player="ann")),
            envelope(
                4, countdown_started=RE.CountdownStarted(at=T0 + 2, board=1, starts_at=T0 + 3_002)
            ),
            envelope(5, board_started=RE.BoardStarted(at=T0 + 3_002, board=1)),
        ]
    )
    return t


def test_left_text_rounds_up_to_the_second_and_shows_minutes() -> None:
    assert timing.left_text(120_000) == "2:00"
    assert timing.left_text(60_000) == "1:00"
    assert timing.left_text(59_001) == "1:00"
    assert timing.left_text(59_000) == "59 s"
    assert timing.left_text(200) == "1 s"
    assert timing.left_text(0) == "0 s"
    assert timing.left_text(-5) == "0 s"


def test_the_ready_deadline_counts_down_and_says_what_missing_it_costs() -> None:
    t = at_ready()
    assert timing.clock_line(t, T0) == (
        "board 1: Ready closes in 30 s: type r, or you are out of the game"
    )
    assert "closes in 21 s" in timing.clock_line(t, T0 + 9_000)


def test_the_ready_warning_comes_ten_seconds_before_and_once() -> None:
    t, said = at_ready(), set[tuple[str, int, int]]()
    assert timing.announcements(t, T0 + 19_999, said) == []  # 10.001 s left: not yet
    assert timing.announcements(t, T0 + 20_000, said) == [
        "Ready closes in 10 s: type r now, or you are out of the game"
    ]
    assert timing.announcements(t, T0 + 21_000, said) == []  # said once
    assert timing.announcements(t, T0 + 30_000, said) == []  # closed: nothing to warn of


def test_no_ready_warning_for_a_player_who_pressed_it_or_is_out() -> None:
    t = at_ready()
    t.apply_events([envelope(3, player_ready=RE.PlayerReady(at=T0 + 1, board=1, player="ann"))])
    assert timing.announcements(t, T0 + 25_000, set()) == []
    assert timing.clock_line(t, T0 + 25_000) == "board 1: you are ready; Ready closes in 5 s"
    out = at_ready()
    out.apply_events(
        [
            envelope(
                3, player_missed_ready=RE.PlayerMissedReady(at=T0 + 30_000, board=1, player="ann")
            )
        ]
    )
    assert timing.announcements(out, T0 + 25_000, set()) == []


def test_the_board_clock_the_pause_and_the_time_to_finish() -> None:
    t = playing()
    assert timing.clock_line(t, T0 + 3_002) == "board 1 ends in 2:00 (two minutes a board)"
    assert timing.clock_line(t, T0 + 63_002) == "board 1 ends in 1:00 (two minutes a board)"
    t.apply_events(
        [
            envelope(6, attempt_missed=RE.AttemptMissed(
                at=T0 + 10_000, board=1, player="ann", tiles=[1, 2], paused_until=T0 + 11_000
            )),
        ]
    )  # fmt: skip
    assert timing.clock_line(t, T0 + 10_400).endswith(
        "; your board is paused for 0.6 s after the miss"
    )
    t.apply_events(
        [
            envelope(
                7,
                board_taken=RE.BoardTaken(
                    at=T0 + 40_000, board=1, player="bob", grace_until=T0 + 60_000
                ),
            )
        ]
    )
    assert timing.clock_line(t, T0 + 45_000) == (
        "board 1 ends in 15 s (the time to finish after the first clear)"
    )


def test_the_board_milestones_are_said_once_each() -> None:
    t, said = playing(), set[tuple[str, int, int]]()
    end = T0 + 123_002
    heard = [
        line for ms in range(T0 + 3_002, end, 250) for line in timing.announcements(t, ms, said)
    ]
    assert heard == ["board 1: 1:00 left", "board 1: 30 s left", "board 1: 10 s left"]


def test_the_status_line_has_the_time_left_on_the_board() -> None:
    t = playing()
    assert text.own_summary(t, T0 + 20_002) == (
        "board 1, 0 pairs, 0 turns, 0 hints left, 1:43 left on the board"
    )
