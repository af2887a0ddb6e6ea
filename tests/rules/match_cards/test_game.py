"""Match Cards behind the seam: settings, deal, wire, views and redaction, results, the replay."""

from __future__ import annotations

import pytest

from match.v1 import common_pb2, match_cards_command_pb2, match_cards_pb2, match_cards_service_pb2
from match_rules.errors import Code, RuleError
from match_rules.game import ENDING, SeatInfo, TableContext
from match_rules.match_cards import events as ev
from match_rules.match_cards.decide import COMPARE_MS
from match_rules.match_cards.errors import MatchCardsCode
from match_rules.match_cards.game import GAME, to_settings
from match_rules.match_cards.settings import Difficulty
from match_rules.match_cards.view import player_view
from match_rules.registry import by_slug
from tests.rules.match_cards.helpers import BAD_CHECK, CODE, T0

W = match_cards_pb2.MatchCardsSettings
V = match_cards_pb2.MatchCardsView
C = match_cards_command_pb2.MatchCardsCommand
SEED = bytes(range(32))


class Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


def table(seed: bytes | None = None) -> TableContext:
    return TableContext("t1", 7, T0, {"ann": "Ann"}, "c0ffee", seed)


def started(
    settings: W | None = None, players: tuple[str, ...] = ("ann",)
) -> tuple[object, object]:
    resolved = GAME.settings(settings)
    deal = GAME.deal(SEED, resolved)
    state = GAME.initial_state(deal)
    seats = [SeatInfo(n, p, p, False) for n, p in enumerate(players, start=1)]
    steps = GAME.decide_steps(state, GAME.start(T0, seats, resolved, GAME.deal_version))
    return steps[-1][1], deal


def play(state: object, player: str, card: int, at: int) -> object:
    wire = C(player_id=player, turn_card=C.TurnCard(card=card))
    steps = GAME.decide_steps(state, GAME.command(wire, at))
    return steps[-1][1] if steps else state


def test_registered_under_its_slug() -> None:
    assert by_slug("match_cards") is GAME and GAME.bot is not None and not GAME.cpu_fills


def test_settings_defaults_and_refusals() -> None:
    resolved = GAME.settings(None)
    assert (resolved.mode, resolved.cards, resolved.difficulty, resolved.pictures) == (
        W.MODE_PAIRS,
        12,
        W.DIFFICULTY_EASY,
        "animals",
    )
    cases = [
        (W(mode=9), MatchCardsCode.INVALID_MODE),
        (W(difficulty=9), MatchCardsCode.INVALID_DIFFICULTY),
        (W(cards=21), Code.INVALID_DECK_SIZE),
        (W(code=CODE, cards=20), MatchCardsCode.CODE_CONFLICT),
        (W(code=BAD_CHECK), MatchCardsCode.CODE_CHECK_FAILED),
        (common_pb2.Refusal(), Code.INVALID_SETUP),
    ]
    for wire, code in cases:
        with pytest.raises(RuleError) as error:
            GAME.settings(wire)
        assert error.value.code is code, wire
    unknown = W()
    unknown.MergeFromString(b"\xf8\x01\x01")  # field 31, a varint
    with pytest.raises(RuleError, match="numbered"):
        GAME.settings(unknown)


def test_a_typed_code_gives_its_settings_and_the_same_cards_in_the_same_places() -> None:
    first = GAME.deal(SEED, GAME.settings(W(mode=W.MODE_TRIPLES, cards=18, pictures="fruit")))
    replay = GAME.settings(W(code=first.code.lower(), mode=W.MODE_TRIPLES))
    assert replay.code == first.code and replay.cards == 18
    assert GAME.deal(bytes(32), replay).cards == first.cards


def test_with_deal_refuses_a_deal_that_does_not_fit() -> None:
    state = GAME.initial_state(None)
    for deal in (
        common_pb2.Refusal(),
        match_cards_pb2.MatchCardsDeal(),
        match_cards_pb2.MatchCardsDeal(cards=["nothing"], code=CODE),
        # real pictures, but not the ones the code deals (seed 0's, not seed 1's)
        match_cards_pb2.MatchCardsDeal(cards=GAME.deal(bytes(32), W()).cards, code=CODE),
    ):
        with pytest.raises(ValueError):
            GAME.with_deal(state, deal)


def test_commands_from_the_wire() -> None:
    assert GAME.command(C(player_id="a", turn_off_notice=C.TurnOffNotice()), 5).player == "a"
    for wire in (C(player_id="a"), common_pb2.Refusal()):
        with pytest.raises(RuleError) as error:
            GAME.command(wire, 5)
        assert error.value.code is Code.MALFORMED_REQUEST
    assert GAME.presence(1, "a", False) is None
    assert GAME.check_request(match_cards_service_pb2.TurnCardRequest(card=0))
    assert GAME.check_request(match_cards_service_pb2.TurnCardRequest(card=60)) is None
    assert GAME.check_request(match_cards_service_pb2.TurnOffNoticeRequest()) is None


