"""Plain-text rendering of what the server sent, for a terminal and a screen reader.

Pure functions: tiles are named by their numbers 1..20 (4 across, 5 down) and symbols by a
short word (``symbols.NAMES``: symbol 5 is ``fish``), so nothing has to be described. A
face-down tile shows its number (``7``), a tile that is up shows its number and its symbol
(``7:fish``). Only what the tracker holds, i.e. what the server sent, is ever rendered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from match.v1 import common_pb2, race_pb2
from match_client import symbols
from match_client.race.timing import is_out, left_text
from match_client.race.tracker import RaceView, Revealed, Tile, ViewTracker
from match_client.terminal import clock_time

COLUMNS = 4
ROWS = 5
CELL = 3 + symbols.WIDTH  # "20:clover"
BOARDS = 3

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
    RaceEvent.END_REASON_ALL_DONE: "every player is done with it",
    RaceEvent.END_REASON_GRACE_OVER: "the 20 seconds to finish after the first clear are up",
    RaceEvent.END_REASON_TIME_CAP: "the two minutes are up",
}

HELP = """commands:
  1..20   turn that tile over
  r       press Ready: each board has its own, and whoever has not pressed it when Ready
          closes is out of the game (you are warned 10 seconds before)
  h       hint: the place of the partner of your one showing tile (tables with a bot)
  b       show your board again
  s       show everybody's pairs and turns on this board, and the standings so far
  t       the time left: until Ready closes, the board starts, or the board ends
  q       resign (asks again first); before the game starts, leave the table
  ?       this help
Tiles are numbered 1 to 20, four across and five down: row 1 is 1 2 3 4, row 5 is 17 18 19 20.
A face-down tile shows its number; a tile that is up shows number:symbol, e.g. 7:fish.
A board ends two minutes after it starts, or 20 seconds after the first player clears it."""


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
    "t": "time",
    "time": "time",
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
        return f"{tile.number}:{symbols.name(tile.symbol)}"
    return str(tile.number)


def render_board(tiles: Mapping[int, Tile]) -> list[str]:
    """Five lines of four tiles, tile 1 top left: ``1  2  3:cat  4`` and so on."""
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


def own_summary(t: ViewTracker, now_ms: int | None = None) -> str:
    parts = [f"board {t.board}", count(t.pairs, "pair"), count(t.turns, "turn")]
    if t.has_bot:
        parts.append(f"{count(t.hints_left, 'hint')} left")
    if now_ms is not None and t.phase == RaceView.PHASE_PLAYING and t.ends_at_ms:
        parts.append(f"{left_text(t.ends_at_ms - now_ms)} left on the board")
    return ", ".join(parts)


def board_lines(t: ViewTracker, now_ms: int | None = None) -> list[str]:
    return [*render_board(t.tiles), own_summary(t, now_ms)]


def scores_lines(t: ViewTracker) -> list[str]:
    """Everybody's counts on the current board while it is played (their tiles are never
    known), then the standings over the boards revealed so far."""
    out = []
    if t.phase in (RaceView.PHASE_PLAYING, RaceView.PHASE_COUNTDOWN) and not t.board_ended:
        out.append(f"board {t.board} so far:")
        for info in t.players.values():
            who = "you" if info.player == t.player else info.name
            p = info.boards.get(t.board)
            counts = (
                f"{count(p.pairs, 'pair')}, {count(p.turns, 'turn')}"
                if p is not None
                else "no turns"
            )
            extra = " (out of the game)" if info.out else ""
            out.append(f"  {who}: {counts}{extra}")
    if t.standings:
        return out + standings_lines(t, t.standings)
    out += running_lines(t)
    return out or ["no board has been played yet"]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place over the boards revealed so far."""

    place: int
    player: str
    pairs: int
    time_ms: int
    turns: int
    out: bool


