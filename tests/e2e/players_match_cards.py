"""A scripted Match Cards player for the end-to-end tests: raw gRPC stubs of MatchCardsService
against the real stack.

It knows only what a person at the table knows: what its Watch stream and its replies showed.
It remembers every picture it saw turned (a perfect memory) unless told to forget, takes a group
it knows, and otherwise turns cards it has not seen. Everything it receives is recorded for the
leak check (:func:`check_no_leaks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc

from match.v1 import (
    common_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
    match_cards_pb2,
    match_cards_service_pb2,
    match_cards_service_pb2_grpc,
)

Settings = match_cards_pb2.MatchCardsSettings
View = match_cards_pb2.MatchCardsView


@dataclass
class Seen:
    """This player's own copy, as its stream told it."""

    pictures: dict[int, str] = field(default_factory=dict)  # every picture seen, by card
    found: set[int] = field(default_factory=set)
    up: list[int] = field(default_factory=list)
    size: int = 0
    group: int = 2
    finished: bool = False
    over: bool = False
    last: int = 0
    limit: int = 0  # failed attempts that lose
    failed: int = 0  # this player's failed attempts

    @property
    def done(self) -> bool:
        """This player's board is over: said by the stream, or by the counts already (the
        event that says so may still be on its way: a record's events arrive one by one)."""
        lost = self.limit > 0 and self.failed >= self.limit
        won = self.size > 0 and len(self.found) >= self.size
        return self.finished or self.over or lost or won

    def apply(self, env: common_pb2.EventEnvelope, me: str) -> None:
        self.last = env.event_number
        if not env.HasField("match_cards"):
            return
        event = env.match_cards
        kind = event.WhichOneof("event")
        body = getattr(event, kind)
        if kind == "game_started":
            self.size = body.settings.cards
            self.group = 3 if body.settings.mode == Settings.MODE_TRIPLES else 2
            self.limit = body.limit
        elif kind == "card_turned" and body.player == me:
            self.pictures[body.card] = body.picture
            self.up.append(body.card)
        elif kind == "group_found" and body.player == me:
            self.found.update(body.cards)
            self.up = []
        elif kind == "attempt_failed" and body.player == me:
            self.up = []
            self.failed = body.failed
        elif kind == "player_finished" and body.player == me:
            self.finished = True
        elif kind == "game_ended":
            self.over = True

    def known_group(self) -> list[int] | None:
        by_picture: dict[str, list[int]] = {}
        for card, picture in sorted(self.pictures.items()):
            if card not in self.found:
                by_picture.setdefault(picture, []).append(card)
        return next((cards for cards in by_picture.values() if len(cards) >= self.group), None)

    def unseen(self, besides: tuple[int, ...] = ()) -> int:
        hidden = [c for c in range(1, self.size + 1) if c not in self.found and c not in besides]
        return next((c for c in hidden if c not in self.pictures), hidden[0])


