"""The clock a player needs: what runs out next, when, and what to say before it does.

Pure: give it the tracker and the server's ``now`` (``ServerClock.now()``, never ahead of the
referee's). The deadlines are the server's own instants, as the tracker holds them: the Ready
deadline, the countdown's T0, the two-minute cap or the 20 s after the first clear, and the
pause after a miss. A line-mode player hears a few milestones (``announcements``); the
full-screen view redraws ``clock_line`` a few times a second.
"""

from __future__ import annotations

from collections.abc import MutableSet
from dataclasses import dataclass

from match_client.race.tracker import RaceView, ViewTracker

READY_WARN_MS = (10_000,)  # "Ready closes in 10 s: type r now, or you are out"
BOARD_WARN_MS = (60_000, 30_000, 10_000)
GRACE_WARN_MS = (10_000,)


@dataclass(frozen=True, slots=True)
class Deadline:
    """What runs out next: ``kind`` is ``ready``, ``countdown``, ``board`` or ``finish`` (the
    20 s everybody else has once someone cleared the board)."""

    kind: str
    board: int
    at_ms: int


def is_out(t: ViewTracker) -> bool:
    """The viewer is out of the game (missed a Ready or resigned)."""
    info = t.players.get(t.player)
    return info is not None and info.out


def is_ready(t: ViewTracker) -> bool:
    info = t.players.get(t.player)
    return info is not None and info.ready


def deadline(t: ViewTracker) -> Deadline | None:
    if t.phase == RaceView.PHASE_READY and t.ready_deadline_ms:
        return Deadline("ready", t.board, t.ready_deadline_ms)
    if t.phase == RaceView.PHASE_COUNTDOWN and t.starts_at_ms:
        return Deadline("countdown", t.board, t.starts_at_ms)
    if t.phase == RaceView.PHASE_PLAYING and not t.board_ended and t.ends_at_ms:
        return Deadline("finish" if t.taken_by else "board", t.board, t.ends_at_ms)
    return None


def left_text(ms: int) -> str:
    """``1:42`` from a minute up, ``9 s`` below (whole seconds, rounded up: 0.2 s left is 1 s)."""
    s = max(-(-ms // 1000), 0)
    return f"{s // 60}:{s % 60:02d}" if s >= 60 else f"{s} s"


def paused_ms(t: ViewTracker, now_ms: int) -> int:
    """How long the player's board still takes no turn after a miss (0: it takes turns)."""
    if t.phase != RaceView.PHASE_PLAYING or t.board_ended:
        return 0
    return max(t.paused_until_ms - now_ms, 0)


def clock_line(t: ViewTracker, now_ms: int) -> str:
    """One line: what runs out next and in how long; "" when nothing is timed."""
    d = deadline(t)
    if d is None:
        return ""
    left = left_text(d.at_ms - now_ms)
    out = is_out(t)
    if d.kind == "ready":
        if out:
            text = f"board {d.board}: Ready closes for the others in {left}"
        elif is_ready(t):
            text = f"board {d.board}: you are ready; Ready closes in {left}"
        else:
            text = f"board {d.board}: Ready closes in {left}: type r, or you are out of the game"
    elif d.kind == "countdown":
        text = f"board {d.board} starts in {left}"
    elif d.kind == "finish":
        text = f"board {d.board} ends in {left} (the time to finish after the first clear)"
    else:
        text = f"board {d.board} ends in {left} (two minutes a board)"
    pause = paused_ms(t, now_ms)
    if pause:
        text += f"; your board is paused for {pause / 1000:.1f} s after the miss"
    return text


def announcements(t: ViewTracker, now_ms: int, said: MutableSet[tuple[str, int, int]]) -> list[str]:
    """The milestone a line-mode player should hear now, at most one, each said once: Ready
    closing (only to a player who has not pressed it and is in the game), the board's last
    minute, 30 s and 10 s, the last 10 s to finish after a clear. ``said`` remembers them."""
    d = deadline(t)
    if d is None:
        return []
    marks: tuple[int, ...]
    if d.kind == "ready":
        if is_out(t) or is_ready(t) or t.status != RaceView.STATUS_WAITING:
            return []
        marks = READY_WARN_MS
    elif d.kind == "board":
        marks = BOARD_WARN_MS
    elif d.kind == "finish":
        marks = GRACE_WARN_MS
    else:
        return []
    if is_out(t):
        return []
    left = d.at_ms - now_ms
    due = [m for m in marks if left <= m and (d.kind, d.board, m) not in said]
    if not due or left <= 0:
        return []
    for m in marks:
        if left <= m:
            said.add((d.kind, d.board, m))
    when = left_text(left)
    if d.kind == "ready":
        return [f"Ready closes in {when}: type r now, or you are out of the game"]
    if d.kind == "finish":
        return [f"{when} left to finish board {d.board}"]
    return [f"board {d.board}: {when} left"]
