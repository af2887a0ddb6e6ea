"""Cheap checks at the edge, each with a message a person can act on. The referee decides again:
these only spare it (and the caller) a round trip for a request that cannot be right."""

from __future__ import annotations

import re
import secrets
import uuid

import grpc  # type: ignore[import-untyped]

from match.v1 import common_pb2, lobby_pb2, race_pb2
from match_bus.subjects import valid_table_id
from match_rules.race.constants import (
    DEFAULT_HINTS_PER_BOARD,
    MAX_HINTS_PER_BOARD,
    MAX_PLAYERS,
    MAX_READY_WINDOW_MS,
    MIN_PLAYERS,
    MIN_READY_WINDOW_MS,
    TILES,
)
from services.lobby import names
from services.lobby.errors import ApiError, invalid

DEFAULT_READY_WINDOW_MS = 30_000
INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud safely
# 12 of 31 characters: 59.4 bits, hopeless to guess under the failure limit (invites.py).
INVITE_LENGTH = 12
LEGACY_INVITE_LENGTH = 8  # codes made before 12; they expire like any other
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
MIN_REQUEST_ID_CHARS = 16
MAX_REQUEST_ID_CHARS = 64
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]+$")


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def display_name(name: str, *, bot: bool = False) -> str:
    """The name as it will be shown (services/lobby/names.py); INVALID_ARGUMENT if it may not
    be. ``bot``: the bot service, which may use the bots' names."""
    try:
        return names.display_name(name, bot=bot)
    except names.NameProblem as problem:
        raise invalid(str(problem)) from None


def table_id(value: str) -> str:
    if not value:
        raise invalid("table_id is required")
    if not valid_table_id(value):
        raise invalid("table_id is 8 to 32 lowercase letters and digits, as CreateTable gave it")
    return value


def invite_code(value: str) -> str:
    """Normalised: upper case, spaces and dashes dropped (people type them either way)."""
    code = re.sub(r"[\s-]", "", value).upper()
    if len(code) not in (INVITE_LENGTH, LEGACY_INVITE_LENGTH) or any(
        c not in INVITE_ALPHABET for c in code
    ):
        raise invalid(
            f"an invite code is {INVITE_LENGTH} letters and digits, as the table's host shared it"
        )
    return code


def tile(value: int) -> int:
    if not 1 <= value <= TILES:
        raise invalid(f"tiles are numbered 1 to {TILES}")
    return value


# A request id (and a client key) must look random: see ``predictable``.
MIN_DISTINCT_CHARS = 4
MIN_PATTERN_RUN = 12  # characters in a row that repeat or step evenly: a pattern (or half the id)
_SEPARATORS = "._:-"
_RANKS = "0123456789abcdefghijklmnopqrstuvwxyz"