@dataclass
class MCPlayer:
    name: str
    channel: grpc.aio.Channel
    table_id: str = ""
    player_id: str = ""
    token: str = ""
    received: list[Any] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)
    seen: Seen = field(default_factory=Seen)
    _watch: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.game = match_cards_service_pb2_grpc.MatchCardsServiceStub(self.channel)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"), ("x-request-id", uuid.uuid4().hex))

    def _seat(self, reply: Any) -> Any:
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def create(self, seats: int = 1, settings: Settings | None = None) -> Any:
        request = lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_MATCH_CARDS,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name=self.name,
        )
        if settings is not None:
            request.match_cards.CopyFrom(settings)
        return self._seat(await self.lobby.CreateTable(request))

    async def join(self, table_id: str) -> Any:
        return self._seat(
            await self.lobby.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table_id, display_name=self.name)
            )
        )

    async def start(self) -> Any:
        """The host starts an open table: the bot service fills its empty seats."""
        reply = await self.lobby.StartTable(
            lobby_pb2.StartTableRequest(table_id=self.table_id), metadata=self.metadata()
        )
        self.received.append(reply)
        return reply

    async def turn(self, card: int) -> Any:
        reply = await self.game.TurnCard(
            match_cards_service_pb2.TurnCardRequest(table_id=self.table_id, card=card),
            metadata=self.metadata(),
        )
        self.received.append(reply)
        return reply

    async def turn_off_notice(self) -> Any:
        reply = await self.game.TurnOffNotice(
            match_cards_service_pb2.TurnOffNoticeRequest(table_id=self.table_id),
            metadata=self.metadata(),
        )
        self.received.append(reply)
        return reply

    # --- the Watch stream -------------------------------------------------------------------

    def watch(self, after: int = 0) -> None:
        async def run() -> None:
            call = self.game.Watch(
                match_cards_service_pb2.MatchCardsServiceWatchRequest(
                    table_id=self.table_id, after_event_number=after
                ),
                metadata=self.metadata(),
            )
            async for item in call:
                self.stream.append(item)
                self.received.append(item)
                if item.WhichOneof("item") == "event":
                    self.seen.apply(item.event, self.player_id)

        self._watch = asyncio.create_task(run())

    async def stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._watch
            self._watch = None

    def events(self) -> list[Any]:
        return [
            i.event.match_cards
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("match_cards")
        ]

    def snapshots(self) -> list[View]:
        return [i.snapshot for i in self.stream if i.WhichOneof("item") == "snapshot"]

    def found(self, kind: str, **where: Any) -> list[Any]:
        bodies = [getattr(e, kind) for e in self.events() if e.WhichOneof("event") == kind]
        return [b for b in bodies if all(getattr(b, k) == v for k, v in where.items())]

    async def wait_for(self, kind: str, count: int = 1, timeout: float = 60.0, **where: Any) -> Any:
        await self.wait_until(lambda: len(self.found(kind, **where)) >= count, timeout)
        return self.found(kind, **where)[count - 1]

    async def wait_until(self, condition: Any, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name}: the condition never held")

    # --- playing ----------------------------------------------------------------------------

    async def attempt(self, cards: list[int]) -> None:
        """Turn ``cards`` (one attempt) and wait for its outcome on the stream."""
        outcomes = len(self.found("group_found", player=self.player_id)) + len(
            self.found("attempt_failed", player=self.player_id)
        )
        for card in cards:
            await self.turn(card)
        await self.wait_until(
            lambda: (
                len(self.found("group_found", player=self.player_id))
                + len(self.found("attempt_failed", player=self.player_id))
                > outcomes
            )
        )
        await self.wait_until(lambda: not self.seen.up)

    async def play_attempt(self, forgetful: bool = False) -> None:
        """One attempt: a known group (never, if ``forgetful``), else unseen cards, taking the
        known partners of a picture turned."""
        known = None if forgetful else self.seen.known_group()
        if known is not None:
            await self.attempt(known[: self.seen.group])
            return
        outcomes = len(self.found("group_found", player=self.player_id)) + len(
            self.found("attempt_failed", player=self.player_id)
        )
        turned: list[int] = []
        while len(turned) < self.seen.group:
            if turned and not forgetful:
                picture = self.seen.pictures[turned[0]]
                partner = next(
                    (
                        c
                        for c, p in sorted(self.seen.pictures.items())
                        if p == picture and c not in turned and c not in self.seen.found
                    ),
                    None,
                )
            else:
                partner = None
            card = partner if partner is not None else self.seen.unseen(tuple(turned))
            if forgetful and turned:  # a card of another picture, so the attempt fails
                card = next(
                    (
                        c
                        for c in range(1, self.seen.size + 1)
                        if c not in turned
                        and c not in self.seen.found
                        and c in self.seen.pictures
                        and self.seen.pictures[c] != self.seen.pictures[turned[0]]
                    ),
                    card,
                )
            await self.turn(card)
            turned.append(card)
            await self.wait_until(lambda c=card: c in self.seen.pictures)  # type: ignore[misc]
        await self.wait_until(
            lambda: (
                len(self.found("group_found", player=self.player_id))
                + len(self.found("attempt_failed", player=self.player_id))
                > outcomes
            )
        )
        await self.wait_until(lambda: not self.seen.up)

    async def play_to_the_end(self, forgetful: bool = False, timeout: float = 120.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.wait_until(lambda: self.seen.size > 0)
        while not self.seen.done:
            assert loop.time() < deadline, f"{self.name} did not finish in {timeout} s"
            await self.play_attempt(forgetful)

    def faces(self) -> dict[int, str]:
        """Every card's picture this player saw turned (the same card always shows one)."""
        out: dict[int, str] = {}
        for turned in self.found("card_turned", player=self.player_id):
            assert out.setdefault(turned.card, turned.picture) == turned.picture
        return out


def check_no_leaks(player: MCPlayer, deal: list[str] | None = None) -> None:
    """Nothing this player received shows a picture of a hidden card, or any picture of another
    player's copy: a view sends a picture only for a card up or found on the viewer's own copy,
    each one a CardTurned showed it; events of others come as OpponentProgress, no picture."""
    shown: dict[int, str] = {}
    for message in player.received:
        views: list[View] = []
        if isinstance(message, match_cards_service_pb2.MatchCardsServiceWatchResponse):
            if message.WhichOneof("item") == "snapshot":
                views.append(message.snapshot)
            elif message.event.HasField("match_cards"):
                event = message.event.match_cards
                kind = event.WhichOneof("event")
                body = getattr(event, kind)
                if kind in ("card_turned", "group_found", "attempt_failed", "notice_turned_off"):
                    assert body.player == player.player_id, f"{kind} of another player sent"
                if kind == "card_turned":
                    shown[body.card] = body.picture
                    if deal is not None:
                        assert deal[body.card - 1] == body.picture
                if kind == "opponent_progress":
                    assert body.player != player.player_id
        elif isinstance(
            message,
            (
                match_cards_service_pb2.TurnCardResponse,
                match_cards_service_pb2.TurnOffNoticeResponse,
            ),
        ):
            views.append(message.view)
            for env in message.events:
                if env.HasField("match_cards"):
                    event = env.match_cards
                    kind = event.WhichOneof("event")
                    if kind != "opponent_progress" and hasattr(getattr(event, kind), "player"):
                        assert getattr(event, kind).player in ("", player.player_id)
        for view in views:
            if view.you:
                assert view.you == player.player_id
            for card in view.cards:
                if card.state == View.CARD_STATE_DOWN:
                    assert not card.HasField("picture"), f"hidden card {card.card} sent its picture"
                elif card.HasField("picture") and card.card in shown:
                    assert shown[card.card] == card.picture.id
            if view.phase != View.PHASE_GAME_OVER:
                assert not view.code and not view.HasField("seed"), "the code before the end"
