"""PlayerService: sign in with a key, get back to your seats, read the players' figures.

GetChallenge and SignIn are the lobby's own (services/lobby/identity.py); FindMySeats reads
the lobby's table listing (services/lobby/directory.py); the profiles, statistics, streaks and
leaderboards are the players service's read models, asked over NATS
(services/lobby/players_client.py) once the lobby has checked the caller and the request.
"""

from __future__ import annotations

import grpc  # type: ignore[import-untyped]
import structlog

from match.v1 import players_pb2, players_pb2_grpc
from services.lobby import validation
from services.lobby.directory import TableDirectory
from services.lobby.edge import Auth, Context, unary
from services.lobby.errors import ApiError
from services.lobby.identity import Challenges
from services.lobby.ids import Ids
from services.lobby.players_client import AskPlayers
from services.lobby.rematch import hide_rematch_code
from services.lobby.tokens import Tokens

log = structlog.get_logger()

MAX_SEATS = 100  # FindMySeats answers the newest this many
SEATS_SYNC_S = 2.0  # how long FindMySeats waits for the listing to catch up with the log

Query = players_pb2.PlayersQuery


def pages_message(pages: int) -> str:
    """``there are only N pages`` (``there is only 1 page``)."""
    return f"there is only {pages} page" if pages == 1 else f"there are only {pages} pages"


class PlayerServicer(players_pb2_grpc.PlayerServiceServicer):
    def __init__(
        self,
        auth: Auth,
        challenges: Challenges,
        directory: TableDirectory,
        players: AskPlayers,
        ids: Ids,
    ) -> None:
        self.auth = auth
        self._ids = ids
        self._challenges = challenges
        self._directory = directory
        self._players = players

    @property
    def _tokens(self) -> Tokens:
        return self.auth.tokens

    # --- signing in --------------------------------------------------------------------------

    @unary("GetChallenge")
    async def GetChallenge(
        self, request: players_pb2.GetChallengeRequest, context: Context
    ) -> players_pb2.GetChallengeResponse:
        self.auth.admit_sign_in(context)
        challenge = self._challenges.issue(request.public_key)
        return players_pb2.GetChallengeResponse(
            challenge=challenge.text,
            expires_at_ms=challenge.expires_at_ms,
            player_id=challenge.player,
        )

    @unary("SignIn")
    async def SignIn(
        self, request: players_pb2.SignInRequest, context: Context
    ) -> players_pb2.SignInResponse:
        self.auth.admit_sign_in(context)
        player = self._challenges.sign_in(request.public_key, request.challenge, request.signature)
        token, expires_at_ms = self.auth.sessions.issue(player)
        structlog.contextvars.bind_contextvars(player_id=player)
        log.info("signed in")
        return players_pb2.SignInResponse(
            player_id=player, session_token=token, expires_at_ms=expires_at_ms
        )

    # --- seats -------------------------------------------------------------------------------

    @unary("FindMySeats")
    async def FindMySeats(
        self, request: players_pb2.FindMySeatsRequest, context: Context
    ) -> players_pb2.FindMySeatsResponse:
        player = self.auth.signed_in(context).player
        table_id = validation.table_id(request.table_id) if request.table_id else ""
        await self._directory.sync(SEATS_SYNC_S)  # a table just made or joined is shown
        seats = []
        for table in self._directory.seats_of(player, table_id)[:MAX_SEATS]:
            seat = next((s for s in table.taken if s.player_id == player), None)
            if seat is None:  # not indexed so; never expected
                continue
            hide_rematch_code(self._ids, table)  # a copy: only Rematch seats there
            seats.append(
                players_pb2.MySeat(
                    table_id=table.table_id,
                    game_kind=table.game_kind,
                    seat=seat.seat,
                    player_token=self._tokens.issue(table.table_id, player, seat.seat),
                    table=table,
                    display_name=seat.display_name,
                )
            )
        return players_pb2.FindMySeatsResponse(seats=seats)

    # --- the players service's read models ----------------------------------------------------

    async def _mine(self, query: players_pb2.PlayersQuery) -> players_pb2.PlayersAnswer | None:
        """The answer about the caller; None when the players service knows nothing of them
        yet (NOT_FOUND): a player with no finished game has empty figures, not an error."""
        try:
            return await self._players.ask(query)
        except ApiError as error:
            if error.code == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    @unary("GetMyProfile")
    async def GetMyProfile(
        self, request: players_pb2.GetMyProfileRequest, context: Context
    ) -> players_pb2.GetMyProfileResponse:
        player = self.auth.signed_in(context).player
        answer = await self._mine(
            Query(player_id=player, profile=players_pb2.GetProfileRequest(player_id=player))
        )
        profile = answer.profile if answer is not None else players_pb2.Profile(player_id=player)
        return players_pb2.GetMyProfileResponse(profile=profile)

    @unary("GetMyStatistics")
    async def GetMyStatistics(
        self, request: players_pb2.GetMyStatisticsRequest, context: Context
    ) -> players_pb2.GetMyStatisticsResponse:
        player = self.auth.signed_in(context).player
        answer = await self._mine(
            Query(player_id=player, statistics=players_pb2.GetMyStatisticsRequest())
        )
        if answer is None:
            return players_pb2.GetMyStatisticsResponse()
        return answer.statistics

    @unary("GetMyStreak")
    async def GetMyStreak(
        self, request: players_pb2.GetMyStreakRequest, context: Context
    ) -> players_pb2.GetMyStreakResponse:
        player = self.auth.signed_in(context).player
        answer = await self._mine(Query(player_id=player, streak=players_pb2.GetMyStreakRequest()))
        return players_pb2.GetMyStreakResponse() if answer is None else answer.streak

    @unary("GetProfile")
    async def GetProfile(
        self, request: players_pb2.GetProfileRequest, context: Context
    ) -> players_pb2.GetProfileResponse:
        player = validation.keyed_player_id(request.player_id)
        answer = await self._players.ask(
            Query(player_id=player, profile=players_pb2.GetProfileRequest(player_id=player))
        )
        return players_pb2.GetProfileResponse(profile=answer.profile)

    @unary("GetLeaderboard")
    async def GetLeaderboard(
        self, request: players_pb2.GetLeaderboardRequest, context: Context
    ) -> players_pb2.GetLeaderboardResponse:
        asked = validation.leaderboard(request)
        answer = await self._players.ask(Query(leaderboard=asked))
        board = answer.leaderboard
        last = max(board.pages, 1)
        if asked.page > last:
            raise ApiError(
                grpc.StatusCode.OUT_OF_RANGE,
                f"page {asked.page} is past the last page of this leaderboard: "
                f"{pages_message(last)} of {asked.page_size} rows",
            )
        return board
