"""Plain-text rendering of what the server sent, for a terminal and a screen reader.

Pure functions: tiles are named by their numbers 1..20 (4 across, 5 down) and symbols by their
numbers 0..24, so nothing has to be described. A face-down tile shows its number (``7``), a tile
that is up shows its number and its symbol (``7:[12]``). Only what the tracker holds, i.e. what
the server sent, is ever rendered.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from match.v1 import common_pb2, lobby_pb2, race_pb2
from match_client.tracker import RaceView, Revealed, Tile, ViewTracker

COLUMNS = 4
ROWS = 5
CELL = 7  # "20:[24]"

RaceEvent = race_pb2.RaceEvent

OUTCOME_TEXT = {
    RaceEvent.OUTCOME_UNSPECIFIED: "still playing",
    RaceEvent.OUTCOME_CLEARED: "cleared",
    RaceEvent.OUTCOME_DISQUALIFIED: "disqualified (cleared in under 12 s)",
    RaceEvent.OUTCOME_OUT_OF_TURNS: "out of turns",
    RaceEvent.OUTCOME_RESIGNED: "resigned",
    RaceEvent.OUTCOME_BOARD_ENDED: "still playing when the board ended",
    RaceEvent.OUTCOME_OUT: "out of the game",
    RaceEvent.OUTCOME_NOT_PLAYED: "not played",
}
END_TEXT = {
    RaceEvent.END_REASON_UNSPECIFIED: "",
    RaceEvent.END_REASON_ALL_DONE: "everybody is done",
    RaceEvent.END_REASON_GRACE_OVER: "the grace is over",
    RaceEvent.END_REASON_TIME_CAP: "the two minutes are up",
}

HELP = """commands:
  1..20   turn that tile over
  r       press Ready
  h       hint: the place of the partner of your one showing tile (tables with a bot)
  b       show your board again
  s       show everybody's pairs and turns
  q       resign (asks again first)
  ?       this help
Tiles are numbered 1 to 20, four across and five down: row 1 is 1 2 3 4, row 5 is 17 18 19 20.
A face-down tile shows its number; a tile that is up shows number:[symbol], e.g. 7:[12]."""


# --- commands typed at the prompt --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    tile: int


@dataclass(frozen=True, slots=True)
class Simple:
    """A one-letter command: ``ready``, ``hint``, ``resign``, ``help``, ``board``, ``scores``."""

    name: str


@dataclass(frozen=True, slots=True)
class Unknown:
    text: str


Command = Turn | Simple | Unknown | None

_LETTERS = {
    "r": "ready",
    "ready": "ready",
    "h": "hint",
    "hint": "hint",
    "q": "resign",
    "quit": "resign",
    "resign": "resign",
    "?": "help",
    "help": "help",
    "b": "board",
    "board": "board",
    "s": "scores",
    "scores": "scores",
}


def parse_command(line: str) -> Command:
    """What a line typed at the prompt asks for; None for an empty line. A number is sent to
    the server as it is (the server says when it is not a tile)."""
    text = line.strip().lower()
    if not text:
        return None
    if text.isdigit() and len(text) <= 6:
        return Turn(int(text))
    name = _LETTERS.get(text)
    return Simple(name) if name is not None else Unknown(line.strip())


# --- the board ---------------------------------------------------------------------------


def tile_text(tile: Tile) -> str:
    if tile.up and tile.symbol is not None:
        return f"{tile.number}:[{tile.symbol}]"
    return str(tile.number)


def render_board(tiles: Mapping[int, Tile]) -> list[str]:
    """Five lines of four tiles, tile 1 top left: ``1  2  3:[7]  4`` and so on."""
    lines = []
    for row in range(ROWS):
        cells = []
        for col in range(COLUMNS):
            n = row * COLUMNS + col + 1
            cells.append(tile_text(tiles.get(n, Tile(n))).ljust(CELL))
        lines.append("  ".join(cells).rstrip())
    return lines


def render_layout(layout: Sequence[int]) -> list[str]:
    """A revealed board: every tile with its symbol, in the same grid."""
    tiles = {
        i: Tile(i, RaceView.TILE_STATE_FOUND, symbol) for i, symbol in enumerate(layout, start=1)
    }
    return render_board(tiles)


def count(n: int, noun: str) -> str:
    """``1 pair``, ``3 pairs``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def seconds(ms: int) -> str:
    return f"{ms / 1000:.1f} s"


def clock_time(unix_ms: int) -> str:
    """A server time as the local time of day, to the second."""
    return dt.datetime.fromtimestamp(unix_ms / 1000).strftime("%H:%M:%S")


def own_summary(t: ViewTracker) -> str:
    parts = [f"board {t.board}", count(t.pairs, "pair"), count(t.turns, "turn")]
    if t.has_bot:
        parts.append(f"{count(t.hints_left, 'hint')} left")
    return ", ".join(parts)


