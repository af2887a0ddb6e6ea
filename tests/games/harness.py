"""What the conformance suite needs to know of each game: how to make a table, a plausible move,
moves that must be refused, settings that must be refused, and what a player may see.

Everything else in tests/games/ is generic: it drives a game only through
:class:`match_rules.game.Game`. A registered game without a harness here fails the suite.

:func:`play` is a random game through the seam: a seeded ``random.Random`` picks moves, waits,
timers and presence changes; every accepted command is kept, so the same game can be replayed
elsewhere (tests/games/replay.py, in a fresh interpreter).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.protobuf.message import Message

from match.v1 import (
    concentration_command_pb2,
    concentration_pb2,
    match_cards_command_pb2,
    match_cards_pb2,
    match_five_command_pb2,
    match_five_pb2,
    number_match_command_pb2,
    number_match_pb2,
    race_command_pb2,
    race_pb2,
    views_pb2,
)
from match_rules.errors import RuleError
from match_rules.game import Game, SeatInfo

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in unix ms


class Leaks(Protocol):
    """One viewer's leak check: fed every event as that viewer receives it (with the true,
    unredacted event beside it) and every snapshot they are sent; asserts on a leak."""

    def event(self, real: Any, wire: Message) -> None: ...

    def snapshot(self, view: Message) -> None: ...


class Harness(Protocol):
    slug: str

    def tick_chance(self, state: Any) -> float:
        """How often the random game lets time run to the next deadline, in ``state``."""
        ...

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        """Settings (None: the defaults) and the seats of a random table."""
        ...

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        """A wire command a player might send now (it may well be refused)."""
        ...

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        """Wire commands the rules must refuse in ``state``, stamped at the state's clock."""
        ...

    def bad_settings(self) -> list[Message]:
        """Settings that make no game."""
        ...

    def leaks(self, deal: Message, viewer: str) -> Leaks: ...


# --- Concentration -------------------------------------------------------------------------------

CSettings = concentration_pb2.ConcentrationSettings
CView = concentration_pb2.ConcentrationView
CCommand = concentration_command_pb2.ConcentrationCommand


