"""Match Cards for the conformance suite (tests/games/harness.py): its tables, moves, refusals and
leak checks."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from match.v1 import match_cards_command_pb2, match_cards_pb2
from match_rules.game import Game, SeatInfo
from tests.games.harness import CountedMoves, Leaks

Settings = match_cards_pb2.MatchCardsSettings
View = match_cards_pb2.MatchCardsView
Command = match_cards_command_pb2.MatchCardsCommand
PRIVATE = {"card_turned", "group_found", "attempt_failed", "notice_turned_off"}


class MatchCardsHarness:
    slug = "match_cards"
    # The seats its seed allows, by hand (docs/rules-*.md): solo, or a challenge table of up to 4.
    seats = (1, 4)
    # A player's moves (groups found plus failed attempts), and the least for a rated game.
    counted_moves: CountedMoves | None = (
        lambda state, p: next(s.groups + s.failed for s in state.standings if s.player == p),
        3,
    )

    def tick_chance(self, state: Any) -> float:
        """Ticks for the compares; the cap (an hour on) only rarely."""
        comparing = any(b.compare_at is not None for b in state.boards.values())
        return 0.5 if comparing else 0.005

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                Settings(),
                Settings(difficulty=Settings.DIFFICULTY_HARD),
                Settings(mode=Settings.MODE_TRIPLES, cards=18, pictures="fruit"),
                Settings(
                    code="MM3-TBHB-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-CXE"
                ),
            ]
        )
        count = rng.randint(game.min_seats, game.max_seats)
        return settings, [SeatInfo(n, f"p{n}", f"P{n}", False) for n in range(1, count + 1)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(players)
        if rng.random() < 0.05:
            return Command(player_id=player, turn_off_notice=Command.TurnOffNotice())
        size = state.size if state.players else 12
        board = state.boards.get(player)
        hidden = [
            n
            for n in range(1, size + 1)
            if board is None or (n not in board.found and n not in board.up)
        ]
        card = rng.choice(hidden) if hidden and rng.random() < 0.9 else rng.randint(0, size + 1)
        return Command(player_id=player, turn_card=Command.TurnCard(card=card))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        size = state.size if state.players else 12

        def turn(player: str, card: int) -> Message:
            return Command(player_id=player, turn_card=Command.TurnCard(card=card))

        out = [turn(players[0], 0), turn(players[0], size + 1), turn("stranger", 1)]
        out.append(Command(player_id=players[0]))
        for player, board in state.boards.items():
            out += [turn(player, card) for card in sorted(board.found)[:2]]
            out += [turn(player, card) for card in board.up]
            if board.compare_at is not None or board.finished_at is not None:
                out.append(turn(player, 1))
            if not board.notice:
                out.append(Command(player_id=player, turn_off_notice=Command.TurnOffNotice()))
        if not state.players or state.phase.value == "over":
            out += [turn(p, n) for p in players for n in (1, size)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            Settings(cards=18),
            Settings(mode=Settings.MODE_TRIPLES, cards=20),
            Settings(pictures="planets"),
            Settings(mode=7),
            Settings(difficulty=9),
            Settings(code="MM3-PAEA"),
            Settings(
                code="MM3-PAEA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-A6E"
            ),
            Settings(code="MM2-PAEA-AAAAAB6"),
            Settings(code="MM9-PAEA-AAAAAB6"),
            Settings(
                code="MM3-PAEA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-A6D",
                cards=20,
            ),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return MatchCardsLeaks(list(deal.cards), viewer)  # type: ignore[attr-defined]


@dataclass
class MatchCardsLeaks:
    """A viewer receives pictures of their own copy only, each for a card they turned, with its
    dealt picture; a snapshot shows a picture only for a card up or found, never a hidden one;
    another player's private events come as their counts."""

    pictures: list[str]
    viewer: str
    turned: set[int] = field(default_factory=set)  # the truth: cards the viewer turned

    def event(self, real: Any, wire: Message) -> None:
        if type(real).__name__ == "CardTurned" and real.player == self.viewer:
            self.turned.add(real.card)
        kind = wire.WhichOneof("event")
        if kind in PRIVATE:
            body = getattr(wire, kind)
            assert body.player == self.viewer, f"{body.player}'s {kind} sent to {self.viewer!r}"
        if kind == "card_turned":
            body = wire.card_turned  # type: ignore[attr-defined]
            assert body.card in self.turned
            assert body.picture == self.pictures[body.card - 1]

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, View)
        for card in view.cards:
            if card.state == View.CARD_STATE_DOWN:
                assert not card.HasField("picture"), f"hidden card {card.card} sent with a picture"
            else:
                assert card.card in self.turned, f"card {card.card} shown but never turned"
                assert card.picture.id == self.pictures[card.card - 1]
        if view.HasField("seed") or view.code:
            assert view.phase == View.PHASE_GAME_OVER, "the seed or code in a live view"


HARNESS = MatchCardsHarness()
