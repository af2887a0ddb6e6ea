"""How `make chaos` reports the tables' unavailability per fault kind (match_chaos.unavailable)
and its summary line (match_chaos.run.Summary), on outages and faults made by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from match_chaos.run import Summary
from match_chaos.unavailable import NO_FAULT, WATCH, Outage, Window, by_fault, owner, percentile

LOBBY = Window("kill lobby", "lobby.1", 10.0, 12.0)
REFEREE = Window("kill referee", "referee.2", 30.0, 33.0)
NATS = Window("NATS node", "n1", 50.0, 58.0)
LATER_LOBBY = Window("kill lobby", "lobby.2", 70.0, 71.0)
WINDOWS = [NATS, LOBBY, REFEREE, LATER_LOBBY]  # in any order


def outage(start: float, seconds: float, *seen: str, call: str = "TurnTile", table: str = "t1"):
    return Outage(
        start, start + seconds, call, seen, "race", table, example=seen[0] if seen else ""
    )


def test_the_percentiles_are_nearest_rank() -> None:
    gaps = [float(n) for n in range(1, 101)]  # 1..100
    assert (percentile(gaps, 50), percentile(gaps, 99), percentile(gaps, 100)) == (50, 99, 100)
    assert percentile([0.4, 2.0], 50) == 0.4 and percentile([0.4, 2.0], 99) == 2.0
    assert percentile([3.0], 99) == 3.0 and percentile([], 50) == 0.0


def test_an_outage_belongs_to_the_fault_under_way_or_just_over_else_to_none() -> None:
    assert owner(outage(11.0, 1), WINDOWS, 5.0, 0.5) == "kill lobby"
    assert owner(outage(9.7, 1), WINDOWS, 5.0, 0.5) == "kill lobby"  # the kill noted late
    assert owner(outage(16.5, 1), WINDOWS, 5.0, 0.5) == "kill lobby"  # a survivor taking over
    assert owner(outage(17.5, 1), WINDOWS, 5.0, 0.5) == NO_FAULT
    assert owner(outage(9.0, 1), WINDOWS, 5.0, 0.5) == NO_FAULT
    # Two windows: the later one began during the first one's grace: it is the later's.
    close = [Window("kill lobby", "lobby.1", 10.0, 12.0), Window("kill bot", "bot.1", 14.0, 15.0)]
    assert owner(outage(14.5, 1), close, 5.0, 0.5) == "kill bot"


def test_each_fault_kind_gets_its_gaps_and_what_the_players_saw() -> None:
    outages = [
        outage(10.2, 0.4, "UNAVAILABLE"),
        outage(11.0, 2.0, "UNAVAILABLE", "UNAVAILABLE", table="t2"),
        outage(70.5, 0.6, "CANCELLED", call=WATCH, table="t2"),
        outage(30.5, 8.0, "DEADLINE_EXCEEDED", "UNAVAILABLE (unavailable)"),
        outage(90.0, 1.5, "RESOURCE_EXHAUSTED"),
    ]
    reports = by_fault(outages, WINDOWS)
    assert [r.kind for r in reports] == ["kill lobby", "kill referee", "NATS node", NO_FAULT]
    lobby, referee, nats, none = reports
    assert (lobby.faults, lobby.down_s, lobby.tables) == (2, 3.0, 2)
    assert lobby.gaps == pytest.approx([0.4, 0.6, 2.0])
    assert lobby.seen() == {"UNAVAILABLE": 3, "CANCELLED": 1}
    assert lobby.as_dict()["p50_s"] == 0.6 and lobby.as_dict()["p99_s"] == 2.0
    assert lobby.as_dict()["by_call"] == {"TurnTile": 2, WATCH: 1}
    line = lobby.line()
    assert line.startswith(
        "kill lobby: 2 faults, 3.0 s down in all; 2 tables: 2 calls and 1 stream"
    )
    assert "gap p50 0.6 s, p99 2.0 s, max 2.0 s" in line and "UNAVAILABLE x3, CANCELLED x1" in line
    assert referee.seen() == {"DEADLINE_EXCEEDED": 1, "UNAVAILABLE (unavailable)": 1}
    assert nats.line() == "NATS node: 1 fault, 8.0 s down in all; no player saw a failure"
    assert nats.as_dict()["p50_s"] is None
    assert none.faults == 0 and none.line().startswith(
        "no fault: 1 table: 1 call and 0 streams waited"
    )


def test_a_call_given_up_is_said() -> None:
    gave_up = Outage(11.0, 101.0, "FlipCard", ("UNAVAILABLE",) * 9, "concentration", "t", True)
    (lobby, *_) = by_fault([gave_up], [LOBBY])
    assert "1 given up" in lobby.line() and "max 90.0 s" in lobby.line()


def test_the_summary_line_names_every_kind_and_takes_more_fields_after_the_kills() -> None:
    summary = Summary(games=10, by_game={"race": 2, "match-5": 2, "number-match": 6}, kills=12)
    summary.lost, summary.verified, summary.projections_ok = 0, 10, True
    assert summary.line() == (
        "chaos: games=10 (match-5=2 number-match=6 race=2) kills=12 lost=0 duplicated=0 "
        "verified=10 projections=ok"
    )
    summary.extra["partitions"] = "3"
    summary.projections_ok = False
    assert summary.line().endswith(
        "kills=12 partitions=3 lost=0 duplicated=0 verified=10 projections=WRONG"
    )
    assert not summary.ok  # and the projections are one thing the exit status rests on


def test_a_call_in_flight_when_a_fault_began_is_that_faults_not_the_one_before() -> None:
    """Sent during the lobby kill's grace, 1 s before the NATS node went down, it failed at its
    8 s deadline: the NATS node's (a full run gave it to the kill before)."""
    windows = [Window("kill dealer", "dealer.2", 10.0, 12.0), Window("NATS node", "n2", 20.0, 28.0)]
    in_flight = Outage(19.0, 29.5, "TurnTile", ("UNAVAILABLE",), "race", "t", failed_at=27.0)
    assert owner(in_flight, windows, 10.0, 0.5) == "NATS node"
    assert owner(replace(in_flight, failed_at=None), windows, 10.0, 0.5) == "kill dealer"
    assert in_flight.seconds == 10.5  # the wait is still from its sending