class ConcentrationHarness:
    slug = "concentration"

    def tick_chance(self, state: Any) -> float:
        return 0.3

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                CSettings(cards=24),
                CSettings(cards=24, turn_limit_ms=30_000),
                CSettings(pictures=CSettings.PICTURES_PLAYING_CARDS, cards=24, jokers=True,
                          matching=CSettings.MATCHING_RANK),
                CSettings(pictures=CSettings.PICTURES_PLAYING_CARDS, cards=36,
                          matching=CSettings.MATCHING_RANK_AND_COLOUR),
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
        return CCommand(player_id=player, flip_card=CCommand.FlipCard(card=card))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        size = state.size if state.players else 24
        turn = state.turn or players[0]

        def flip(player: str, card: int) -> Message:
            return CCommand(player_id=player, flip_card=CCommand.FlipCard(card=card))

        out = [flip(turn, 0), flip(turn, size + 1), flip("stranger", 1), CCommand(player_id=turn)]
        out += [flip(p, 1) for p in players if p != turn and len(players) > 1]  # not their turn
        out += [flip(turn, card) for card in sorted(state.taken)[:2]]
        out += [flip(turn, card) for card in state.up]
        out += [flip(p, 1) for p in sorted(state.cpus)]
        if state.turn is None:  # before or after the game: nothing is flipped
            out += [flip(p, n) for p in players for n in (1, size)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            CSettings(cards=40),
            CSettings(jokers=True),
            CSettings(matching=CSettings.MATCHING_RANK),
            CSettings(turn_limit_ms=45_000),
            CSettings(pictures=7),
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
        assert isinstance(view, CView)
        for card in view.cards:
            if card.state == CView.CARD_STATE_DOWN:
                assert card.face == "", f"face-down card {card.card} sent with its face"
            else:
                assert card.card in self.flipped, f"card {card.card} shown but never flipped"
                assert card.face == self.faces[card.card - 1]
        if view.HasField("seed"):
            assert view.phase == CView.PHASE_GAME_OVER, "the seed in a live view"


# --- the race --------------------------------------------------------------------------------

RCommand = race_command_pb2.RaceCommand
RView = views_pb2.RaceView
RACE_PRIVATE = {"tile_turned", "pair_found", "attempt_missed", "tiles_turned_down", "hint_given"}


class RaceHarness:
    slug = "race"

    def tick_chance(self, state: Any) -> float:
        return {"playing": 0.01, "ready": 0.05}.get(state.phase.value, 0.3)  # a cap ends a board

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        count = rng.randint(game.min_seats, game.max_seats)
        seats = [SeatInfo(n, f"p{n}", f"P{n}", n > 1 and rng.random() < 0.5)
                 for n in range(1, count + 1)]  # fmt: skip
        settings = rng.choice([None, race_pb2.RaceSettings(ready_window_ms=10_000)])
        return settings, seats

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(list(state.remaining) or players)
        r = rng.random()
        if r < 0.2 or (state.phase.value == "ready" and r < 0.9):
            return RCommand(player_id=player, press_ready=RCommand.PressReady())
        if r < 0.25:
            return RCommand(player_id=player, request_hint=RCommand.RequestHint())
        if r < 0.252:
            return RCommand(player_id=player, resign=RCommand.Resign())
        return RCommand(player_id=player, turn_tile=RCommand.TurnTile(tile=rng.randint(0, 21)))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        me = players[0]
        return [
            RCommand(player_id=me, turn_tile=RCommand.TurnTile(tile=0)),
            RCommand(player_id=me, turn_tile=RCommand.TurnTile(tile=21)),
            RCommand(player_id="stranger", turn_tile=RCommand.TurnTile(tile=1)),
            RCommand(player_id="stranger", press_ready=RCommand.PressReady()),
            RCommand(player_id=me, start_game=RCommand.StartGame()),
            RCommand(player_id=me),
        ]

    def bad_settings(self) -> list[Message]:
        return [
            race_pb2.RaceSettings(ready_window_ms=5),
            race_pb2.RaceSettings(ready_window_ms=10_000, hints_per_board=11),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return RaceLeaks(viewer)


@dataclass
class RaceLeaks:
    """tests/e2e/leaks.py at the level of the pure views: another player's private event never
    reaches a viewer; a snapshot shows a symbol only on a tile the viewer turned; an opponent's
    view has no tiles; the seed only once the game is over."""

    me: str
    turned: set[tuple[int, int, int]] = field(default_factory=set)

    def event(self, real: Any, wire: Message) -> None:
        kind = wire.WhichOneof("event")
        assert kind is not None
        body = getattr(wire, kind)
        if kind in RACE_PRIVATE:
            assert body.player == self.me, f"{self.me!r} received {kind} of {body.player}"
        if kind == "tile_turned":
            self.turned.add((body.board, body.tile, body.symbol))

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, RView)
        for tile in view.tiles:
            if tile.HasField("symbol"):
                assert (view.board, tile.tile, tile.symbol) in self.turned, (
                    f"{self.me!r}'s snapshot shows tile {tile.tile}, never turned by them"
                )
        if view.HasField("seed"):
            assert view.phase == RView.PHASE_GAME_OVER, "the seed in a live view"
        for opponent in view.opponents:
            assert not {f.name for f, _ in opponent.ListFields()} & {"tiles", "symbol"}


# --- Match Cards -----------------------------------------------------------------------------

MSettings = match_cards_pb2.MatchCardsSettings
MView = match_cards_pb2.MatchCardsView
MCommand = match_cards_command_pb2.MatchCardsCommand
MATCH_CARDS_PRIVATE = {"card_turned", "group_found", "attempt_failed", "notice_turned_off"}


class MatchCardsHarness:
    slug = "match_cards"

    def tick_chance(self, state: Any) -> float:
        """Ticks for the compares; the cap (an hour on) only rarely."""
        comparing = any(b.compare_at is not None for b in state.boards.values())
        return 0.5 if comparing else 0.005

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                MSettings(),
                MSettings(difficulty=MSettings.DIFFICULTY_HARD),
                MSettings(mode=MSettings.MODE_TRIPLES, cards=18, pictures="fruit"),
                MSettings(
                    code="MM3-TBHB-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-CXE"
                ),
            ]
        )
        count = rng.randint(game.min_seats, game.max_seats)
        return settings, [SeatInfo(n, f"p{n}", f"P{n}", False) for n in range(1, count + 1)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(players)
        if rng.random() < 0.05:
            return MCommand(player_id=player, turn_off_notice=MCommand.TurnOffNotice())
        size = state.size if state.players else 12
        board = state.boards.get(player)
        hidden = [
            n
            for n in range(1, size + 1)
            if board is None or (n not in board.found and n not in board.up)
        ]
        card = rng.choice(hidden) if hidden and rng.random() < 0.9 else rng.randint(0, size + 1)
        return MCommand(player_id=player, turn_card=MCommand.TurnCard(card=card))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        size = state.size if state.players else 12

        def turn(player: str, card: int) -> Message:
            return MCommand(player_id=player, turn_card=MCommand.TurnCard(card=card))

        out = [turn(players[0], 0), turn(players[0], size + 1), turn("stranger", 1)]
        out.append(MCommand(player_id=players[0]))
        for player, board in state.boards.items():
            out += [turn(player, card) for card in sorted(board.found)[:2]]
            out += [turn(player, card) for card in board.up]
            if board.compare_at is not None or board.finished_at is not None:
                out.append(turn(player, 1))
            if not board.notice:
                out.append(MCommand(player_id=player, turn_off_notice=MCommand.TurnOffNotice()))
        if not state.players or state.phase.value == "over":
            out += [turn(p, n) for p in players for n in (1, size)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            MSettings(cards=18),
            MSettings(mode=MSettings.MODE_TRIPLES, cards=20),
            MSettings(pictures="planets"),
            MSettings(mode=7),
            MSettings(difficulty=9),
            MSettings(code="MM3-PAEA"),
            MSettings(
                code="MM3-PAEA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA-A6E"
            ),
            MSettings(code="MM2-PAEA-AAAAAB6"),
            MSettings(code="MM9-PAEA-AAAAAB6"),
            MSettings(
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
        if kind in MATCH_CARDS_PRIVATE:
            body = getattr(wire, kind)
            assert body.player == self.viewer, f"{body.player}'s {kind} sent to {self.viewer!r}"
        if kind == "card_turned":
            body = wire.card_turned  # type: ignore[attr-defined]
            assert body.card in self.turned
            assert body.picture == self.pictures[body.card - 1]

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, MView)
        for card in view.cards:
            if card.state == MView.CARD_STATE_DOWN:
                assert not card.HasField("picture"), f"hidden card {card.card} sent with a picture"
            else:
                assert card.card in self.turned, f"card {card.card} shown but never turned"
                assert card.picture.id == self.pictures[card.card - 1]
        if view.HasField("seed") or view.code:
            assert view.phase == MView.PHASE_GAME_OVER, "the seed or code in a live view"


NSettings = number_match_pb2.NumberMatchSettings
NView = number_match_pb2.NumberMatchView
NCommand = number_match_command_pb2.NumberMatchCommand


class NumberMatchHarness:
    slug = "number_match"

    def tick_chance(self, state: Any) -> float:
        """The idle limit (30 minutes on) only rarely."""
        return 0.003

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice(
            [
                NSettings(),
                NSettings(level=NSettings.LEVEL_MEDIUM),
                NSettings(level=NSettings.LEVEL_EXPERT),
                NSettings(level=NSettings.LEVEL_CLASSIC),
                NSettings(level=NSettings.LEVEL_HARD, replay_seed=bytes(range(32))),
                NSettings(daily_date="2026-01-01"),  # T0's date at UTC
            ]
        )
        return settings, [SeatInfo(1, "p1", "P1", False)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        from match_rules.number_match import board as boards

        player = players[0] if rng.random() < 0.97 else "stranger"
        r = rng.random()
        if r < 0.05:
            return NCommand(player_id=player, add_numbers=NCommand.AddNumbers())
        if r < 0.09:
            return NCommand(player_id=player, ask_hint=NCommand.AskHint())
        if r < 0.15:
            return NCommand(player_id=player, undo=NCommand.Undo())
        if r < 0.153:
            return NCommand(player_id=player, end_game=NCommand.EndGame())
        pairs = boards.pair_moves(state.board) if state.board else []
        if pairs and rng.random() < 0.85:
            i, j = rng.choice(pairs)
            first, second = (i + 1, j + 1) if rng.random() < 0.5 else (j + 1, i + 1)
        else:
            size = max(len(state.board), 1)
            first, second = rng.randint(0, size + 1), rng.randint(0, size + 1)
        return NCommand(player_id=player, pair_cells=NCommand.PairCells(first=first, second=second))

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        from match_rules.number_match import board as boards

        me = players[0]

        def pair(first: int, second: int, player: str = me) -> Message:
            return NCommand(
                player_id=player, pair_cells=NCommand.PairCells(first=first, second=second)
            )

        size = len(state.board)
        out = [pair(0, 1), pair(1, size + 1), pair(1, 1), pair(1, 2, "stranger")]
        out.append(NCommand(player_id=me))
        legal = set(boards.pair_moves(state.board)) if state.board else set()
        cells = [k for k, n in enumerate(state.board) if n]
        empty = [k for k, n in enumerate(state.board) if not n]
        if empty and cells:
            out.append(pair(empty[0] + 1, cells[0] + 1))
        for i in cells[:6]:
            for j in cells[:12]:
                if i < j and (i, j) not in legal:
                    out.append(pair(i + 1, j + 1))
        if state.additions_left == 0:
            out.append(NCommand(player_id=me, add_numbers=NCommand.AddNumbers()))
        if state.hints_left == 0:
            out.append(NCommand(player_id=me, ask_hint=NCommand.AskHint()))
        if not state.history:
            out.append(NCommand(player_id=me, undo=NCommand.Undo()))
        if state.phase.value == "over":
            out += [
                NCommand(player_id=me, undo=NCommand.Undo()),
                NCommand(player_id=me, end_game=NCommand.EndGame()),
                NCommand(player_id=me, add_numbers=NCommand.AddNumbers()),
            ]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            NSettings(level=9),
            NSettings(daily_date="2026-13-01"),
            NSettings(daily_date="1 Dec 2026"),
            NSettings(daily_date="2026-12-01", level=NSettings.LEVEL_EASY),
            NSettings(daily_date="2026-12-01", utc_offset_minutes=900),
            NSettings(utc_offset_minutes=60),
            NSettings(replay_seed=b"short"),
            NSettings(level=NSettings.LEVEL_CLASSIC, replay_seed=bytes(32)),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return NumberMatchLeaks(viewer)


@dataclass
class NumberMatchLeaks:
    """The board is the player's own, whole; what the rules hide is the witness (a complete
    solution) until the game is over: no event but GameOver carries it, and a view shows it
    only once over. A spectator (no seat) is refused by the shells; nothing here is theirs."""

    viewer: str
    over: bool = False

    def event(self, real: Any, wire: Message) -> None:
        if wire.WhichOneof("event") == "game_over":
            self.over = True

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, NView)
        if view.phase != NView.PHASE_GAME_OVER:
            assert not view.witness, "the witness in a live view"
            assert not view.HasField("seed"), "the seed in a live view"


# --- MATCH 5 -------------------------------------------------------------------------------------

FSettings = match_five_pb2.MatchFiveSettings
FView = match_five_pb2.MatchFiveView
FCommand = match_five_command_pb2.MatchFiveCommand
# Links a table might write: equal once normalised, other spellings, and the same words again.
WORDS = ["Shark", "shark!", "SHÄRK", "Whale", "Wale", "Actor", "Aktor", "Sun", "sun", "Moon",
         "Eel", "Adam's apple", "Adams apple", "Zebra crossing", "Banana", "Tie"]  # fmt: skip
BAD_LINKS = ["", "  ?! ", "a" * 61, "new\nline", "zero\u200bwidth"]


def _write(player: str, combination: int, text: str) -> Message:
    link = FCommand.WriteLink(combination=combination, text=text)
    return FCommand(player_id=player, write_link=link)


def _erase(player: str, combination: int) -> Message:
    return FCommand(player_id=player, erase_link=FCommand.EraseLink(combination=combination))


def _done(player: str) -> Message:
    return FCommand(player_id=player, done=FCommand.Done())


def _vote(player: str, ballot: int, accept: bool = True) -> Message:
    return FCommand(player_id=player, vote=FCommand.Vote(ballot=ballot, accept=accept))


def _call(player: str, ballot: int) -> Message:
    return FCommand(player_id=player, call_match=FCommand.CallMatch(ballot=ballot))


class MatchFiveHarness:
    slug = "match_five"

    def tick_chance(self, state: Any) -> float:
        """The sand timer rarely (most writings end with everybody done), each vote's often."""
        return {"writing": 0.02, "reading": 0.08}.get(state.phase.value, 0.3)

    def table(self, game: Game, rng: random.Random) -> tuple[Message | None, list[SeatInfo]]:
        settings = rng.choice([None, FSettings(writing_seconds=30, vote_seconds=10),
                               FSettings(vote_seconds=300)])  # fmt: skip
        count = rng.choice([2, 3, 3, 4, rng.randint(game.min_seats, game.max_seats)])
        return settings, [SeatInfo(n, f"p{n}", f"P{n}", False) for n in range(1, count + 1)]

    def move(self, game: Game, state: Any, players: list[str], rng: random.Random) -> Message:
        player = rng.choice(players) if rng.random() < 0.97 else "stranger"
        r = rng.random()
        if state.phase.value == "reading":
            ballots = [b.ballot for b in state.ballots]
            links = [b.ballot for b in state.ballots if not b.is_call]
            if r < 0.55:
                return _vote(player, rng.choice(ballots), rng.random() < 0.7)
            if r < 0.75:
                return _call(player, rng.choice(links))
            if r < 0.95:
                return _done(player)
            return _vote(player, rng.randint(0, state.ballots_issued + 2))
        if r < 0.6:
            combination = rng.randint(1, 10) if rng.random() < 0.95 else rng.choice([0, 11])
            text = rng.choice(WORDS) if rng.random() < 0.95 else rng.choice(BAD_LINKS)
            return _write(player, combination, text)
        if r < 0.7:
            return _erase(player, rng.randint(1, 10))
        if r < 0.95:
            return _done(player)
        return _vote(player, 1)

    def bad(self, game: Game, state: Any, players: list[str]) -> list[Message]:
        me = players[0]
        out = [_write(me, 0, "Shark"), _write(me, 11, "Shark"), _vote(me, 0), _vote(me, 10_000),
               _call(me, 10_000), _write("stranger", 1, "Shark"), _done("stranger"),
               FCommand(player_id=me)]  # fmt: skip
        out += [_write(me, 1, text) for text in BAD_LINKS]
        phase = state.phase.value
        if phase in ("not_started", "over"):
            for p in players:
                out += [_write(p, 1, "Fresh"), _erase(p, 1), _done(p), _vote(p, 1), _call(p, 1)]
        if phase == "writing":
            for p in players:
                out += [_vote(p, 1), _call(p, 1)]
                links = state.links(p)
                out += [_erase(p, c) for c in range(1, 11) if c not in links][:2]
                if p in state.done:
                    out += [_done(p), _write(p, 1, "Fresh"), _erase(p, 1)]
                    continue
                for (round_, combination), text in state.sheets[p].items():
                    other = combination % 10 + 1  # reused for another combination
                    out.append(_write(p, other, text))
                    if round_ < state.round:  # round 1's, even for the same combination
                        out.append(_write(p, combination, text))
        if phase == "reading":
            links = [b for b in state.ballots if not b.is_call]
            for p in players:
                out += [_write(p, 1, "Fresh"), _erase(p, 1)]
                out += [_vote(p, b) for b in range(1, links[0].ballot)][-2:]  # closed ballots
                if p in state.done:
                    out.append(_done(p))
                own = next((b for b in links if b.player == p), None)
                if own is None:
                    out.append(_call(p, links[0].ballot))  # no link of theirs
                    continue
                out.append(_call(p, own.ballot))
                for b in state.ballots:
                    paired = own.group and b.group == own.group
                    called = b.is_call and own.ballot in (b.own, b.target)
                    if paired and b.ballot != own.ballot:
                        out.append(_call(p, b.ballot))
                    if called:
                        out.append(_call(p, b.target if b.own == own.ballot else b.own))
            for v in state.votes:
                out.append(_vote(v.player, v.ballot, not v.accept))
            for b in state.ballots:
                if b.is_call:
                    out += [_vote(b.player, b.ballot), _call(players[0], b.ballot)]
        return out

    def bad_settings(self) -> list[Message]:
        return [
            FSettings(writing_seconds=29),
            FSettings(writing_seconds=601),
            FSettings(vote_seconds=9),
            FSettings(vote_seconds=301),
            race_pb2.RaceSettings(),
        ]

    def leaks(self, deal: Message, viewer: str) -> Leaks:
        return MatchFiveLeaks(viewer)


@dataclass
class MatchFiveLeaks:
    """A link is its author's until the reading reaches its combination: another player's
    LinkWritten or LinkErased never reaches a viewer (they get WritingProgress, counts only);
    a snapshot shows the viewer's own links as theirs and no other text but links already read;
    the seed only once the game is over."""

    viewer: str
    mine: dict[tuple[int, int], str] = field(default_factory=dict)  # the truth: own links
    read: set[str] = field(default_factory=set)  # the texts of every link read so far

    def event(self, real: Any, wire: Message) -> None:
        name = type(real).__name__
        if name in ("LinkWritten", "LinkErased") and real.player == self.viewer:
            key = (real.round, real.combination)
            if name == "LinkWritten":
                self.mine[key] = real.text
            else:
                del self.mine[key]
        if name == "CombinationOpened":
            self.read |= {link.text for link in real.links}
        kind = wire.WhichOneof("event")
        if kind in ("link_written", "link_erased"):
            body = getattr(wire, kind)
            assert body.player == self.viewer, f"{body.player}'s {kind} sent to {self.viewer!r}"
        if kind == "writing_progress":
            assert wire.writing_progress.player != self.viewer  # type: ignore[attr-defined]

    def snapshot(self, view: Message) -> None:
        assert isinstance(view, FView)
        for c in view.combinations:
            assert c.your_link == self.mine.get((view.round, c.combination), ""), (
                f"{self.viewer!r} shown {c.your_link!r} as their link for {c.combination}"
            )
        texts = [b.text for b in view.ballots if b.text]
        texts += [link.text for opened in view.read for link in opened.links]
        for text in texts:
            assert text in self.read, f"{self.viewer!r} shown {text!r} before its reading"
        if view.HasField("seed"):
            assert view.phase == FView.PHASE_GAME_OVER, "the seed in a live view"


HARNESSES: dict[str, Harness] = {
    h.slug: h
    for h in (
        ConcentrationHarness(),
        RaceHarness(),
        MatchCardsHarness(),
        NumberMatchHarness(),
        MatchFiveHarness(),
    )
}


# --- a random game through the seam --------------------------------------------------------------


@dataclass
class Run:
    seed: bytes
    settings: Message
    deal: Message
    seats: list[SeatInfo]
    commands: list[Any] = field(default_factory=list)  # every accepted command, in order
    steps: list[list[tuple[Any, Any]]] = field(default_factory=list)  # (event, state after)
    states: list[Any] = field(default_factory=list)  # the state after each command
    refused: int = 0

    @property
    def players(self) -> list[str]:
        return [s.player for s in self.seats]

    @property
    def events(self) -> list[Any]:
        return [event for step in self.steps for event, _ in step]


def play(game: Game, seed: bytes, rng: random.Random, moves: int = 150) -> Run:
    """A random game of ``game`` from ``seed``; its choices come from ``rng`` alone."""
    harness = HARNESSES[game.slug]
    wire, seats = harness.table(game, rng)
    settings = game.settings(wire)
    deal = game.deal(seed, settings)
    run = Run(seed, settings, deal, seats)
    state = game.initial_state(deal)
    now = T0
    start = game.start(now, seats, settings, game.deal_version)
    for n in range(moves + 1):
        if n == 0:
            command = start
        elif game.is_terminal(state):
            break
        else:
            r = rng.random()
            due = game.next_deadline(state)
            wait = harness.tick_chance(state)
            if due is not None and r < wait:
                now = max(now, due + rng.choice([0, 0, 5_000]))
                command = game.tick(now)
            elif r < wait + 0.08:
                player = rng.choice(run.players)
                presence = game.presence(now, player, rng.random() < 0.5)
                if presence is None:
                    continue
                command = presence
            else:
                now += rng.choice([0, 50, 400, 2_000])
                try:
                    command = game.command(harness.move(game, state, run.players, rng), now)
                except RuleError:
                    run.refused += 1
                    continue
        try:
            steps = game.decide_steps(state, command)
        except RuleError:
            run.refused += 1
            continue
        for _, after in steps:
            state = after
        run.commands.append(command)
        run.steps.append(steps)
        run.states.append(state)
    if not game.is_terminal(state) and rng.random() < 0.5:
        command = game.tick(now + 24 * 3_600_000)  # a day later: whatever time alone does
        steps = game.decide_steps(state, command)
        run.commands.append(command)
        run.steps.append(steps)
        run.states.append(steps[-1][1] if steps else state)
    return run