def board_lines(t: ViewTracker) -> list[str]:
    return [*render_board(t.tiles), own_summary(t)]


def scores_lines(t: ViewTracker) -> list[str]:
    """Everybody's counts on the current board (their tiles are never known)."""
    out = []
    for info in t.players.values():
        who = "you" if info.player == t.player else info.name
        p = info.boards.get(t.board)
        counts = (
            f"{count(p.pairs, 'pair')}, {count(p.turns, 'turn')}" if p is not None else "no turns"
        )
        extra = " (out)" if info.out else ""
        out.append(f"{who}: {counts}{extra}")
    return out


def results_lines(t: ViewTracker, results: Iterable[RaceEvent.BoardResult]) -> list[str]:
    out = []
    for r in results:
        who = "you" if r.player == t.player else t.name(r.player)
        text = (
            f"{who}: {OUTCOME_TEXT.get(r.outcome, '?')}, {count(r.pairs, 'pair')}"
            + (f" (found {r.found})" if r.found != r.pairs else "")
            + f", {r.turns} turns, {seconds(r.time_ms)}"
        )
        if r.hints:
            text += f", {count(r.hints, 'hint')}"
        out.append(text)
    return out


def reveal_lines(t: ViewTracker, revealed: Revealed) -> list[str]:
    return [
        f"board {revealed.board} revealed, the whole layout:",
        *render_layout(revealed.layout),
        *results_lines(t, revealed.results),
    ]


def standings_lines(t: ViewTracker, standings: Iterable[RaceEvent.Standing]) -> list[str]:
    out = ["final standings:"]
    for s in standings:
        who = "you" if s.player == t.player else t.name(s.player)
        text = (
            f"{s.place}. {who}: {count(s.pairs, 'pair')}, {seconds(s.time_ms)}, "
            f"{count(s.turns, 'turn')}"
        )
        if s.hints:
            text += f", {count(s.hints, 'hint')}"
        if s.out:
            text += ", out of the game"
        out.append(text)
    return out


def seed_lines(t: ViewTracker) -> list[str]:
    if t.seed is None:
        return []
    return [
        f"seed: {t.seed.hex()} ({t.deal_version or 'deal version unknown'})",
        f"commitment was: {t.commitment}" if t.commitment else "",
    ]


def snapshot_lines(t: ViewTracker) -> list[str]:
    """What a fresh snapshot says, in a few lines."""
    names = ", ".join(
        ("you" if p.player == t.player else p.name) + (" (bot)" if p.is_bot else "")
        for p in t.players.values()
    )
    out = [f"table {t.table_id}: {phase_text(t)}"]
    if names:
        out.append(f"players: {names}")
    if t.board and not t.board_ended:
        out += board_lines(t)
    for r in t.revealed:
        out.append(f"board {r.board} was revealed")
    if t.standings:
        out += standings_lines(t, t.standings)
    out += seed_lines(t)
    return [line for line in out if line]


def phase_text(t: ViewTracker) -> str:
    p = t.phase
    if p == RaceView.PHASE_WAITING_FOR_PLAYERS:
        return "waiting for players"
    if p == RaceView.PHASE_READY:
        return f"board {t.board}: Ready is open until {clock_time(t.ready_deadline_ms)}"
    if p == RaceView.PHASE_COUNTDOWN:
        return f"board {t.board} starts at {clock_time(t.starts_at_ms)}"
    if p == RaceView.PHASE_PLAYING:
        return f"board {t.board} is under way"
    if p == RaceView.PHASE_BETWEEN_BOARDS:
        return f"board {t.board} is over"
    if p == RaceView.PHASE_GAME_OVER:
        return "the game is over"
    return "unknown"


# --- events ------------------------------------------------------------------------------


def event_lines(env: common_pb2.EventEnvelope, t: ViewTracker) -> list[str]:
    """One event as text lines, for the tracker's player (call after applying it)."""
    body = env.WhichOneof("body")
    if body == "race":
        return _race_lines(env.race, t)
    if body == "table":
        return _table_lines(env.table, t)
    return []


def _who(t: ViewTracker, player: str) -> str:
    return "you" if player == t.player else t.name(player)


