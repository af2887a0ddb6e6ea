"""Match Cards' refusals word for word, and its view and reply field by field (docs/dealing.md,
"Game codes, format 3"; docs/rules-match-cards.md): what a player reads is part of the rules."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from match.v1 import (
    common_pb2,
    match_cards_command_pb2,
    match_cards_pb2,
    match_cards_service_pb2,
)
from match_rules.errors import Code, RuleError
from match_rules.match_cards import code as codes
from match_rules.match_cards import commands as cmd
from match_rules.match_cards import events as ev
from match_rules.match_cards.deal import DEAL_VERSION
from match_rules.match_cards.decide import COMPARE_MS, decide_steps
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.game import GAME, to_settings
from match_rules.match_cards.settings import Difficulty, Settings, check
from match_rules.match_cards.state import initial_state
from match_rules.match_cards.view import player_view
from tests.rules.match_cards.helpers import CODE, T0, Game
from tests.rules.match_cards.test_game import SEED, play, started, table

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
SHAPE = (
    "; a game code is MM3-, four letters of settings, then 53 symbols in groups of five: copy it "
    "whole from the end-of-game window"
)


def forge(head: str, seed: bytes = SEED) -> str:
    """A version 3 code written out from the format (docs/dealing.md), whatever its settings
    letters: the seed and its tag five bits a symbol, then the Luhn mod 32 check."""
    tag = hashlib.sha256(b"match-cards-code-v3" + head.encode() + seed).digest()[0] >> 4
    number = int.from_bytes(seed, "big") << 4 | tag
    symbols = "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(52)))
    body = "3" + head + symbols
    total, factor = 0, 2
    for value in reversed([ALPHABET.index(c) for c in body]):
        total += factor * value // 32 + factor * value % 32
        factor = 3 - factor
    return "MM" + body + ALPHABET[(32 - total % 32) % 32]


def refusal(text: str) -> tuple[Code, str]:
    with pytest.raises(RuleError) as error:
        codes.parse(text)
    return error.value.code, str(error.value.message)


def test_a_forged_code_of_known_settings_reads_back() -> None:
    read = codes.parse(forge("TDHB"))
    assert read.seed == SEED
    assert (read.settings.mode.value, read.settings.cards) == ("triples", 60)
    assert (read.settings.difficulty.value, read.settings.pictures) == ("hard", "fruit")
    assert read.settings.code == (
        "MM3-TDHB-AAASE-A2EAW-DAQCA-KBJFS-2DJQB-6JBCE-SVCSL-TNF22-DEPBY-HA7D2-R28"
    )


def test_code_refusals_word_for_word() -> None:
    good = forge("PAEA")
    cases = [
        ("MM", MatchCardsCode.CODE_MALFORMED, "'MM' is not a game code" + SHAPE),
        # only the first 20 characters of what was typed are quoted back
        ("X" * 25, MatchCardsCode.CODE_MALFORMED, f"'{'X' * 20}' is not a game code" + SHAPE),
        ("MM3", MatchCardsCode.CODE_MALFORMED, "the code has 0 symbols after MM3, not 57" + SHAPE),
        (
            "MM2-PAEA",
            MatchCardsCode.CODE_VERSION_UNKNOWN,
            "version 2 codes (MM2-...) carried a 30-bit seed, which a player could search "
            "during play for the whole board, so they no longer deal: replay a version 3 code "
            "(MM3-...) shown at the end of a game, or start a new game",
        ),
        (
            "MM4-PAEA",
            MatchCardsCode.CODE_VERSION_UNKNOWN,
            "this is a version 4 code (MM4-...); this server reads version 3 codes (MM3-...)",
        ),
        (
            good[:3] + "I" + good[4:],
            MatchCardsCode.CODE_MALFORMED,
            "symbol 4 of the code, 'I', is not in codes (codes have no I, O, 0 or 1)" + SHAPE,
        ),
        (
            good[:3] + "!" + good[4:],
            MatchCardsCode.CODE_MALFORMED,
            "symbol 4 of the code, '!', is not in codes" + SHAPE,
        ),
        (
            good[:9] + "0" + good[10:],
            MatchCardsCode.CODE_MALFORMED,
            "symbol 10 of the code, '0', is not in codes (codes have no I, O, 0 or 1)" + SHAPE,
        ),
        (
            forge("XAEA"),
            MatchCardsCode.CODE_SETTING_UNKNOWN,
            "the code's mode letter is 'X': P (pairs) or T (triples) are known",
        ),
        (
            forge("PEHA"),
            MatchCardsCode.CODE_SIZE_UNKNOWN,
            "the code's size letter 'E' names no board: pairs come in A (12 cards), "
            "B (20 cards), C (30 cards), D (60 cards)",
        ),
        (
            forge("PAXA"),
            MatchCardsCode.CODE_SETTING_UNKNOWN,
            "the code's difficulty 'X' or picture set 'A' is unknown: difficulty E, M or H, "
            "pictures A (animals), B (fruit)",
        ),
        (
            forge("PAEC"),  # one past the last picture set
            MatchCardsCode.CODE_SETTING_UNKNOWN,
            "the code's difficulty 'E' or picture set 'C' is unknown: difficulty E, M or H, "
            "pictures A (animals), B (fruit)",
        ),
    ]
    for text, code, message in cases:
        assert refusal(text) == (code, message), text


# --- the view, field by field --------------------------------------------------------------------

W = match_cards_pb2.MatchCardsSettings
V = match_cards_pb2.MatchCardsView


def _two_players_ann_done() -> tuple[object, object, int]:
    """Hard, 20 cards, Ann and Bob: Ann misses once, then finds all ten pairs (an attempt every
    1.5 s: 16.5 s in all); Bob has turned one card. The game goes on, Bob still playing."""
    state, deal = started(W(difficulty=W.DIFFICULTY_HARD, cards=20), players=("ann", "bob"))
    groups: dict[str, list[int]] = {}
    for n, p in enumerate(deal.cards, start=1):
        groups.setdefault(p, []).append(n)
    pairs = list(groups.values())
    at = T0
    for cards in ([pairs[0][0], pairs[1][0]], *pairs):
        for card in cards:
            state = play(state, "ann", card, at)
        at += COMPARE_MS
        state = GAME.decide_steps(state, GAME.tick(at))[-1][1]
    state = play(state, "bob", 1, at)
    return state, deal, at


def test_the_snapshot_field_by_field() -> None:
    state, deal, _ = _two_players_ann_done()
    view = GAME.snapshot(state, "bob", table(SEED))
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t1", 7, T0)
    assert view.phase == V.PHASE_PLAYING and view.you == "bob" and view.commitment == "c0ffee"
    assert view.settings == W(
        mode=W.MODE_PAIRS, cards=20, difficulty=W.DIFFICULTY_HARD, pictures="animals"
    )
    # the limits table: 20 cards, pairs, Hard: 19 failed attempts; an hour's cap; 5 columns
    assert (view.limit, view.groups_total, view.columns) == (19, 10, 5)
    assert (view.started_at_ms, view.ends_at_ms) == (T0, T0 + 3_600_000)
    assert [c.card for c in view.cards] == list(range(1, 21))
    assert view.cards[0].state == V.CARD_STATE_UP and view.cards[0].picture.id == deal.cards[0]
    assert [c.state for c in view.cards[1:]] == [V.CARD_STATE_DOWN] * 19
    assert view.compare_at_ms == 0 and view.notice_on and not view.HasField("notice")
    assert view.code == "" and not view.replay and not view.seed and not view.standings
    assert list(view.players) == [
        V.Player(
            player="ann",
            display_name="Ann",
            turned=0,
            groups=10,
            failed=1,
            finished=True,
            won=True,
            time_ms=16_500,
        ),
        V.Player(player="bob", turned=1),
    ]
    ann = GAME.snapshot(state, "ann", table(SEED))
    assert ann.you == "ann" and [c.state for c in ann.cards] == [V.CARD_STATE_FOUND] * 20
    assert [c.picture.id for c in ann.cards] == list(deal.cards)
    assert list(ann.notice.cards) == sorted(ann.notice.cards) and ann.notice.same
    mine = player_view(state, "bob")
    assert (mine.you, mine.limit, mine.groups_total) == ("bob", 19, 10)
    assert (mine.started_at, mine.ends_at) == (T0, T0 + 3_600_000)
    assert [p.failed for p in mine.players] == [1, 0]


def test_the_others_are_told_a_players_counts_failed_attempts_included() -> None:
    state, deal, _ = _two_players_ann_done()
    told = GAME.redact(state, ev.CardTurned(T0, "ann", 1, deal.cards[0], None), "bob")
    assert told == ev.OpponentProgress(T0, "ann", 0, 10, 1)


def test_the_reply_carries_the_events_and_the_replying_players_view() -> None:
    state, _, at = _two_players_ann_done()
    events = [common_pb2.EventEnvelope(table_id="t9", event_number=11)]
    reply = GAME.accepted(events, state, "bob", at, 12)
    assert list(reply.accepted.events) == events
    view = reply.accepted.view
    assert (view.table_id, view.event_number, view.server_time_ms) == ("t9", 12, at)
    assert view.you == "bob" and view.cards[0].state == V.CARD_STATE_UP
    assert view.commitment == "" and view.players[0].display_name == ""
    empty = GAME.accepted([], state, "ann", at, 12).accepted
    assert not empty.events and empty.view.table_id == "" and empty.view.you == "ann"


# --- refusals of play, settings and the wire, word for word -------------------------------------


def _refused(call: Callable[[], object]) -> tuple[object, str]:
    try:
        call()
    except RuleError as error:
        return error.code, error.message
    except (ValueError, TypeError) as error:
        return type(error), str(error)
    raise AssertionError("not refused")


def _all_found(players: tuple[str, ...]) -> tuple[Game, int]:
    game, at = Game(players=players), T0
    for cards in game.groups():
        at = game.attempt(cards, at)
    return game, at


def test_play_refusals_word_for_word() -> None:
    game = Game(players=("ann", "bob"))
    fresh = initial_state(game.cards, game.code)
    comparing = Game()
    comparing.turn(comparing.groups()[0][0])
    comparing.turn(comparing.groups()[1][0])
    notice_off = Game(Settings(difficulty=Difficulty.HARD))
    notice_off.run(cmd.TurnOffNotice(T0, "ann"))
    waiting, waiting_at = _all_found(("ann", "bob"))
    over, over_at = _all_found(("ann",))
    two = ("ann", "ann")
    cases = [
        (
            lambda: game.run(cmd.StartGame(T0, ("ann",), Settings(), DEAL_VERSION)),
            Code.GAME_ALREADY_STARTED,
            "this game has already started",
        ),
        (
            lambda: decide_steps(fresh, cmd.StartGame(T0, two, Settings(), DEAL_VERSION)),
            Code.INVALID_SETUP,
            "every player needs a distinct, non-empty id",
        ),
        (
            lambda: decide_steps(fresh, cmd.TurnCard(T0, "ann", 1)),
            Code.GAME_NOT_STARTED,
            "the game has not started: every seat must be taken",
        ),
        (
            lambda: comparing.turn(3, T0 + 500),
            MatchCardsCode.COMPARING,
            "the attempt's 2 cards are being compared for 1000 ms more: nothing can be turned "
            "until then",
        ),
        (
            lambda: game.run(cmd.TurnOffNotice(T0, "ann")),
            MatchCardsCode.NO_NOTICE,
            "only Hard shows the Same/Different pictures notice",
        ),
        (
            lambda: notice_off.run(cmd.TurnOffNotice(T0, "ann")),
            MatchCardsCode.NOTICE_ALREADY_OFF,
            "the notice is off already for the rest of the game",
        ),
        (
            lambda: waiting.turn(1, waiting_at),
            MatchCardsCode.PLAYER_FINISHED,
            "your game is over: wait for the others to finish to see the results",
        ),
        (
            lambda: over.turn(1, over_at),
            Code.GAME_OVER,
            "the game is over; the results are final",
        ),
        (
            lambda: check(Settings(cards=21)),
            Code.INVALID_DECK_SIZE,
            "a board of pairs has 12, 20, 30, 60 cards, got 21",
        ),
        (
            lambda: check(Settings(pictures="cars")),
            Code.INVALID_PICTURES,
            "the picture sets are animals, fruit; 'cars' is not one",
        ),
    ]
    for call, code, message in cases:
        assert _refused(call) == (code, message), message


def test_setup_and_wire_refusals_word_for_word() -> None:
    unknown = W()
    unknown.MergeFromString(b"\xf8\x01\x01")  # field 31, a varint
    game = Game()
    empty = GAME.initial_state(None)
    seed_0 = GAME.deal(bytes(32), W()).cards
    deal = match_cards_pb2.MatchCardsDeal
    cases = [
        (
            lambda: GAME.settings(common_pb2.Refusal()),
            Code.INVALID_SETUP,
            "a Match Cards table takes MatchCardsSettings, not Refusal",
        ),
        (
            lambda: GAME.settings(unknown),
            Code.INVALID_SETUP,
            "this server knows no Match Cards setting numbered [31]: leave them out (a newer "
            "client?)",
        ),
        (
            lambda: GAME.with_deal(empty, common_pb2.Refusal()),
            ValueError,
            "not a Match Cards deal: Refusal",
        ),
        (lambda: GAME.with_deal(empty, deal()), ValueError, "the deal has 0 cards, the game 12"),
        (
            lambda: GAME.with_deal(game.state, deal(cards=game.cards[:4], code=CODE)),
            ValueError,
            "the deal has 4 cards, the game 12",
        ),
        (
            lambda: GAME.with_deal(empty, deal(cards=["nothing"], code=CODE)),
            ValueError,
            "the deal names a picture of no set",
        ),
        (
            lambda: GAME.with_deal(empty, deal(cards=seed_0, code=CODE)),
            ValueError,
            "the deal's cards are not the ones its code deals",
        ),
        (
            lambda: GAME.command(common_pb2.Refusal(), 5),
            Code.MALFORMED_REQUEST,
            "a Match Cards table takes MatchCardsCommand, not Refusal",
        ),
        (
            lambda: GAME.command(match_cards_command_pb2.MatchCardsCommand(player_id="a"), 5),
            Code.MALFORMED_REQUEST,
            "send turn_card with the card to turn, or turn_off_notice",
        ),
        (
            lambda: GAME.decode(common_pb2.Refusal()),
            ValueError,
            "not a Match Cards event: Refusal",
        ),
        (
            lambda: GAME.redact(game.state, "flip", "bob"),  # type: ignore[arg-type]
            TypeError,
            "not an event of Match Cards: 'flip'",
        ),
        (
            lambda: initial_state().picture(1),
            ValueError,
            "this state is a projection of the events: it holds no deal",
        ),
    ]
    for call, code, message in cases:
        assert _refused(call) == (code, message), message
    # the deal the code carries: seed 1's, 12 cards, is taken as it is
    state = GAME.with_deal(empty, deal(cards=Game().cards, code=CODE))
    assert state.cards == Game().cards and state.code == CODE
    assert initial_state().code == ""
    assert GAME.check_request(match_cards_service_pb2.TurnCardRequest(card=1)) is None
    assert GAME.check_request(match_cards_service_pb2.TurnCardRequest(card=60)) is None
    problem = GAME.check_request(match_cards_service_pb2.TurnCardRequest(card=61))
    assert isinstance(problem, RuleError)  # the referee's own refusal, slug and all
    assert (problem.code, problem.message) == (
        Code.CARD_OUT_OF_RANGE,
        "cards are numbered from 1 to the board's size (at most 60), got 61",
    )


# --- the log told for people, word for word ------------------------------------------------------


class _Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


def test_the_log_told_word_for_word() -> None:
    replay = to_settings(GAME.settings(W(code=CODE)))
    hard = to_settings(GAME.settings(W(difficulty=W.DIFFICULTY_HARD)))
    two = ("ann", "bob")
    cases = [
        (
            ev.GameStarted(T0, ("ann",), replay, "v", 20, T0 + 1),
            "the game starts for Ann: 12 cards in pairs, easy, animals, 20 failed attempts lose, "
            f"a replay of {CODE}; dealt with v",
        ),
        (
            ev.GameStarted(T0, two, hard, "v", 11, T0 + 1),
            "the game starts for Ann, Bob: 12 cards in pairs, hard, animals, 11 failed attempts "
            "lose; dealt with v",
        ),
        (
            ev.GroupFound(T0, "ann", (1, 2), 1, True),
            'Ann finds cards 1, 2 (1 found) (told "Same picture")',
        ),
        (ev.GroupFound(T0, "ann", (1, 2), 1, False), "Ann finds cards 1, 2 (1 found)"),
        (
            ev.AttemptFailed(T0, "ann", (1, 3), 1, True),
            'Ann\'s cards 1, 3 differ and turn down (1 failed attempt) (told "Different pictures")',
        ),
        (
            ev.AttemptFailed(T0, "ann", (1, 3), 2, False),
            "Ann's cards 1, 3 differ and turn down (2 failed attempts)",
        ),
    ]
    for event, text in cases:
        told = GAME.describe(event, _Teller())
        assert (told.text, told.after) == (text, ()), text
        assert GAME.place(event).starts is isinstance(event, ev.GameStarted)
    standings = (
        ev.Standing("ann", 1, True, 6, 1, 5_000),
        ev.Standing("bob", 2, False, 2, 11, 12_345),
    )
    told = GAME.describe(ev.GameEnded(T0, standings, CODE, False), _Teller())
    assert told.text == f"the game ends; its code is {CODE}"
    assert told.after == (
        "standings:",
        "    1. Ann: 6 found, 1 failed attempt, 5.0 s",
        "    2. Bob: 2 found, 11 failed attempts, 12.3 s",
    )
    slow = (ev.Standing("ann", 1, True, 6, 0, 100_000),)
    assert GAME.describe(ev.GameEnded(T0, slow, CODE, False), _Teller()).after[1] == (
        "    1. Ann: 6 found, 0 failed attempts, 100.0 s"
    )
    assert _refused(lambda: GAME.describe("flip", _Teller())) == (  # type: ignore[arg-type]
        TypeError,
        "not an event of Match Cards: 'flip'",
    )
    other = SimpleNamespace(at=T0)  # another game's event: it has a time, and nothing else
    assert _refused(lambda: GAME.evolve(GAME.initial_state(None), other)) == (
        TypeError,
        f"not an event of Match Cards: namespace(at={T0})",
    )