def running_standings(t: ViewTracker) -> list[Standing]:
    """The standings over the revealed boards, ranked as the game's end ranks them (more pairs,
    then less time; equal on both shares the place; players out of the game below the rest).
    Display only: the final standings are the server's (``GameEnded``)."""
    totals: dict[str, list[int]] = {p: [0, 0, 0] for p in t.players}
    for revealed in t.revealed:
        for r in revealed.results:
            total = totals.setdefault(r.player, [0, 0, 0])
            total[0] += r.pairs
            total[1] += r.time_ms
            total[2] += r.turns
    if not t.revealed:
        return []

    def out_of_game(player: str) -> bool:
        info = t.players.get(player)
        return info is not None and info.out

    def key(player: str) -> tuple[bool, int, int]:
        pairs, time_ms, _ = totals[player]
        return (out_of_game(player), -pairs, time_ms)

    ranked = sorted(totals, key=key)
    rows: list[Standing] = []
    for i, player in enumerate(ranked):
        place = rows[-1].place if rows and key(ranked[i - 1]) == key(player) else i + 1
        pairs, time_ms, turns = totals[player]
        rows.append(Standing(place, player, pairs, time_ms, turns, out_of_game(player)))
    return rows


def running_lines(t: ViewTracker) -> list[str]:
    rows = running_standings(t)
    if not rows:
        return []
    done = max(r.board for r in t.revealed)
    out = [f"standings after board {done} of {BOARDS}:"]
    for r in rows:
        who = "you" if r.player == t.player else t.name(r.player)
        line = f"{r.place}. {who}: {count(r.pairs, 'pair')}, {seconds(r.time_ms)}"
        out.append(line + (", out of the game" if r.out else ""))
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
    lines = [
        f"board {revealed.board} revealed, the whole layout:",
        *render_layout(revealed.layout),
        *results_lines(t, revealed.results),
    ]
    if revealed.board < BOARDS and not t.game_over:
        lines += running_lines(t)
    return lines


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
        window = f"{seconds(e1.deadline - e1.at)}, until {clock_time(e1.deadline)}"
        if is_out(t):
            return [
                f"board {e1.board}: Ready is open for the others for {window}. You are out "
                "of the game and follow it from here; Ctrl-D leaves"
            ]
        return [
            f"board {e1.board}: Ready is open for {window}. Type r when you are ready: "
            "whoever has not by then is out of the game."
        ]
    if kind == "player_ready":
        e2 = event.player_ready
        return [f"{_who(t, e2.player)} {'are' if e2.player == t.player else 'is'} ready"]
    if kind == "player_missed_ready":
        e3 = event.player_missed_ready
        if e3.player == t.player:
            return [
                "you did not press Ready in time and are out of the game; "
                "you can follow the rest from here, and Ctrl-D leaves"
            ]
        return [f"{_who(t, e3.player)} did not press Ready in time and is out of the game"]
    if kind == "countdown_started":
        e4 = event.countdown_started
        who = "everybody still playing" if is_out(t) else "everybody"
        return [f"{who} is ready: board {e4.board} starts in {seconds(e4.starts_at - e4.at)}"]
    if kind == "board_started":
        board = event.board_started.board
        if t.status == RaceView.STATUS_PLAYING:
            return [f"board {board}: go!"]  # the board follows (cli.tell: an own change)
        if is_out(t):
            return [f"board {board} has started for the others (you are out of the game)"]
        return [f"board {board} has started"]
    if kind == "tiles_turned_down":
        a, b = (*event.tiles_turned_down.tiles, 0, 0)[:2]
        return [f"tiles {a} and {b} turned back down"]
    if kind == "tile_turned":
        e5 = event.tile_turned
        return [f"you turned {e5.tile}: {symbols.name(e5.symbol)} (turn {e5.turn})"]
    if kind == "pair_found":
        e6 = event.pair_found
        a, b = (*e6.tiles, 0, 0)[:2]
        name = symbols.name(e6.symbol)
        return [f"pair! tiles {a} and {b}, both {name}: {count(e6.pairs, 'pair')}"]
    if kind == "attempt_missed":
        e7 = event.attempt_missed
        a, b = (*e7.tiles, 0, 0)[:2]
        pause = seconds(e7.paused_until - e7.at)
        return [f"no pair: {a} and {b} differ. Your board takes no turn for {pause}"]
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
            f"{seconds(e12.grace_until - e12.at)} more to finish it"
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
