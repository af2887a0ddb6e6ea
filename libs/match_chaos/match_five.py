"""The chaos run's MATCH 5 table: three scripted players (no bot plays MATCH 5), each a seat of
its own with its own connection and stream. The host makes a table of three; the other two join
it by its id and the game starts with the last seat. In each round a player writes a link for
every combination (one of two words the combination offers, so some links match and some do
not; never a word of an earlier round, which the rules refuse) and says Done; in the reading it
votes on every ballot of the open combination (contesting one now and then) and says Done.

A command's reply is folded with the stream's events, in number order: an event of the reply
after one the stream has not brought yet waits for it (match_client.following)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from match.v1 import common_pb2, match_five_pb2
from match_bus.clock import Clock
from match_chaos.player import Rpc, TrackedSeat
from match_client.client import Seat
from match_client.match_five import READING, WRITING, MatchFiveTracker
from match_client.session import GameSession

Settings = match_five_pb2.MatchFiveSettings
PLAYERS = 3
ROUNDS = 2
COMBINATIONS = 10
# Two words a combination offers each round; no word comes back in another round.
WORDS = (
    *("Shark", "Whale", "Donut", "Pancake", "Lion", "Tiger", "Violin", "Drum", "Rose", "Tulip"),
    *("Paris", "Rome", "Pirate", "Knight", "Teapot", "Kettle", "Rocket", "Comet", "Snowman"),
    *("Igloo", "Banana", "Mango", "Castle", "Tower", "Dragon", "Unicorn", "Piano", "Flute"),
    *("Owl", "Eagle", "London", "Berlin", "Robot", "Android", "Candle", "Lantern", "Volcano"),
    *("Glacier", "Umbrella", "Raincoat"),
)
CONTEST = 0.1  # how often a player contests another's link


def word(round_: int, combination: int, which: int) -> str:
    return WORDS[((round_ - 1) * COMBINATIONS + combination - 1) * 2 + which]


def settings(rng: random.Random) -> Settings:
    """The server's timers (the sand timer 180 s, each vote 45 s, in game time)."""
    del rng
    return Settings()


class MatchFiveChaosPlayer(TrackedSeat):
    tracker: MatchFiveTracker

    def __init__(
        self,
        addr: str,
        name: str,
        clock: Clock,
        rng: random.Random,
        retry_for_s: float = 90.0,
        call_timeout_s: float = 8.0,
    ) -> None:
        super().__init__(addr, name, clock, rng, retry_for_s, call_timeout_s)
        self.tracker = MatchFiveTracker()
        self.written: set[int] = set()
        self.handled: set[tuple[int, int]] = set()

    def seated(self, seat: Seat) -> None:
        self.tracker = MatchFiveTracker(player=seat.player_id, table_id=seat.table_id)
        self.session = GameSession.of(self.client, "match_five", seat)

    async def host(self, table_settings: Settings) -> Seat:
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "CreateTable",
                lambda rid: self.client.create_table(
                    table_settings, seats=PLAYERS, display_name=self.name, request_id=rid
                ),
            )
        )
        self.seated(seat)
        return seat

    async def join(self, table_id: str) -> Seat:
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "JoinTable",
                lambda rid: self.client.join_table(
                    table_id=table_id, display_name=self.name, request_id=rid
                ),
            )
        )
        self.seated(seat)
        return seat

    async def play_game(self) -> None:
        await self.follow_and_play(self.play)

    async def command(self, name: str, send: Any) -> bool:
        await self.think(300, 1200)
        reply = await self.answered(Rpc(name, send))
        if reply is None:
            return False
        envelopes: list[common_pb2.EventEnvelope] = list(reply.events)
        for envelope in envelopes:
            self.record(envelope)
        for envelope in self.tracker.apply_events(envelopes):
            self.clock.observe(envelope.server_time_ms)
        self.changed.set()
        return True

    async def play(self) -> None:
        t = self.tracker
        while not t.game_over:
            if t.phase == WRITING and t.round not in self.written:
                self.written.add(t.round)
                await self.write_round(t.round)
                continue
            key = (t.round, t.combination)
            if t.phase == READING and t.combination and key not in self.handled:
                self.handled.add(key)
                await self.read(*key)
                continue
            await self.wait_change(0.5)

    async def write_round(self, round_: int) -> None:
        t = self.tracker
        for combination in range(1, COMBINATIONS + 1):
            if t.phase != WRITING or t.round != round_:
                return  # the sand timer ran out
            text = word(round_, combination, self.rng.randrange(2))
            await self.command(
                "WriteLink",
                lambda rid, c=combination, w=text: self.session.send(
                    "WriteLink", request_id=rid, combination=c, text=w
                ),
            )
        if t.phase == WRITING and t.round == round_:
            await self.command("Done", lambda rid: self.session.send("Done", request_id=rid))

    async def read(self, round_: int, combination: int) -> None:
        t = self.tracker

        def open_() -> bool:
            return t.round == round_ and t.combination == combination and not t.game_over

        for ballot in t.to_vote():
            if not open_():
                return
            b = t.ballots.get(ballot)
            mine = b is not None and b.player == t.player
            accept = mine or self.rng.random() >= CONTEST
            await self.command(
                "Vote",
                lambda rid, n=ballot, a=accept: self.session.send(
                    "Vote", request_id=rid, ballot=n, accept=a
                ),
            )
        if open_():
            await self.command("Done", lambda rid: self.session.send("Done", request_id=rid))


async def seat_three(players: list[MatchFiveChaosPlayer], table_settings: Settings) -> None:
    """The first player makes the table, the others join it (in turn: the seats fill in order)."""
    host, *others = players
    seat = await host.host(table_settings)
    for other in others:
        await other.join(seat.table_id)
    await asyncio.sleep(0)


async def play(players: list[MatchFiveChaosPlayer], table_settings: Settings) -> None:
    """MATCH 5: the host makes the table, the others join it, all play it to its end."""
    await seat_three(players, table_settings)
    await asyncio.gather(*(p.play_game() for p in players))
