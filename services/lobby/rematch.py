"""Who may ask for a rematch of a table (LobbyService.Rematch; docs/api.md, "Rematch").

A rematch is the same game with the same players: the same game kind, settings and number of
seats at a new private table, with a new seed, where each player of the finished table takes a
seat only by asking (the first to ask makes it). So it needs a finished game played by people
only, two or more: a bot cannot ask, and a private table seats no bot.
"""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]

from match.v1 import lobby_pb2
from services.lobby import validation
from services.lobby.errors import ApiError
from services.lobby.ids import Ids


def rematch_refused(code: grpc.StatusCode, slug: str, message: str) -> ApiError:
    return ApiError(code, message, slug)


def rematch_code(ids: Ids, table_id: str) -> str:
    """The invite code the rematch table ``table_id`` was made with, if it is one."""
    return ids.rematch_code(table_id, validation.INVITE_ALPHABET, validation.INVITE_LENGTH)


def hide_rematch_code(ids: Ids, table: lobby_pb2.Table) -> None:
    """Blank ``table``'s invite code if it is a rematch's: only Rematch seats there (JoinTable
    with it is refused, ``rematch_players_only``), so showing it would invite a refusal."""
    if table.invite_code and table.invite_code == rematch_code(ids, table.table_id):
        table.invite_code = ""


def check_rematch(table: lobby_pb2.Table, player: str) -> lobby_pb2.Table.Seat:
    """The caller's seat at the finished ``table``; refused (nothing changed) if the table's
    players may not play it again together."""
    seat = next((s for s in table.taken if s.player_id == player), None)
    if seat is None:
        raise rematch_refused(
            grpc.StatusCode.PERMISSION_DENIED,
            "not_seated",
            f"you have no seat at table {table.table_id}: a rematch is for its players only",
        )
    if table.status != lobby_pb2.Table.STATUS_FINISHED:
        raise rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "game_not_over",
            f"the game at table {table.table_id} is not over: ask for a rematch once it has ended",
        )
    if len(table.taken) < 2:
        raise rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_solo",
            f"table {table.table_id} had one player: a rematch is for games of two players or "
            "more; start a new game instead",
        )
    if any(s.is_bot for s in table.taken):
        raise rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_with_bot",
            f"a bot played at table {table.table_id}, and a rematch seats the same people "
            "only (a private table has no bot): make a new table against the bot instead",
        )
    return seat
