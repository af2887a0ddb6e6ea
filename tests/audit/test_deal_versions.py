"""A Number Match game dealt with number-match-deal-v1, before v2 made harder levels harder
(issue 31), is still re-dealt and rerun by today's auditor: with the version its records name.
A version the game never had is still refused."""

from __future__ import annotations

import pytest
from google.protobuf.message import Message

from match.v1 import number_match_command_pb2, number_match_pb2
from match_audit.rerun import rerun, table_game
from match_audit.verify import Report, _check_deal, _Fail
from match_rules.game import SeatInfo
from match_rules.number_match import generate
from match_rules.number_match.board import Level
from match_rules.number_match.game import NumberMatch
from tests.audit.replay_records import Command, table_records

T = 1_700_000_000_000
SEED = bytes(range(32))
SETTINGS = number_match_pb2.NumberMatchSettings(
    level=number_match_pb2.NumberMatchSettings.LEVEL_HARD
)


class DealtWithV1(NumberMatch):
    """Number Match as the referee ran it before v2: it dealt v1."""

    deal_version = generate.V1

    def deal(self, seed: bytes, settings: Message) -> number_match_pb2.NumberMatchDeal:
        return self.deal_as(generate.V1, seed, settings)


def _records(game: NumberMatch) -> list:  # type: ignore[type-arg]
    def command(at: int, **body: object) -> Command:
        wire = number_match_command_pb2.NumberMatchCommand(player_id="ann", **body)  # type: ignore[arg-type]
        return Command(at, wire)

    steps = [command(T + 1_000, add_numbers={}), command(T + 2_000, end_game={})]
    seats = [SeatInfo(1, "ann", "Ann", False)]
    return table_records(game, SEED, SETTINGS, seats, T, steps)


def test_a_game_dealt_with_v1_is_re_dealt_with_v1_and_its_rerun_holds() -> None:
    records = _records(DealtWithV1())
    table = table_game(records)
    assert table.game.deal_version == generate.DEAL_VERSION != generate.V1
    report = Report("g")
    dealt = _check_deal([], records, table, SEED, report)
    assert tuple(dealt.board) == generate.generate(SEED, Level.HARD, generate.V1).board  # type: ignore[attr-defined]
    assert tuple(dealt.board) != generate.generate(SEED, Level.HARD).board  # type: ignore[attr-defined]
    assert report.lines[-1].startswith(f"ok   deal: {generate.V1} from the seed")
    assert rerun(records, table.game, table.settings, dealt).ok


def test_a_game_dealt_with_v2_is_re_dealt_with_v2() -> None:
    records = _records(NumberMatch())
    table = table_game(records)
    dealt = _check_deal([], records, table, SEED, Report("g"))
    assert tuple(dealt.board) == generate.generate(SEED, Level.HARD).board  # type: ignore[attr-defined]
    assert rerun(records, table.game, table.settings, dealt).ok


def test_a_version_the_game_never_had_is_refused() -> None:
    records = _records(DealtWithV1())
    for record in records:
        for envelope in record.events:
            if envelope.table.HasField("seed_committed"):
                envelope.table.seed_committed.deal_version = "number-match-deal-v0"
    with pytest.raises(_Fail, match="dealt with 'number-match-deal-v0'"):
        _check_deal([], records, table_game(records), SEED, Report("g"))
