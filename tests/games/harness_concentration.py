"""Concentration for the conformance suite (tests/games/harness.py): its tables, moves, refusals and
leak checks."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from match.v1 import concentration_command_pb2, concentration_pb2
from match_rules.game import Game, SeatInfo
from tests.games.harness import CountedMoves, Leaks

Settings = concentration_pb2.ConcentrationSettings
View = concentration_pb2.ConcentrationView
Command = concentration_command_pb2.ConcentrationCommand


class ConcentrationHarness:
    slug = "concentration"
    # The seats its seed allows, by hand (docs/rules-*.md): Concentration is for 1 to 6 players.
    seats = (1, 6)
    # A player's moves (tries), and the least its rules page names for a rated game.
    counted_moves: CountedMoves | None = (
        lambda state, p: state.tries.get(p, 0),
        3,
    )

    def tick_chance(self, state: Any) -> float:
        return 0.3

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                Settings(cards=24),
                Settings(cards=24, turn_limit_ms=30_000),
                Settings(pictures=Settings.PICTURES_PLAYING_CARDS, cards=24, jokers=True,
                          matching=Settings.MATCHING_RANK),
                Settings(pictures=Settings.PICTURES_PLAYING_CARDS, cards=36,
                          matching=Settings.MATCHING_RANK_AND_COLOUR),
            ]
        )  # fmt: skip
        count = rng.randint(game.min_seats, game.max_seats)
        seats = [SeatInfo(n, f"p{n}", f"P{n}", n > 1 and rng.random() < 0.5)
                 for n in range(1, count + 1)]  # fmt: skip
        return settings, seats

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        size = state.size if state.players else 24
        down = [n for n in range(1, size + 1) if n not in state.taken and n not in state.up]
        player = state.turn if state.turn and rng.random() < 0.85 else rng.choice(players)
        card = rng.choice(down) if down and rng.random() < 0.9 else rng.randint(0, size + 1)
        return Command(player_id=player, flip_card=Command.FlipCard(card=card))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        size = state.size if state.players else 24
        turn = state.turn or players[0]

        def flip(player: str, card: int) -> Message:
            return Command(player_id=player, flip_card=Command.FlipCard(card=card))

        out = [flip(turn, 0), flip(turn, size + 1), flip("stranger", 1), Command(player_id=turn)]
        out += [flip(p, 1) for p in players if p != turn and len(players) > 1]  # not their turn
        out += [flip(turn, card) for card in sorted(state.taken)[:2]]
        out += [flip(turn, card) for card in state.up]
        out += [flip(p, 1) for p in sorted(state.cpus)]
        if state.turn is None:  # before or after the game: nothing is flipped
            out += [flip(p, n) for p in players for n in (1, size)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            Settings(cards=40),
            Settings(jokers=True),
            Settings(matching=Settings.MATCHING_RANK),
            Settings(turn_limit_ms=45_000),
            Settings(pictures=7),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return ConcentrationLeaks(list(deal.cards))  # type: ignore[attr-defined]


@dataclass
class ConcentrationLeaks:
    """Everything at the table is public, but no face of a card nobody flipped: a received flip
    shows a card that was flipped, with its dealt face; a snapshot shows a face only for a card
    up or taken (so flipped), never for one face down."""

    faces: list[str]
    flipped: set[int] = field(default_factory=set)  # the truth: cards flipped at the table

    def event(self, real: Any, wire: Message) -> None:
        if type(real).__name__ == "CardFlipped":
            self.flipped.add(real.card)
        kind = wire.WhichOneof("event")
        if kind == "card_flipped":
            body = wire.card_flipped  # type: ignore[attr-defined]
            assert body.card in self.flipped, f"card {body.card} shown but never flipped"
            assert body.face == self.faces[body.card - 1]

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, View)
        for card in view.cards:
            if card.state == View.CARD_STATE_DOWN:
                assert card.face == "", f"face-down card {card.card} sent with its face"
            else:
                assert card.card in self.flipped, f"card {card.card} shown but never flipped"
                assert card.face == self.faces[card.card - 1]
        if view.HasField("seed"):
            assert view.phase == View.PHASE_GAME_OVER, "the seed in a live view"


HARNESS = ConcentrationHarness()
