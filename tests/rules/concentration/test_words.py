"""Concentration's refusals and errors word for word (docs/rules-concentration.md): what the
player, or the operator reading a log, is told."""

from __future__ import annotations

from collections.abc import Callable

from match.v1 import concentration_command_pb2, concentration_pb2, race_pb2
from match_rules.concentration import commands as cmd
from match_rules.concentration import decide, evolve, initial_state
from match_rules.concentration import events as ev
from match_rules.concentration.decide import CPU_THINK_MS, MISS_SHOW_MS
from match_rules.concentration.errors import ConcentrationCode
from match_rules.concentration.game import GAME
from match_rules.concentration.settings import Matching, Settings
from match_rules.deal import Strength
from match_rules.errors import Code, RuleError
from tests.rules.concentration.helpers import ANN, BOB, CARDS, CPU_SEED, PAIRS, SMALL, Game, T

JOKERS = Settings(cards=24, jokers=True)
BY_RANK = Settings(cards=24, matching=Matching.RANK)


def _refused(call: Callable[[], object]) -> tuple[object, str]:
    try:
        call()
    except RuleError as error:
        return error.code, error.message
    except (ValueError, TypeError) as error:
        return type(error), str(error)
    raise AssertionError("not refused")


def test_refusals_and_errors_word_for_word() -> None:
    fresh = initial_state(CARDS, CPU_SEED, Strength.MEDIUM)
    over = Game.started(players=(ANN,))
    for a, b in PAIRS:
        over.flip(T, ANN, a, b)
    unknown = concentration_pb2.ConcentrationSettings()
    unknown.MergeFromString(b"\xf8\x01\x01")  # field 31, a varint
    empty = GAME.initial_state(None)
    deal = concentration_pb2.ConcentrationDeal
    wrong = race_pb2.RaceSettings()
    cpu_seat = Game.started(cpus=frozenset({ANN}))
    missed = Game.started()
    missed.flip(T + 10, ANN, 1, 3)
    projection = initial_state()
    for event in cpu_seat.log:
        projection = evolve(projection, event)
    started = Game.started()
    cases = [
        (
            lambda: decide(started.state, cmd.StartGame(T, (ANN,), frozenset(), SMALL, "v")),
            Code.GAME_ALREADY_STARTED,
            "this game has already started",
        ),
        (
            lambda: decide(fresh, cmd.StartGame(T, (ANN, ANN), frozenset(), SMALL, "v")),
            Code.INVALID_SETUP,
            "every player needs a distinct, non-empty id",
        ),
        (
            lambda: decide(fresh, cmd.StartGame(T, (ANN,), frozenset({BOB}), SMALL, "v")),
            Code.INVALID_SETUP,
            "every CPU player must hold a seat",
        ),
        (
            lambda: decide(fresh, cmd.StartGame(T, (ANN,), frozenset(), JOKERS, "v")),
            ConcentrationCode.INVALID_JOKERS,
            "the emoji deck has no jokers: choose playing cards for them",
        ),
        (
            lambda: decide(fresh, cmd.StartGame(T, (ANN,), frozenset(), BY_RANK, "v")),
            ConcentrationCode.INVALID_MATCHING,
            "emoji pair only with the identical picture: matching by rank needs playing cards",
        ),
        (
            lambda: decide(cpu_seat.state, cmd.FlipCard(T, ANN, 1)),
            ConcentrationCode.SEAT_PLAYED_BY_CPU,
            "the CPU plays this seat: it was a CPU seat from the start, or its player did not "
            "come back in time",
        ),
        (
            lambda: decide(missed.state, cmd.FlipCard(T + 300, BOB, 5)),
            Code.PAUSED,
            f"the missed pair is still showing for {MISS_SHOW_MS - 290} ms more",
        ),
        (
            lambda: decide(projection, cmd.Tick(T + CPU_THINK_MS)),
            ValueError,
            "this state holds no deal: the CPU has no random source",
        ),
        (
            lambda: decide(fresh, cmd.FlipCard(T, ANN, 1)),
            Code.GAME_NOT_STARTED,
            "the game has not started: the host starts it",
        ),
        (
            lambda: decide(over.state, cmd.FlipCard(T, ANN, 1)),
            Code.GAME_OVER,
            "the game is over; the results are final",
        ),
        (
            lambda: GAME.settings(wrong),
            Code.INVALID_SETUP,
            "a Concentration table takes ConcentrationSettings, not RaceSettings",
        ),
        (
            lambda: GAME.settings(unknown),
            Code.INVALID_SETUP,
            "this server knows no Concentration setting numbered [31]: leave them out (a newer "
            "client?)",
        ),
        (
            lambda: GAME.with_deal(empty, wrong),
            ValueError,
            "not a Concentration deal: RaceSettings",
        ),
        (
            lambda: GAME.with_deal(
                empty, deal(cards=CARDS, cpu_seed=CPU_SEED, cpu_strength="expert")
            ),
            ValueError,
            "a deal's CPU strength is one of ['medium', 'strong', 'weak']",
        ),
        (
            lambda: GAME.with_deal(empty, deal(cards=CARDS, cpu_seed=b"12", cpu_strength="weak")),
            ValueError,
            "a deal's CPU seed has 32 bytes",
        ),
        (
            lambda: GAME.command(wrong, 5),
            Code.MALFORMED_REQUEST,
            "a Concentration table takes ConcentrationCommand, not RaceSettings",
        ),
        (
            lambda: GAME.command(concentration_command_pb2.ConcentrationCommand(player_id="a"), 5),
            Code.MALFORMED_REQUEST,
            "send flip_card with the card to flip",
        ),
        (
            lambda: GAME.decode(wrong),
            ValueError,
            "not a Concentration event: RaceSettings",
        ),
        (
            lambda: GAME.redact(over.state, "flip", BOB),  # type: ignore[arg-type]
            TypeError,
            "not an event of Concentration: 'flip'",
        ),
    ]
    for call, code, message in cases:
        assert _refused(call) == (code, message), message


class _Teller:
    def name(self, player: str) -> str:
        return player.title()

    def when(self, ms: int) -> str:
        return f"@{ms}"


def test_running_out_and_the_end_told_word_for_word() -> None:
    t = _Teller()
    assert GAME.describe(ev.TimeRanOut(T, ANN, 5, 1), t).text == (
        "Ann's time runs out: card 5 turns back down (1 try)"
    )
    assert GAME.describe(ev.TimeRanOut(T, ANN, 5, 3), t).text == (
        "Ann's time runs out: card 5 turns back down (3 tries)"
    )
    # two of three tied first: they both won, and it is no draw (not everybody tied)
    ended = ev.GameEnded(T, (), (ANN, BOB), False)
    assert GAME.describe(ended, t).text == "the game ends: Ann and Bob won"
