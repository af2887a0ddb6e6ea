"""The table API (LobbyService), for every registered game. Each method: check the cheap things,
authenticate, forward to the referee (or read the listing), convert the answer. Nothing here
judges a move; each game's own service is services.lobby.playing."""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]
import structlog

from match.v1 import common_pb2, lobby_pb2, lobby_pb2_grpc, referee_pb2
from match_bus.records import QUARANTINED
from services.lobby import validation
from services.lobby.callers import caller
from services.lobby.directory import TableDirectory
from services.lobby.edge import Auth, Context, metadata, unary
from services.lobby.errors import ApiError, ListingBehind, invalid
from services.lobby.identity import SessionClaims
from services.lobby.ids import Ids
from services.lobby.invites import FailureBudget, InviteRules
from services.lobby.limits import Rate
from services.lobby.quotas import TableQuotas
from services.lobby.referee import Referee
from services.lobby.rematch import check_rematch, hide_rematch_code, rematch_code, rematch_refused
from services.lobby.tokens import Claims

log = structlog.get_logger()

TableCommand = referee_pb2.TableCommand


def _bind_table(table_id: str) -> None:
    structlog.contextvars.bind_contextvars(table_id=table_id)


# How long StartTable waits for this replica's listing to show the table the referee started
# (a replica that just restarted folds the whole log first).
LISTING_WAIT_S = 8.0


def _unknown_table(table_id: str) -> ApiError:
    return ApiError(grpc.StatusCode.NOT_FOUND, f"there is no table {table_id}; check the id")


EXPIRED = "table_expired"  # the referee's slug too (services/referee/table.py)


def _expired_table(table_id: str) -> ApiError:
    return ApiError(
        grpc.StatusCode.FAILED_PRECONDITION,
        f"table {table_id} expired: its game did not start in time; make a new table or join "
        "another",
        EXPIRED,
    )


ARCHIVED = "table_archived"


def _archived_table(table_id: str, keep_s: int) -> ApiError:
    kept = _spoken(keep_s)
    return ApiError(
        grpc.StatusCode.NOT_FOUND,
        f"table {table_id} finished {kept} or more ago, and the lobby lists a finished table "
        f"only for {kept} after its game ends; its game is in the ledger: replay it with "
        f"`match-audit replay {table_id}`, check it with `match-audit verify {table_id}`",
        ARCHIVED,
    )