def test_a_picture_only_while_turned_or_found_and_others_see_counts() -> None:
    state, deal = started(players=("ann", "bob"))
    state = play(state, "ann", 1, T0)
    view = GAME.snapshot(state, "ann", table())
    assert view.cards[0].state == V.CARD_STATE_UP and view.cards[0].picture.id == deal.cards[0]
    assert view.cards[0].picture.name and not view.cards[1].HasField("picture")
    bob = GAME.snapshot(state, "bob", table())
    assert all(not c.HasField("picture") for c in bob.cards)
    assert [p.turned for p in bob.players] == [1, 0] and bob.players[0].display_name == "Ann"
    event = GAME.decode(
        GAME.encode(GAME.redact(state, ev.CardTurned(T0, "ann", 1, deal.cards[0], None), "bob"))
    )
    assert event == ev.OpponentProgress(T0, "ann", 1, 0, 0)
    assert GAME.redact(state, ev.NoticeTurnedOff(T0, "ann"), "ann") == ev.NoticeTurnedOff(T0, "ann")
    progress = ev.OpponentProgress(T0, "ann", 0, 0, 0)
    assert GAME.redact(state, progress, "bob") is progress  # idempotent, as the lobby needs
    with pytest.raises(TypeError):
        GAME.redact(state, object(), "bob")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        GAME.decode(common_pb2.Refusal())
    spectator = player_view(state, "")
    assert spectator.cards == () and spectator.compare_at is None


def test_hard_notice_and_compare_in_the_view() -> None:
    state, deal = started(W(difficulty=W.DIFFICULTY_HARD))
    pictures = list(deal.cards)
    other = next(n for n in range(2, 13) if pictures[n - 1] != pictures[0])
    state = play(state, "ann", 1, T0)
    state = play(state, "ann", other, T0)
    assert GAME.snapshot(state, "ann", table()).compare_at_ms == T0 + COMPARE_MS
    state = GAME.decide_steps(state, GAME.tick(T0 + COMPARE_MS))[-1][1]
    view = GAME.snapshot(state, "ann", table())
    assert list(view.notice.cards) == [1, other] and not view.notice.same and view.notice_on


def test_the_end_shows_code_seed_standings_and_a_replay_is_not_ranked() -> None:
    for settings, ranked in ((W(), True), (W(code=CODE), False)):
        state, deal = started(settings)
        at = T0
        groups: dict[str, list[int]] = {}
        for n, p in enumerate(deal.cards, start=1):
            groups.setdefault(p, []).append(n)
        assert GAME.results(state) is None
        for cards in groups.values():
            for card in cards:
                state = play(state, "ann", card, at)
            at += COMPARE_MS
            state = GAME.decide_steps(state, GAME.tick(at))[-1][1]
        view = GAME.snapshot(state, "ann", table(SEED))
        assert view.phase == V.PHASE_GAME_OVER and view.code == deal.code and view.seed == SEED
        assert view.standings[0].won and view.replay is not ranked
        results = GAME.results(state)
        assert results is not None and results.ranked is ranked and not results.draw
        assert "6 of 6 found" in results.standings[0].summary
        reply = GAME.accepted([], state, "ann", at, 9)
        assert reply.accepted.view.code == deal.code
        assert GAME.reply_message(refusal=common_pb2.Refusal(code="x")).refusal.code == "x"
        assert GAME.is_terminal(state) and GAME.is_started(state) and GAME.clock(state) == at
        assert GAME.next_deadline(state) is None
        assert GAME.evolve(state, ev.NoticeTurnedOff(at, "ann")) is not None


