"""Cheap checks at the edge, each with a message a person can act on. The referee decides again:
these only spare it (and the caller) a round trip for a request that cannot be right."""

from __future__ import annotations

import functools
import itertools
import operator
import re
import secrets
import uuid

import grpc  # type: ignore[import-untyped]
from google.protobuf.message import Message

from match.v1 import common_pb2, lobby_pb2, players_pb2
from match_bus.subjects import valid_table_id
from match_players import boards
from match_players.identity import PLAYER_ID_CHARS, is_keyed
from match_rules.errors import RuleError
from match_rules.game import Game
from services.lobby import games, names
from services.lobby.errors import ApiError, invalid

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


# A request id (and a client key) must look random: see ``predictable``.
MIN_DISTINCT_CHARS = 4
MIN_PATTERN_RUN = 12  # characters in a row that repeat or step evenly: a pattern (or half the id)
_NO_SEPARATORS = str.maketrans("", "", "._:-")
_RANKS = b"0123456789abcdefghijklmnopqrstuvwxyz"
_OUTSIDE = 255  # the rank of a character outside 0-9a-z
_RANK_BYTES = bytes(_RANKS.find(bytes([b])) % 256 for b in range(256))  # -1 -> 255
_BYTE_MASK = itertools.repeat(255)


def predictable(value: str) -> str | None:
    """Why ``value`` cannot be a random id, or None if it may be one.

    Separators (``. _ : -``) are ignored. Refused: fewer than 4 distinct characters
    (``0000000000000000``, ``abababab...``), or a stretch of 12 characters in a row (or half
    the id, if that is more) that repeats a pattern of 1 to 3 characters (``abcabcabcabc``) or
    steps evenly through 0-9a-z, case ignored (``0123456789abcdef``, ``13579bdfhjln``). A
    random id almost never is: for 16 random hex digits the chance is below 2e-9, for a uuid4
    (32 hex digits) below 1e-13. A counter with a prefix (``req-000000000001``) can pass: only
    randomness makes an id unpredictable, and the lobby can only refuse the obvious."""
    chars = value.lower().translate(_NO_SEPARATORS)
    if len(set(chars)) < MIN_DISTINCT_CHARS:
        return f"it has fewer than {MIN_DISTINCT_CHARS} different characters"
    longest = max(MIN_PATTERN_RUN, len(chars) // 2)
    for period in (1, 2, 3):
        found = _periodic(period, longest).search(chars)
        if found is not None:
            return f"it repeats a pattern ({found.group(0)})"
    steady = _steady(longest).search(_steps(chars))
    if steady is not None:
        return f"it counts evenly ({chars[steady.start() : steady.start() + longest]})"
    return None


def _steps(chars: str) -> bytes:
    """The step from each character to the next in 0-9a-z, one byte each (-35..35 modulo 256):
    characters that count evenly are a run of equal bytes. Next to a character outside 0-9a-z
    (never in an id the edge lets through: only the policy's own tests send one), 100 and 101 by
    turns, which no step is and no neighbour repeats."""
    ranks = chars.encode("ascii", "replace").translate(_RANK_BYTES)
    if _OUTSIDE not in ranks:
        return bytes(map(operator.and_, map(operator.sub, ranks[1:], ranks), _BYTE_MASK))
    return bytes(
        (b - a) % 256 if _OUTSIDE not in (a, b) else 100 + (i & 1)
        for i, (a, b) in enumerate(itertools.pairwise(ranks))
    )


@functools.lru_cache(maxsize=64)
def _periodic(period: int, length: int) -> re.Pattern[str]:
    """``length`` characters in a row that repeat their first ``period``: ``(.)(.)\\1\\2\\1...``."""
    refs = "".join(f"\\{k % period + 1}" for k in range(length - period))
    return re.compile("(.)" * period + refs, re.DOTALL)


@functools.lru_cache(maxsize=64)
def _steady(length: int) -> re.Pattern[bytes]:
    """``length - 1`` equal steps in a row: ``length`` characters that count evenly."""
    return re.compile(b"(.)\\1{%d}" % (length - 2), re.DOTALL)


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
                if key in ("x-request-id", "request_id")
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


def create_table(request: lobby_pb2.CreateTableRequest) -> tuple[str, Game, Message]:
    """The caller's display name, the game and its resolved settings of a valid CreateTable."""
    game = games.by_kind(request.game_kind)
    if not game.min_seats <= request.seats <= game.max_seats:
        raise invalid(f"seats must be {game.min_seats} to {game.max_seats}, got {request.seats}")
    if request.visibility not in (common_pb2.VISIBILITY_OPEN, common_pb2.VISIBILITY_PRIVATE):
        raise invalid("visibility is required: VISIBILITY_OPEN or VISIBILITY_PRIVATE")
    name = display_name(request.display_name)
    given = request.WhichOneof("settings")
    if given is not None and given != game.slug:
        raise invalid(
            f"settings `{given}` are not for {games.kind_name(game.kind)}: set `{game.slug}` "
            "(or leave the settings unset for the defaults)"
        )
    try:
        settings = game.settings(getattr(request, given) if given else None)
    except RuleError as error:  # the rules' own slug too: each bad setting has its own code
        raise ApiError(grpc.StatusCode.INVALID_ARGUMENT, error.message, error.code.slug) from None
    return name, game, settings


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


MAX_BOARD_CHARS = boards.MAX_CHARS
DEFAULT_LEADERBOARD_PAGE_SIZE = 20
MAX_LEADERBOARD_PAGE_SIZE = 100


def keyed_player_id(value: str) -> str:
    """A signed-in player's id (``k`` and 23 hex digits); INVALID_ARGUMENT otherwise."""
    if not value:
        raise invalid("player_id is required")
    if not is_keyed(value):
        raise invalid(
            f"player_id must be a signed-in player's id: {PLAYER_ID_CHARS} characters, k and 23 "
            "lowercase hex digits (players without a key have no profile)"
        )
    return value


def leaderboard(request: players_pb2.GetLeaderboardRequest) -> players_pb2.GetLeaderboardRequest:
    """The request with its defaults filled in (page 1, 20 rows); INVALID_ARGUMENT if wrong."""
    games.by_kind(request.game_kind)  # a game played here
    problem = boards.problem(request.board)
    if problem is not None:
        raise invalid(problem)
    if request.page_size > MAX_LEADERBOARD_PAGE_SIZE:
        raise invalid(
            f"page_size must be 1 to {MAX_LEADERBOARD_PAGE_SIZE} (0 for "
            f"{DEFAULT_LEADERBOARD_PAGE_SIZE}), got {request.page_size}"
        )
    return players_pb2.GetLeaderboardRequest(
        game_kind=request.game_kind,
        board=boards.canonical(request.board),  # as the players service keeps it
        page=request.page or 1,
        page_size=request.page_size or DEFAULT_LEADERBOARD_PAGE_SIZE,
    )
