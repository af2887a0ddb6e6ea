"""The chaos run's Match Cards player: a solo table (the game starts at once), or a challenge
table of 2 or 3 seats the host starts, the bot service filling the others, every player on
their own copy of one deal. It plays with a perfect memory of the pictures it saw: a group it
knows, else cards it has not seen (taking a known partner of a picture it just turned)."""

from __future__ import annotations

import random
from typing import Any

from match.v1 import match_cards_pb2
from match_bus.clock import Clock
from match_chaos.player import Rpc, TrackedSeat
from match_client.client import Seat
from match_client.match_cards import FOUND, MatchCardsTracker
from match_client.session import GameSession

Settings = match_cards_pb2.MatchCardsSettings


def settings(rng: random.Random) -> Settings:
    """Pairs of 12 or 20 cards, or triples of 12, Easy: small games, both modes."""
    if rng.random() < 0.5:
        return Settings(mode=Settings.MODE_TRIPLES, cards=12, difficulty=Settings.DIFFICULTY_EASY)
    cards = rng.choice((12, 20))
    return Settings(mode=Settings.MODE_PAIRS, cards=cards, difficulty=Settings.DIFFICULTY_EASY)


class MatchCardsChaosPlayer(TrackedSeat):
    tracker: MatchCardsTracker

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
        self.tracker = MatchCardsTracker()

    async def play_game(self, seats: int, table_settings: Settings | None = None) -> None:
        """Create an open table of ``seats`` (1: solo), start it if it waits for others, play
        the player's copy to its end and follow the table until its seed is out."""
        await self.sign_in()
        seat = await self.retried(
            Rpc(
                "CreateTable",
                lambda rid: self.client.create_table(
                    table_settings or Settings(),
                    seats=seats,
                    display_name=self.name,
                    request_id=rid,
                ),
            )
        )
        self.tracker = MatchCardsTracker(player=seat.player_id, table_id=seat.table_id)
        self.session = GameSession.of(self.client, "match_cards", seat)
        await self.follow_and_play(lambda: self._start_and_play(seat, seats))

    async def _start_and_play(self, seat: Seat, seats: int) -> None:
        if seats > 1:  # a challenge table: the bots take the other seats
            table = await self.retried(
                Rpc(
                    "StartTable",
                    lambda rid: self.client.start_table(seat.table_id, seat.token, request_id=rid),
                )
            )
            self.tracker.note_table(table)
        t = self.tracker
        while not t.game_over:
            if t.started and not t.me.finished and not t.up:
                await self.attempt()
                continue
            await self.wait_change(0.5)

    def next_card(self, turned: list[int]) -> int | None:
        t = self.tracker
        if turned:
            picture = t.seen.get(turned[0])
            partner = next(
                (
                    n
                    for n, p in sorted(t.seen.items())
                    if p == picture and n not in turned and t.cards[n].state != FOUND
                ),
                None,
            )
            if partner is not None:
                return partner
        choices: list[int] = t.unseen(besides=turned) or [
            n for n, c in sorted(t.cards.items()) if c.state != FOUND and n not in turned
        ]
        return self.rng.choice(choices) if choices else None

    def turning(self, card: int) -> Rpc[Any]:
        return Rpc("TurnCard", lambda rid: self.session.send("TurnCard", request_id=rid, card=card))

    async def attempt(self) -> None:
        """One attempt: a whole group it knows, else card by card; then wait for its outcome
        (the table compares the cards a moment after the last)."""
        t = self.tracker
        known = t.known_group()
        turned: list[int] = []
        while len(turned) < t.group and not t.game_over and not t.me.finished:
            card: int | None = known[len(turned)] if known else self.next_card(turned)
            if card is None:  # every group found: the player's end is on its way
                await self.wait_change(0.5)
                return
            await self.think(300, 1200)
            reply = await self.answered(self.turning(card))
            if reply is None:  # refused (or given up): look again after the stream's news
                await self.wait_change(0.5)
                return
            self.take(list(reply.events))
            turned.append(card)
        while t.up and not t.game_over and not t.me.finished:
            await self.wait_change(0.5)
