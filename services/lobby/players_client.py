"""The players service, as the lobby reaches it: NATS request/reply on ``match.players.query``
(``subjects.PLAYERS_QUERY``), answered by any replica of services/players (a queue group).

The lobby has checked the caller and the request before asking: a ``PlayersQuery`` names the
player (the signed-in one for the "my" questions) and the question. The answer is a
``PlayersAnswer``: the answer of the kind asked for, or a ``Refusal`` whose category becomes the
call's status (as the referee's do, services/lobby/errors.py). Questions are reads: nothing is
changed, so no answer in time (nobody subscribed, a timeout, NATS down) is UNAVAILABLE and the
caller simply asks again.
"""

from __future__ import annotations

from typing import Protocol

import grpc  # type: ignore[import-untyped]
import nats.errors
import structlog
from google.protobuf.message import DecodeError
from nats.aio.client import Client

from match.v1 import players_pb2
from match_bus import subjects
from services.lobby.errors import ApiError, from_refusal

log = structlog.get_logger()

PLAYERS_DOWN = "the players service is not answering; try again"
_GARBLED = "the players service's answer could not be read; try again"


class AskPlayers(Protocol):
    """What the servicer needs: one question, its answer (a fake in unit tests)."""

    async def ask(self, query: players_pb2.PlayersQuery) -> players_pb2.PlayersAnswer: ...


class PlayersClient:
    """Asks the players service over NATS."""

    def __init__(self, nc: Client, timeout_s: float = 2.0) -> None:
        self._nc = nc
        self._timeout_s = timeout_s

    async def ask(self, query: players_pb2.PlayersQuery) -> players_pb2.PlayersAnswer:
        """The answer to ``query``: never a refusal (an ApiError of its category instead);
        UNAVAILABLE when no answer comes in time."""
        question = query.WhichOneof("query")
        try:
            reply = await self._nc.request(
                subjects.PLAYERS_QUERY, query.SerializeToString(), timeout=self._timeout_s
            )
        except nats.errors.NoRespondersError:
            log.warning("no players service is subscribed", question=question)
            raise ApiError(grpc.StatusCode.UNAVAILABLE, PLAYERS_DOWN) from None
        except nats.errors.TimeoutError:
            log.warning("the players service did not answer in time", question=question)
            raise ApiError(grpc.StatusCode.UNAVAILABLE, PLAYERS_DOWN) from None
        except nats.errors.Error as error:  # closed, reconnecting, draining, ...
            log.warning("request to the players service failed", error=repr(error))
            raise ApiError(grpc.StatusCode.UNAVAILABLE, PLAYERS_DOWN) from None
        return read_answer(reply.data, question)


# The answer each question is answered with.
ANSWERS = {
    "profile": "profile",
    "statistics": "statistics",
    "streak": "streak",
    "leaderboard": "leaderboard",
}


def read_answer(data: bytes, question: str | None) -> players_pb2.PlayersAnswer:
    """The answer in ``data`` to ``question`` (a PlayersQuery member); its refusal as an
    ApiError; INTERNAL for an answer that does not parse or answers another question."""
    try:
        answer = players_pb2.PlayersAnswer.FromString(data)
    except DecodeError:
        raise ApiError(grpc.StatusCode.INTERNAL, _GARBLED) from None
    which = answer.WhichOneof("answer")
    if which == "refusal":
        raise from_refusal(answer.refusal, "the players service", "the question")
    if which is None or which != ANSWERS.get(question or ""):
        log.error("the players service answered another question", question=question, got=which)
        raise ApiError(grpc.StatusCode.INTERNAL, _GARBLED)
    return answer
