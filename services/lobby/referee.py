"""The referee, as the lobby reaches it: NATS request/reply, one subject per table, under the
table's partition (``subjects.partition_of``; the referee holding that partition's lease
answers it):

``match.referee.p<NN>.table.<table_id>``: TableCommand -> TableCommandReply;
``match.referee.p<NN>.<slug>.<table_id>``: a game's ``command_message`` -> its ``reply_message``
(the game's slug, match_rules.game: ``race``, ``concentration``).

A refusal becomes an ApiError with the refusal's status, message and slug. "No responders" (no
referee holds the partition: one is starting, or taking over from a dead one) means nobody got
the command, so it is offered again for up to ``no_responders_wait_s``, longer than a failover.
A referee that got it but did not answer in time becomes UNAVAILABLE with the request id: the
command may have been applied, and the referee answers a retry with the same id with the first
answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc  # type: ignore[import-untyped]
import nats.errors
import structlog
from google.protobuf.message import DecodeError, Message
from nats.aio.client import Client

from match.v1 import referee_pb2
from match_bus import subjects
from match_bus.service import give_up_headers
from match_rules.game import Game
from services.lobby.errors import REFEREE_DOWN, ApiError, from_refusal, referee_silent

log = structlog.get_logger()
_GARBLED = "the referee's answer could not be read; try again"
FIRST_PAUSE_S = 0.05
MAX_PAUSE_S = 0.5  # while waiting out a failover: a new referee is found within half a second


class Referee:
    def __init__(
        self, nc: Client, timeout_s: float = 5.0, no_responders_wait_s: float = 10.0
    ) -> None:
        self._nc = nc
        self._timeout_s = timeout_s
        self._no_responders_wait_s = no_responders_wait_s

    async def _request(self, subject: str, data: bytes, request_id: str) -> bytes:
        """The reply's bytes. "No responders" means nobody received the request, so it is safe
        to ask again: until a referee holds the partition, for up to ``no_responders_wait_s``.
        A timeout is not retried here: the referee may have decided the command; the caller is
        told to retry with the same request id."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self._no_responders_wait_s
        pause = FIRST_PAUSE_S
        while True:
            try:
                reply = await self._nc.request(
                    subject, data, timeout=self._timeout_s, headers=give_up_headers(self._timeout_s)
                )
            except nats.errors.NoRespondersError:
                remaining = give_up - loop.time()
                if remaining <= 0:
                    log.warning("no referee is subscribed", subject=subject)
                    raise ApiError(grpc.StatusCode.UNAVAILABLE, REFEREE_DOWN) from None
                await asyncio.sleep(min(pause, remaining))  # and a last try at the end
                pause = min(pause * 2, MAX_PAUSE_S)
                continue
            except nats.errors.TimeoutError:
                log.warning("the referee did not answer in time", subject=subject)
                raise referee_silent(request_id) from None
            except nats.errors.Error as error:  # closed, reconnecting, draining, ...
                log.warning("request to the referee failed", subject=subject, error=repr(error))
                raise referee_silent(request_id, "the lobby lost its link to the referee") from None
            return reply.data

    async def table(
        self, command: referee_pb2.TableCommand
    ) -> referee_pb2.TableCommandReply.Accepted:
        subject = subjects.referee_table(command.table_id)
        reply = await self._call(
            subject, command, command.request_id, referee_pb2.TableCommandReply
        )
        accepted: referee_pb2.TableCommandReply.Accepted = reply.accepted
        return accepted

    async def game(self, game: Game, command: Any) -> Any:
        """A player's command of ``game`` (its ``command_message``): the reply's Accepted."""
        subject = subjects.referee_game(game.slug, command.table_id)
        reply = await self._call(subject, command, command.request_id, game.reply_message)
        return reply.accepted

    async def _call(
        self, subject: str, command: Message, request_id: str, reply_type: type[Message]
    ) -> Any:
        """One command to the referee: its accepted reply, or its refusal as an ApiError."""
        data = await self._request(subject, command.SerializeToString(), request_id)
        try:
            reply: Any = reply_type.FromString(data)
        except DecodeError:
            raise ApiError(grpc.StatusCode.INTERNAL, _GARBLED) from None
        which = reply.WhichOneof("result")
        if which == "refusal":
            raise from_refusal(reply.refusal)
        if which != "accepted":
            log.error("the referee answered with nothing", subject=subject)
            raise ApiError(grpc.StatusCode.INTERNAL, _GARBLED)
        return reply