def predictable(value: str) -> str | None:
    """Why ``value`` cannot be a random id, or None if it may be one.

    Separators (``. _ : -``) are ignored. Refused: fewer than 4 distinct characters
    (``0000000000000000``, ``abababab...``), or a stretch of 12 characters in a row (or half
    the id, if that is more) that repeats a pattern of 1 to 3 characters (``abcabcabcabc``) or
    steps evenly through 0-9a-z, case ignored (``0123456789abcdef``, ``13579bdfhjln``). A
    random id almost never is: for 16 random hex digits the chance is below 2e-9, for a uuid4
    (32 hex digits) below 1e-13. A counter with a prefix (``req-000000000001``) can pass: only
    randomness makes an id unpredictable, and the lobby can only refuse the obvious."""
    chars = [c for c in value.lower() if c not in _SEPARATORS]
    if len(set(chars)) < MIN_DISTINCT_CHARS:
        return f"it has fewer than {MIN_DISTINCT_CHARS} different characters"
    ranks = [_RANKS.find(c) for c in chars]
    longest = max(MIN_PATTERN_RUN, len(chars) // 2)
    for period in (1, 2, 3):
        run = period
        for i in range(period, len(chars)):
            run = run + 1 if chars[i] == chars[i - period] else period
            if run >= longest:
                return f"it repeats a pattern ({''.join(chars[i - run + 1 : i + 1])})"
    run = 2
    for i in range(2, len(ranks)):
        steady = ranks[i] >= 0 and ranks[i] - ranks[i - 1] == ranks[i - 1] - ranks[i - 2]
        run = run + 1 if steady and ranks[i - 1] >= 0 and ranks[i - 2] >= 0 else 2
        if run >= longest:
            return f"it counts evenly ({''.join(chars[i - run + 1 : i + 1])})"
    return None


def request_id(metadata_value: str | None) -> str:
    """The client's `x-request-id` (reused on a retry), or a fresh random one.

    It names the command: a retry under the same id gets the first answer, for CreateTable and
    JoinTable the seat and its token (to the same caller only: services/lobby/ids.py). So it
    must be unguessable: 16 to 64 characters that look random (``predictable``); a uuid4, as
    the SDK sends, is 32 hex digits."""
    if metadata_value is None:
        return uuid.uuid4().hex
    return random_looking("x-request-id", metadata_value, "per command")


def random_looking(key: str, value: str, when: str) -> str:
    """``value`` of the metadata ``key`` if it is a well-formed random-looking id."""
    if not (
        MIN_REQUEST_ID_CHARS <= len(value) <= MAX_REQUEST_ID_CHARS and _REQUEST_ID.match(value)
    ):
        raise invalid(
            f"{key} must be {MIN_REQUEST_ID_CHARS} to {MAX_REQUEST_ID_CHARS} letters, "
            f"digits or . _ : -, and unpredictable (got {len(value)} characters): send "
            f"a fresh uuid4 {when}"
            + (
                ", and the same one again only to retry that command"
                if key == "x-request-id"
                else ""
            )
        )
    problem = predictable(value)
    if problem is not None:
        raise invalid(
            f"{key} must be unpredictable, and this one is not: {problem}. Send a fresh "
            f"random uuid4 {when} (uuid.uuid4().hex), never a counter, a name or a time"
        )
    return value


def race_settings(request: lobby_pb2.CreateTableRequest) -> race_pb2.RaceSettings:
    """The race's settings with the defaults filled in."""
    given = request.race
    window = given.ready_window_ms or DEFAULT_READY_WINDOW_MS
    if not MIN_READY_WINDOW_MS <= window <= MAX_READY_WINDOW_MS:
        raise invalid(
            f"race.ready_window_ms must be {MIN_READY_WINDOW_MS} to {MAX_READY_WINDOW_MS} "
            f"(10 s to 2 min), or 0 for {DEFAULT_READY_WINDOW_MS}; got {window}"
        )
    hints = given.hints_per_board if given.HasField("hints_per_board") else None
    if hints is None:
        hints = DEFAULT_HINTS_PER_BOARD
    elif hints > MAX_HINTS_PER_BOARD:
        raise invalid(
            f"race.hints_per_board must be 0 to {MAX_HINTS_PER_BOARD} "
            f"(leave it unset for {DEFAULT_HINTS_PER_BOARD}); got {hints}"
        )
    return race_pb2.RaceSettings(ready_window_ms=window, hints_per_board=hints)


def create_table(request: lobby_pb2.CreateTableRequest) -> tuple[str, race_pb2.RaceSettings]:
    """The caller's display name and the resolved settings of a valid CreateTable."""
    if request.game_kind == common_pb2.GAME_KIND_UNSPECIFIED:
        raise invalid("game_kind is required: GAME_KIND_MATCH_RACE")
    if request.game_kind != common_pb2.GAME_KIND_MATCH_RACE:
        try:
            kind = common_pb2.GameKind.Name(request.game_kind)
        except ValueError:
            kind = f"game kind {request.game_kind}"
        raise ApiError(
            grpc.StatusCode.UNIMPLEMENTED,
            f"{kind} is not played here yet; only GAME_KIND_MATCH_RACE is",
        )
    if not MIN_PLAYERS <= request.seats <= MAX_PLAYERS:
        raise invalid(f"seats must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {request.seats}")
    if request.visibility not in (common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE):
        raise invalid("visibility is required: VISIBILITY_OPEN or VISIBILITY_PRIVATE")
    return display_name(request.display_name), race_settings(request)


PageCursor = tuple[int, str]  # (a time in unix ms, a table id): the last table of a page


def page(request: lobby_pb2.ListTablesRequest) -> tuple[PageCursor | None, int]:
    """(cursor, size) of a ListTables page: the cursor is None for the first page."""
    size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    if request.fill_due_by_ms < 0:
        raise invalid("fill_due_by_ms is a time in unix ms, or 0 to list every open table")
    if not request.page_token:
        return None, size
    at, _, table = request.page_token.partition(".")
    if not (at.isdigit() and len(at) <= 15 and valid_table_id(table)):
        raise invalid(
            "page_token must be the next_page_token of the previous page, unchanged "
            "(or empty for the first page)"
        )
    return (int(at), table), size


def page_token(cursor: PageCursor | None) -> str:
    """The next_page_token that continues after ``cursor`` (empty: the last page)."""
    return "" if cursor is None else f"{cursor[0]}.{cursor[1]}"