def _race_lines(event: race_pb2.RaceEvent, t: ViewTracker) -> list[str]:
    kind = event.WhichOneof("event")
    if kind == "game_started":
        e = event.game_started
        names = ", ".join(_who(t, p) + (" (bot)" if p in e.bots else "") for p in e.players)
        return [f"the game starts: three boards. Players: {names}"]
    if kind == "ready_opened":
        e1 = event.ready_opened
        return [
            f"board {e1.board}: Ready is open for {seconds(e1.deadline - e1.at)}, "
            f"until {clock_time(e1.deadline)}. Type r when you are ready."
        ]
    if kind == "player_ready":
        e2 = event.player_ready
        return [f"{_who(t, e2.player)} {'are' if e2.player == t.player else 'is'} ready"]
    if kind == "player_missed_ready":
        e3 = event.player_missed_ready
        verb = "are" if e3.player == t.player else "is"
        return [f"{_who(t, e3.player)} missed Ready and {verb} out of the game"]
    if kind == "countdown_started":
        e4 = event.countdown_started
        return [f"everybody is ready: board {e4.board} starts in {seconds(e4.starts_at - e4.at)}"]
    if kind == "board_started":
        go = f"board {event.board_started.board}: go!"
        return [go, *board_lines(t)] if t.status == RaceView.STATUS_PLAYING else [go]
    if kind == "tiles_turned_down":
        a, b = (*event.tiles_turned_down.tiles, 0, 0)[:2]
        return [f"tiles {a} and {b} turned back down"]
    if kind == "tile_turned":
        e5 = event.tile_turned
        return [f"you turned {e5.tile}: symbol {e5.symbol} (turn {e5.turn})"]
    if kind == "pair_found":
        e6 = event.pair_found
        a, b = (*e6.tiles, 0, 0)[:2]
        return [f"pair! tiles {a} and {b}, symbol {e6.symbol}: {count(e6.pairs, 'pair')}"]
    if kind == "attempt_missed":
        e7 = event.attempt_missed
        a, b = (*e7.tiles, 0, 0)[:2]
        return [f"no pair: {a} and {b} differ. Paused for {seconds(e7.paused_until - e7.at)}"]
    if kind == "hint_given":
        e8 = event.hint_given
        return [f"hint: the partner of tile {e8.tile} is tile {e8.partner}"]
    if kind == "opponent_moved":
        m = event.opponent_moved
        text = f"{t.name(m.player)}: {count(m.pairs, 'pair')}, {count(m.turns, 'turn')}"
        return [text + (f", {count(m.hints, 'hint')}" if m.hints else "")]
    if kind == "turns_exhausted":
        e9 = event.turns_exhausted
        return [
            f"{_who(t, e9.player)} used all 80 turns: board {e9.board} is over for them"
            if e9.player != t.player
            else f"you used all 80 turns: board {e9.board} is over for you"
        ]
    if kind == "board_cleared":
        e10 = event.board_cleared
        return [f"{_who(t, e10.player)} cleared board {e10.board} in {seconds(e10.elapsed_ms)}"]
    if kind == "clear_disqualified":
        e11 = event.clear_disqualified
        return [
            f"{_who(t, e11.player)} cleared board {e11.board} in {seconds(e11.elapsed_ms)}, "
            "under 12 s: disqualified on this board"
        ]
    if kind == "board_taken":
        e12 = event.board_taken
        return [
            f"{_who(t, e12.player)} took board {e12.board}: everybody else has "
            f"{seconds(e12.grace_until - e12.at)} to finish"
        ]
    if kind == "player_resigned":
        return [f"{_who(t, event.player_resigned.player)} resigned"]
    if kind == "board_ended":
        e13 = event.board_ended
        return [f"board {e13.board} ended: {END_TEXT.get(e13.reason, '')}"]
    if kind == "board_revealed":
        e14 = event.board_revealed
        return reveal_lines(t, Revealed(e14.board, tuple(e14.layout), tuple(e14.results)))
    if kind == "game_ended":
        return ["the game is over", *standings_lines(t, event.game_ended.standings)]
    return []


def _table_lines(event: common_pb2.TableEvent, t: ViewTracker) -> list[str]:
    kind = event.WhichOneof("event")
    if kind == "table_created":
        e = event.table_created
        return [f"table made: {e.seats} seats"]
    if kind == "player_seated":
        s = event.player_seated
        who = "you" if s.player_id == t.player else s.display_name
        return [f"{who} sat down at seat {s.seat}" + (" (bot)" if s.is_bot else "")]
    if kind == "player_left":
        return [f"{t.name(event.player_left.player_id)} left seat {event.player_left.seat}"]
    if kind == "seed_committed":
        return [f"seed commitment (SHA-256): {event.seed_committed.commitment}"]
    if kind == "seed_revealed":
        e1 = event.seed_revealed
        return [f"seed published: {e1.seed.hex()} ({e1.deal_version})"]
    if kind == "fill_requested":
        return [f"the bot fills the empty seats from {clock_time(event.fill_requested.fill_at_ms)}"]
    return []


# --- the lobby ---------------------------------------------------------------------------


def table_line(table: lobby_pb2.Table) -> str:
    created = dt.datetime.fromtimestamp(table.created_at_ms / 1000).strftime("%Y-%m-%d %H:%M:%S")
    names = ", ".join(s.display_name for s in table.taken)
    return f"{table.table_id}  {len(table.taken)}/{table.seats} seats  created {created}" + (
        f"  players: {names}" if names else ""
    )
