"""A scripted Concentration player for the end-to-end tests: real gRPC against the real stack.

It knows only what a person at the table knows: what its Watch stream showed. It remembers every
face it saw flipped (a perfect memory), takes a pair it knows, and otherwise flips a card it has
not seen. Everything it receives is recorded for the leak check (:func:`check_no_leaks`).
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
    concentration_pb2,
    concentration_service_pb2,
    concentration_service_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
)
from match_rules.concentration.settings import Matching, pair

Settings = concentration_pb2.ConcentrationSettings
Event = concentration_pb2.ConcentrationEvent
View = concentration_pb2.ConcentrationView


def refusal_code(error: grpc.aio.AioRpcError) -> str | None:
    return next(
        (str(v) for k, v in error.trailing_metadata() or () if k == "match-refusal-code"), None
    )


@dataclass
class Seen:
    """The table as this player's stream told it."""

    faces: dict[int, str] = field(default_factory=dict)  # every face seen, by card
    taken: set[int] = field(default_factory=set)
    up: list[int] = field(default_factory=list)
    turn: str = ""
    paused: bool = False  # a miss is showing
    size: int = 0
    over: bool = False
    last: int = 0  # the last event number
    matching: Matching = Matching.IDENTICAL

    def pairs(self, a: str, b: str) -> bool:
        """Whether two faces pair at this table (the rules are public)."""
        return pair(a, b, self.matching)

    def apply(self, env: common_pb2.EventEnvelope) -> None:
        self.last = env.event_number
        if not env.HasField("concentration"):
            return
        event = env.concentration
        kind = event.WhichOneof("event")
        body = getattr(event, kind)
        if kind == "game_started":
            size = body.settings.cards or 52
            self.size = size + (2 if body.settings.jokers else 0)
            wire = Settings.Matching.Name(body.settings.matching).removeprefix("MATCHING_")
            self.matching = Matching.IDENTICAL if wire == "UNSPECIFIED" else Matching[wire]
        elif kind == "turn_began":
            self.turn, self.up, self.paused = body.player, [], False
        elif kind == "card_flipped":
            self.faces[body.card] = body.face
            self.up.append(body.card)
        elif kind == "pair_taken":
            self.taken.update(body.cards)
            self.up = []
        elif kind == "attempt_missed":
            self.paused = True
        elif kind in ("cards_turned_down", "time_ran_out"):
            self.up = []
        elif kind == "game_ended":
            self.over = True

    def known_pair(self) -> tuple[int, int] | None:
        loose = sorted((c, f) for c, f in self.faces.items() if c not in self.taken)
        for i, (a, face_a) in enumerate(loose):
            for b, face_b in loose[i + 1 :]:
                if self.pairs(face_a, face_b):
                    return a, b
        return None

    def unknown(self, besides: int = 0) -> int:
        for card in range(1, self.size + 1):
            if card not in self.faces and card not in self.taken and card != besides:
                return card
        # Everything seen: any face-down card not taken.
        return next(c for c in range(1, self.size + 1) if c not in self.taken and c != besides)