def _spoken(seconds: int) -> str:
    """``seconds`` as a person says it: "an hour", "90 minutes", "a second"."""
    unit, n = next((u, seconds // s) for u, s in _UNITS if seconds % s == 0)
    if n == 1:
        return "an hour" if unit == "hour" else f"a {unit}"
    return f"{n} {unit}s"


_UNITS = (("hour", 3600), ("minute", 60), ("second", 1))  # the last divides every whole number


def seated_player(
    auth: Auth, directory: TableDirectory, table_id: str, context: Context
) -> tuple[str, Claims]:
    """The valid table id and the caller's claims: a token for that table, seat not given up."""
    table_id = validation.table_id(table_id)
    _bind_table(table_id)
    claims = auth.player(context, table_id)
    still_seated(directory, table_id, claims.player)
    return table_id, claims


def still_seated(directory: TableDirectory, table_id: str, player: str) -> None:
    """UNAUTHENTICATED once ``player`` has left ``table_id``: their seat's token works no more."""
    if directory.has_left(table_id, player):
        raise ApiError(
            grpc.StatusCode.UNAUTHENTICATED,
            "you left this table, so this token no longer works; join again for a new one",
        )


def _created_invite(accepted: referee_pb2.TableCommandReply.Accepted) -> str | None:
    """The invite code in the reply's TableCreated (the first answer, on a retry)."""
    for envelope in accepted.events:
        if envelope.WhichOneof("body") == "table" and envelope.table.HasField("table_created"):
            return str(envelope.table.table_created.invite_code)
    return None


_NO_INVITE_LIMITS = InviteRules(ttl_ms=2**62, failures=FailureBudget(Rate(0, 0)), now_ms=lambda: 0)


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(
        self,
        auth: Auth,
        referee: Referee,
        directory: TableDirectory,
        ids: Ids,
        quotas: TableQuotas | None = None,
        invites: InviteRules = _NO_INVITE_LIMITS,
    ) -> None:
        self.auth = auth
        self._referee = referee
        self._directory = directory
        self._ids = ids
        self._quotas = quotas
        self._invites = invites

    def _rematch_of(self, table_id: str) -> lobby_pb2.Rematch | None:
        """The rematch of the finished table ``table_id``, if a player asked for one."""
        rematch_id = self._ids.rematch_table(table_id)
        if self._directory.expired(rematch_id):
            return lobby_pb2.Rematch(table_id=rematch_id, expired=True)
        rematch = self._directory.get(rematch_id)
        if rematch is None:
            return None
        return lobby_pb2.Rematch(
            table_id=rematch_id,
            accepted=[s.player_id for s in rematch.taken],
            status=rematch.status,
        )

    async def _table_of_invite(self, code: str, context: Context) -> str:
        """The table the code opens. Only a code that opens nothing (unknown or expired) spends
        one of the client address's failures; with none left, every code is refused for a
        while, right ones too (services/lobby/invites.py: why, and why exact under load)."""
        async with self._invites.failures.guess(self.auth.address(context)) as guess:
            # No await before the code is known or ``hold``: the budget's unit is free until then.
            table_id = self._directory.table_of_invite(code)
            if table_id is None:
                guess.hold()  # kept if the code still opens nothing, else given back
                if not await self._directory.sync():  # the listing may lag the log a moment
                    raise ListingBehind()  # not known yet: the unit is given back
                table_id = self._directory.table_of_invite(code)
            made_at = self._directory.made_at(table_id) if table_id is not None else None
            if table_id is None or made_at is None:
                raise ApiError(
                    grpc.StatusCode.NOT_FOUND,
                    f"no table has the invite code {code}; check it with the host",
                )
            if self._invites.expired(made_at):
                minutes = self._invites.ttl_ms / 60_000
                raise ApiError(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"the invite code {code} has expired: a code opens its table for "
                    f"{minutes:g} minutes after the host made it; ask the host for a new table",
                )
            return table_id

    async def _table(self, table_id: str) -> lobby_pb2.Table | None:
        """The table from the listing, waiting for the listing to catch up when it misses;
        FAILED_PRECONDITION for a quarantined table."""
        table = self._directory.get(table_id)
        if table is None and self._directory.archived(table_id):
            raise _archived_table(table_id, self._directory.keep_finished_s)
        if table is None:
            if not await self._directory.sync():
                raise ListingBehind()
            table = self._directory.get(table_id)
        bad = self._directory.quarantined(table_id) if table is None else None
        if bad is not None:
            raise ApiError(grpc.StatusCode.FAILED_PRECONDITION, bad.message, QUARANTINED)
        if table is None and self._directory.expired(table_id):
            raise _expired_table(table_id)
        return table

    @unary("CreateTable")
    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        name, game, settings = validation.create_table(request)
        session = self.auth.session(context)  # signed in: seated under the key's player id
        # A retry (same request id, maybe on another lobby) names the same table and player,
        # and the referee answers it with its first answer.
        request_id = validation.request_id(metadata(context, "x-request-id"))
        who = caller(context, session.player if session else None)  # the first answer's owner
        table_id = self._ids.table(request_id, who)
        player_id = session.player if session else self._ids.player(table_id, request_id, who)
        _bind_table(table_id)
        structlog.contextvars.bind_contextvars(player_id=player_id)
        client = self.auth.address(context)
        # A retry of a table already made (the same request id) is not a new table: it is
        # answered by the referee with its first answer, whatever the limits say now.
        if self._quotas is not None and not self._directory.known(table_id):
            self._quotas.admit_create(client)
            self.auth.admit_create(context)
        invite = ""
        if request.visibility == common_pb2.VISIBILITY_PRIVATE:
            invite = validation.new_invite_code()
            while self._directory.table_of_invite(invite) is not None:
                invite = validation.new_invite_code()
        create = TableCommand.CreateTable(
            game_kind=request.game_kind,
            seats=request.seats,
            visibility=request.visibility,
            invite_code=invite,
            display_name=name,
        )
        getattr(create, game.slug).CopyFrom(settings)  # the member named after the game
        command = TableCommand(
            table_id=table_id, player_id=player_id, request_id=request_id, create_table=create
        )
        accepted = await self._referee.table(command)
        if self._quotas is not None:
            self._quotas.created(table_id, client)
        seat = accepted.seat or 1
        # On a retry the table was made with the first attempt's code, not the one drawn here.
        created = _created_invite(accepted)
        if created is not None:
            invite = created
        log.info("table created", seats=request.seats, private=bool(invite))
        return lobby_pb2.CreateTableResponse(
            table_id=table_id,
            invite_code=invite,
            player_id=player_id,
            player_token=self.auth.tokens.issue(table_id, player_id, seat),
            seat=seat,
        )

    @unary("ListTables")
    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        cursor, size = validation.page(request)
        if request.fill_due_by_ms:
            tables, last = self._directory.fill_due(
                request.game_kind, size, request.fill_due_by_ms, cursor
            )
        else:
            tables, last = self._directory.newest_open(request.game_kind, size, cursor)
        return lobby_pb2.ListTablesResponse(
            tables=tables, next_page_token=validation.page_token(last)
        )

    @unary("JoinTable")
    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        target = request.WhichOneof("target")
        if target is None:
            raise invalid("set table_id (an open table) or invite_code (a private one)")
        is_bot = self.auth.is_bot(context)
        name = validation.display_name(request.display_name, bot=is_bot)
        session = self.auth.session(context)  # signed in: seated under the key's player id
        invite = ""
        if target == "invite_code":
            invite = validation.invite_code(request.invite_code)
            table_id = await self._table_of_invite(invite, context)
            if invite == rematch_code(self._ids, table_id):  # never shown; only Rematch seats there
                raise rematch_refused(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "rematch_players_only",
                    f"table {table_id} is a rematch, for the players of the game before it "
                    "only; they take their seats with Rematch",
                )
        else:
            table_id = validation.table_id(request.table_id)
            if await self._table(table_id) is None:
                raise _unknown_table(table_id)
        _bind_table(table_id)
        if is_bot and self._quotas is not None:
            self._quotas.admit_bots(table_id)
        request_id = validation.request_id(metadata(context, "x-request-id"))
        # The same player on a retry from the same caller; another caller is another player. A
        # signed-in player is always the key's: joining twice is refused (`already_seated`).
        if session is not None:
            caller(context, session.player)  # checks the client key, as for anybody
            player_id = session.player
        else:
            player_id = self._ids.player(table_id, request_id, caller(context))
        structlog.contextvars.bind_contextvars(player_id=player_id)
        command = TableCommand(
            table_id=table_id,
            player_id=player_id,
            request_id=request_id,
            join_table=TableCommand.JoinTable(display_name=name, is_bot=is_bot, invite_code=invite),
        )
        accepted = await self._referee.table(command)
        log.info("seated", seat=accepted.seat, bot=is_bot)
        return lobby_pb2.JoinTableResponse(
            table_id=table_id,
            player_id=player_id,
            player_token=self.auth.tokens.issue(table_id, player_id, accepted.seat),
            seat=accepted.seat,
        )

    def _seat_command(self, table_id: str, context: Context) -> TableCommand:
        table_id, claims = seated_player(self.auth, self._directory, table_id, context)
        return TableCommand(
            table_id=table_id,
            player_id=claims.player,
            request_id=validation.request_id(metadata(context, "x-request-id")),
        )

    @unary("LeaveTable")
    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        command = self._seat_command(request.table_id, context)
        command.leave_table.SetInParent()
        await self._referee.table(command)
        return lobby_pb2.LeaveTableResponse()

    @unary("StartTable")
    async def StartTable(
        self, request: lobby_pb2.StartTableRequest, context: Context
    ) -> lobby_pb2.StartTableResponse:
        command = self._seat_command(request.table_id, context)
        command.start_table.SetInParent()
        if self._quotas is not None:  # no bot for it now: say so, rather than wait for none
            listing = self._directory  # a table made a moment ago: its seats come from it
            if not listing.known(command.table_id) and not listing.is_over(command.table_id):
                await listing.sync(LISTING_WAIT_S)
            self._quotas.admit_bots(command.table_id)
        await self._referee.table(command)
        await self._directory.sync(LISTING_WAIT_S)
        table = self._directory.get(command.table_id)
        if table is None:  # the referee accepted it; this replica's listing lags (a restart)
            raise ApiError(
                grpc.StatusCode.UNAVAILABLE,
                f"table {command.table_id} has started, but this lobby's listing is still "
                "catching up: ask again with the same request id",
            )
        return lobby_pb2.StartTableResponse(table=table)

    @unary("GetTable")
    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        table_id = validation.table_id(request.table_id)
        _bind_table(table_id)
        claims = self.auth.seat_or_session(context)  # a session shows the tables it sits at
        if isinstance(claims, Claims) and claims.table == table_id:
            still_seated(self._directory, table_id, claims.player)  # a seat given up shows none
        table = await self._table(table_id)
        if table is None:
            raise _unknown_table(table_id)
        if isinstance(claims, SessionClaims):
            mine = any(s.player_id == claims.player for s in table.taken)
        else:
            mine = claims is not None and claims.table == table_id
        if table.visibility == common_pb2.VISIBILITY_PRIVATE and not mine:
            if claims is None:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "a private table is shown to its players only: send your player token",
                )
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                "a private table is shown to its players only; your token is for another table"
                if isinstance(claims, Claims)
                else "a private table is shown to its players only; you have no seat there",
            )
        if not mine:
            table.invite_code = ""
        hide_rematch_code(self._ids, table)  # a rematch's code is nobody's to share
        if table.status == lobby_pb2.Table.STATUS_FINISHED and mine:
            rematch = self._rematch_of(table_id)
            if rematch is not None:
                table.rematch.CopyFrom(rematch)
        return lobby_pb2.GetTableResponse(table=table)

    @unary("Rematch")
    async def Rematch(
        self, request: lobby_pb2.RematchRequest, context: Context
    ) -> lobby_pb2.RematchResponse:
        table_id, claims = seated_player(self.auth, self._directory, request.table_id, context)
        finished = await self._table(table_id)
        if finished is not None and finished.status != lobby_pb2.Table.STATUS_FINISHED:
            # The game may have ended a moment ago: the caller saw it end on its Watch stream,
            # which the listing may lag.
            await self._directory.sync()
            finished = self._directory.get(table_id)
        if finished is None:
            raise _unknown_table(table_id)
        seat = check_rematch(finished, claims.player)
        request_id = validation.request_id(metadata(context, "x-request-id"))
        rematch_id = self._ids.rematch_table(table_id)
        code = rematch_code(self._ids, rematch_id)
        if self._directory.expired(rematch_id):
            raise rematch_refused(
                grpc.StatusCode.FAILED_PRECONDITION,
                "rematch_expired",
                f"the rematch of table {table_id} expired before every player took a seat: "
                "make a new table instead",
            )
        accepted: referee_pb2.TableCommandReply.Accepted | None = None
        # The first to ask makes the table; whoever finds it made (or loses the race to make
        # it, on this replica or another) takes a seat at it. A retry with the same request id
        # gets the first answer whichever command it is (the referee keys answers by player
        # and request id, and the player id is the same at both tables).
        if not self._directory.known(rematch_id):
            client = self.auth.address(context)
            if self._quotas is not None:
                self._quotas.admit_create(client)
                self.auth.admit_create(context)
            create = TableCommand.CreateTable(
                game_kind=finished.game_kind,
                seats=finished.seats,
                visibility=common_pb2.VISIBILITY_PRIVATE,
                invite_code=code,
                display_name=seat.display_name,
            )
            settings = finished.WhichOneof("settings")
            if settings is not None:
                getattr(create, settings).CopyFrom(getattr(finished, settings))
            command = TableCommand(
                table_id=rematch_id,
                player_id=claims.player,
                request_id=request_id,
                create_table=create,
            )
            try:
                accepted = await self._referee.table(command)
            except ApiError as error:
                if error.refusal_code != "table_exists":
                    raise
            else:
                if self._quotas is not None:
                    self._quotas.created(rematch_id, client)
        if accepted is None:
            command = TableCommand(
                table_id=rematch_id,
                player_id=claims.player,
                request_id=request_id,
                join_table=TableCommand.JoinTable(display_name=seat.display_name, invite_code=code),
            )
            try:
                accepted = await self._referee.table(command)
            except ApiError as error:
                raise _rematch_join_refused(error, table_id, rematch_id) from None
        offered = _created_invite(accepted) is not None
        log.info("rematch", rematch_table_id=rematch_id, seat=accepted.seat, offered=offered)
        return lobby_pb2.RematchResponse(
            table_id=rematch_id,
            player_id=claims.player,
            player_token=self.auth.tokens.issue(rematch_id, claims.player, accepted.seat),
            seat=accepted.seat,
            offered=offered,
        )


def _rematch_join_refused(error: ApiError, table_id: str, rematch_id: str) -> ApiError:
    """The referee's refusal of a seat at the rematch table, in the rematch's words."""
    if error.refusal_code == "already_seated":
        return rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_already_seated",
            f"you already have your seat at the rematch of table {table_id} (table "
            f"{rematch_id}): go on with the token your first Rematch gave",
        )
    if error.refusal_code in ("table_started", "table_full"):
        return rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_started",
            f"the rematch of table {table_id} (table {rematch_id}) has every seat taken and "
            "has started: make a new table instead",
        )
    if error.refusal_code == "table_expired":
        return rematch_refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "rematch_expired",
            f"the rematch of table {table_id} expired before every player took a seat: make "
            "a new table instead",
        )
    return error