def test_the_log_told_for_people() -> None:
    t = Teller()
    state, _ = started(W(difficulty=W.DIFFICULTY_HARD, code=""))
    settings = to_settings(GAME.settings(W(code=CODE)))
    assert f"a replay of {CODE}" in GAME.describe_settings(GAME.settings(W(code=settings.code)))
    lines = [
        GAME.describe(e, t).text
        for e in (
            ev.GameStarted(T0, ("ann",), settings, "v", 20, T0 + 1),
            ev.CardTurned(T0, "ann", 1, "cat-grey", T0 + 1500),
            ev.CardTurned(T0, "ann", 2, "unknown", None),
            ev.GroupFound(T0, "ann", (1, 2), 1, True),
            ev.GroupFound(T0, "ann", (1, 2), 1, False),
            ev.AttemptFailed(T0, "ann", (1, 2), 1, True),
            ev.NoticeTurnedOff(T0, "ann"),
            ev.PlayerFinished(T0, "ann", True, 6, 1, 5000),
            ev.PlayerFinished(T0, "ann", False, 2, 11, 5000),
        )
    ]
    assert "cat, grey" in lines[1] and "Same picture" in lines[3] and "Different" in lines[5]
    ended = ev.GameEnded(T0, (ev.Standing("ann", 1, True, 6, 1, 5000),), CODE, True)
    told = GAME.describe(ended, t)
    assert "not ranked" in told.text and told.after[1].startswith("    1. Ann")
    assert (
        GAME.place(ended).part == ENDING
        and GAME.place(lines and ev.NoticeTurnedOff(T0, "a")).part == 1
    )
    assert GAME.heading(ENDING).startswith("end") and GAME.heading(1) == "play"
    with pytest.raises(TypeError):
        GAME.describe(object(), t)  # type: ignore[arg-type]
    assert (
        GAME.describe_command(C(player_id="ann", turn_card=C.TurnCard(card=3)), t)
        == "Ann turns card 3"
    )
    assert "notice" in GAME.describe_command(
        C(player_id="ann", turn_off_notice=C.TurnOffNotice()), t
    )
    assert "nothing" in GAME.describe_command(C(player_id="ann"), t)
    assert state is not None and Difficulty.HARD


def test_where_a_card_is() -> None:
    from match_rules.match_cards.describe import where

    assert where(1, 12) == "row 1, column 1" and where(2, 12) == "row 1, column 2"
    assert where(60, 60) == "row 6, column 10"


def test_a_result_gives_the_time_in_seconds_to_the_tenth() -> None:
    """Six pairs found one at a time, the last at T0 + 100 s: 100.0 s, not 99.9."""
    from tests.rules.match_cards.helpers import Game

    game = Game()
    *first, last = game.groups()
    at = T0
    for group in first:
        at = game.attempt(group, at)
    game.attempt(last, T0 + 100_000 - COMPARE_MS)
    got = GAME.results(game.state)
    assert got is not None
    assert got.standings[0].summary == "won: 6 of 6 found, 0 of 20 failed, 100.0 s"


def test_results_written_out_by_hand_a_win_a_loss_a_tie_and_a_replay() -> None:
    from match_rules.game import Results, Standing
    from match_rules.match_cards import commands as cmd
    from match_rules.match_cards.settings import Mode, Settings
    from tests.rules.match_cards.helpers import Game

    def misses(game: Game, players: tuple[str, ...], times: int) -> None:
        """``times`` failed attempts by each of ``players``, side by side from T0."""
        at = T0
        for _ in range(times):
            for player in players:
                for card in game.miss():
                    game.turn(card, at, player)
            at += COMPARE_MS
            game.run(cmd.Tick(at))

    def core(results: Results | None) -> object:
        """What this test pins: standings, draw, ranked (tests/rules/match_cards/test_results.py
        pins winners, figures and entries)."""
        assert results is not None
        return (results.standings, results.draw, results.ranked)

    # Bob loses by the limit (20 failed, 30 s); Ann then wins with those 20 failed, in 39 s.
    two = Game(Settings(Mode.PAIRS, 12), players=("ann", "bob"))
    assert GAME.results(two.state) is None  # not over yet
    misses(two, ("ann", "bob"), 19)
    misses_end = T0 + 19 * COMPARE_MS
    at = two.attempt(two.miss(), misses_end, "bob")
    for group in two.groups():
        at = two.attempt(group, at, "ann")
    assert core(GAME.results(two.state)) == core(
        Results(
            (
                Standing("ann", 1, 6, "won: 6 of 6 found, 19 of 20 failed, 39.0 s"),
                Standing("bob", 2, 0, "lost: 0 of 6 found, 20 of 20 failed, 30.0 s"),
            ),
            draw=False,
            ranked=True,
        )
    )
    # Both lose alike, side by side: a tie for first place is a draw.
    tie = Game(Settings(Mode.PAIRS, 12), players=("ann", "bob"))
    misses(tie, ("ann", "bob"), 20)
    tied = GAME.results(tie.state)
    assert tied is not None and tied.draw and [s.place for s in tied.standings] == [1, 1]
    assert tied.standings[0].summary == "lost: 0 of 6 found, 20 of 20 failed, 30.0 s"
    # Alone, a win is no draw; a game replayed from its code is never ranked, and says so.
    solo = Game(Settings(Mode.PAIRS, 12, code=CODE))
    at = T0
    for group in solo.groups():
        at = solo.attempt(group, at)
    assert core(GAME.results(solo.state)) == core(
        Results(
            (
                Standing(
                    "ann", 1, 6, "won: 6 of 6 found, 0 of 20 failed, 9.0 s, a replay (not ranked)"
                ),
            ),
            draw=False,
            ranked=False,
        )
    )