@dataclass
class CPlayer:
    name: str
    channel: grpc.aio.Channel
    table_id: str = ""
    player_id: str = ""
    token: str = ""
    received: list[Any] = field(default_factory=list)
    stream: list[Any] = field(default_factory=list)
    seen: Seen = field(default_factory=Seen)
    session: str = ""  # a player key's session token (SignIn): the seat is that key's
    _watch: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self.channel)
        self.game = concentration_service_pb2_grpc.ConcentrationServiceStub(self.channel)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"), ("x-request-id", uuid.uuid4().hex))

    def as_player(self) -> tuple[tuple[str, str], ...]:
        """CreateTable's and JoinTable's metadata: the session, for a player with a key."""
        return (("authorization", f"Bearer {self.session}"),) if self.session else ()

    async def create(self, seats: int, settings: Settings | None = None) -> Any:
        request = lobby_pb2.CreateTableRequest(
            game_kind=common_pb2.GAME_KIND_CONCENTRATION,
            seats=seats,
            visibility=common_pb2.VISIBILITY_OPEN,
            display_name=self.name,
        )
        if settings is not None:
            request.concentration.CopyFrom(settings)
        reply = await self.lobby.CreateTable(request, metadata=self.as_player())
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def join(self, table_id: str) -> Any:
        reply = await self.lobby.JoinTable(
            lobby_pb2.JoinTableRequest(table_id=table_id, display_name=self.name),
            metadata=self.as_player(),
        )
        self.received.append(reply)
        self.table_id, self.player_id, self.token = (
            reply.table_id,
            reply.player_id,
            reply.player_token,
        )
        return reply

    async def start_table(self) -> None:
        self.received.append(
            await self.lobby.StartTable(
                lobby_pb2.StartTableRequest(table_id=self.table_id), metadata=self.metadata()
            )
        )

    async def flip(self, card: int) -> Any:
        reply = await self.game.FlipCard(
            concentration_service_pb2.FlipCardRequest(table_id=self.table_id, card=card),
            metadata=self.metadata(),
        )
        self.received.append(reply)
        return reply

    # --- the Watch stream -------------------------------------------------------------------

    def watch(self, after: int = 0) -> None:
        async def run() -> None:
            call = self.game.Watch(
                concentration_service_pb2.ConcentrationServiceWatchRequest(
                    table_id=self.table_id, after_event_number=after
                ),
                metadata=self.metadata(),
            )
            async for item in call:
                self.stream.append(item)
                self.received.append(item)
                if item.WhichOneof("item") == "event":
                    self.seen.apply(item.event)

        self._watch = asyncio.create_task(run())

    async def stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self._watch
            self._watch = None

    def events(self) -> list[Any]:
        return [
            i.event.concentration
            for i in self.stream
            if i.WhichOneof("item") == "event" and i.event.HasField("concentration")
        ]

    def snapshots(self) -> list[View]:
        return [i.snapshot for i in self.stream if i.WhichOneof("item") == "snapshot"]

    def found(self, kind: str, **where: Any) -> list[Any]:
        bodies = [getattr(e, kind) for e in self.events() if e.WhichOneof("event") == kind]
        return [b for b in bodies if all(getattr(b, k) == v for k, v in where.items())]

    async def wait_for(self, kind: str, count: int = 1, timeout: float = 60.0, **where: Any) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            found = self.found(kind, **where)
            if len(found) >= count:
                return found[count - 1]
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name} never saw {kind} #{count} {where}")

    async def wait_until(self, condition: Any, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{self.name}: the condition never held")

    # --- playing ----------------------------------------------------------------------------

    async def my_turn(self, timeout: float = 60.0) -> bool:
        """Wait until this player may begin an attempt: their turn, no card up, no miss showing
        (False: the game ended). A reply's events reach the stream one by one, so "no card up" is
        what tells that the last attempt's outcome has arrived."""
        seen = self.seen
        await self.wait_until(
            lambda: (
                seen.over
                or (
                    seen.turn == self.player_id
                    and not seen.paused
                    and not seen.up
                    and len(seen.taken) < seen.size
                )
            ),
            timeout,
        )
        return not self.seen.over

    async def flip_seen(self, card: int) -> Any:
        """Flip ``card`` and wait until the stream shows it."""
        before = self.seen.last
        reply = await self.flip(card)
        await self.wait_until(lambda: self.seen.last >= before + 1 and card in self.seen.faces)
        return reply

    async def play_turn(self) -> None:
        """One attempt, with a perfect memory: a known pair, else unknown cards."""
        pair = self.seen.known_pair()
        if pair is not None:
            await self.flip_seen(pair[0])
            await self.flip_seen(pair[1])
            return
        first = self.seen.unknown()
        await self.flip_seen(first)
        face = self.seen.faces[first]
        partner = next(
            (
                c
                for c, f in self.seen.faces.items()
                if c != first and c not in self.seen.taken and self.seen.pairs(face, f)
            ),
            None,
        )
        await self.flip_seen(partner if partner is not None else self.seen.unknown(besides=first))

    async def play_to_the_end(self, timeout: float = 120.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while await self.my_turn(max(1.0, deadline - loop.time())):
            await self.play_turn()
            # Wait for the attempt's outcome before looking again.
            await self.wait_until(lambda: not self.seen.up or self.seen.paused or self.seen.over)


def check_no_leaks(player: CPlayer) -> None:
    """No message this player received shows the face of a card face down at that moment: a
    view (a snapshot, a flip's reply) sends no face for a face-down card, and an up or taken
    card's face is one a CardFlipped already showed (on this stream, or before it began)."""
    shown: dict[int, str] = {}
    for message in player.received:
        views: list[View] = []
        if isinstance(message, concentration_service_pb2.ConcentrationServiceWatchResponse):
            if message.WhichOneof("item") == "snapshot":
                views.append(message.snapshot)
            elif message.event.HasField("concentration"):
                event = message.event.concentration
                if event.WhichOneof("event") == "card_flipped":
                    shown[event.card_flipped.card] = event.card_flipped.face
        elif isinstance(message, concentration_service_pb2.FlipCardResponse):
            views.append(message.view)
        for view in views:
            for card in view.cards:
                if card.state == View.CARD_STATE_DOWN:
                    assert card.face == "", f"face-down card {card.card} sent with its face"
                else:
                    assert card.face, f"card {card.card} is up or taken but shows no face"
                    if card.card in shown:
                        assert shown[card.card] == card.face
