"""What `make chaos-partition` schedules, measures and judges (match_chaos.partition), on
timings built by hand; the nftables rules and names of match_launch.netns; and one real cut
between two network namespaces."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from match_chaos.partition import (
    CALM,
    FLAPPING,
    LEADER,
    MINORITY,
    SLOW,
    GameTimes,
    Probe,
    Scenario,
    Summary,
    Window,
    connected_to,
    judge_probes,
    longest_wait,
    measure,
    percentile,
    problems,
    schedule,
    stored_check,
    summarize,
)
from match_launch import netns
from match_launch.natscluster import NodeSpec, node_config

# --- the schedule ----------------------------------------------------------------------------


def test_the_schedule_has_the_four_faults_in_order() -> None:
    assert [s.kind for s in schedule()] == [LEADER, MINORITY, FLAPPING, SLOW]
    slow = schedule()[-1]
    assert (slow.delay_ms, slow.loss_percent) == (200, 10)
    assert [s.fault_s for s in schedule(0.5)] == [7.5, 7.5, 10.0, 10.0]


def test_a_flapping_link_goes_down_and_up_within_the_fault() -> None:
    flapping = Scenario(FLAPPING, 10.0, down_s=2.0, up_s=1.0)
    assert flapping.flaps() == [(0.0, 2.0), (3.0, 5.0), (6.0, 8.0)]  # 9-11 would outlast it
    assert Scenario(FLAPPING, 4.0, down_s=2.0, up_s=2.0).flaps() == [(0.0, 2.0)]


def test_a_cut_lasts_the_whole_fault_and_a_slow_link_cuts_nothing() -> None:
    assert Scenario(LEADER, 15.0).flaps() == [(0.0, 15.0)]
    assert Scenario(MINORITY, 7.5).flaps() == [(0.0, 7.5)]
    assert Scenario(SLOW, 20.0, delay_ms=200, loss_percent=10).flaps() == []


# --- what players saw --------------------------------------------------------------------------


def test_the_longest_wait_counts_only_calls_that_overlap_the_window() -> None:
    calls = [(0.0, 0.1), (5.0, 5.2), (9.0, 21.0), (30.0, 30.1)]
    assert longest_wait(calls, 10.0, 20.0) == 12.0  # the call that waited through the cut
    assert longest_wait(calls, 4.0, 6.0) == pytest.approx(0.2)
    assert longest_wait(calls, 22.0, 29.0) is None  # nobody moved then


def test_percentiles_by_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([], 50) == 0.0


def test_measure_counts_tables_moving_waiting_and_playing_on() -> None:
    window = Window(LEADER, start=10.0, healed=20.0, end=25.0)
    stuck = GameTimes(
        arrivals=[1.0, 2.0, 21.0],
        errors=[(12.0, "UNAVAILABLE"), (18.0, "DEADLINE_EXCEEDED"), (40.0, "UNAVAILABLE")],
        calls=[(9.5, 21.0)],
    )
    playing = GameTimes(arrivals=[11.0, 12.0, 15.0], calls=[(11.0, 11.1), (14.9, 15.0)])
    idle = GameTimes(arrivals=[1.0, 2.0])  # over before the fault
    measure(window, [stuck, playing, idle])
    assert window.in_play == 2
    assert window.progressed == 1
    assert window.gaps_ms == pytest.approx([11500.0, 100.0])
    assert window.errors == {"UNAVAILABLE": 1, "DEADLINE_EXCEEDED": 1}
    measure(window, [idle])  # measured afresh, not added to
    assert (window.in_play, window.progressed, window.gaps_ms) == (0, 0, [])


# --- the probe ---------------------------------------------------------------------------------


def cut_window() -> Window:
    return Window(MINORITY, start=100.0, healed=110.0, end=115.0, cut_off=2)


def test_an_ack_from_the_cut_off_node_during_the_cut_is_counted() -> None:
    window = cut_window()
    judge_probes(
        window,
        [
            Probe(2, "m:n3:1", sent=100.1, done=100.3, seq=50),  # in flight at the cut: grace
            Probe(2, "m:n3:2", sent=101.0, done=102.5),  # refused
            Probe(2, "m:n3:3", sent=105.0, done=105.2, seq=77),  # the minority acknowledged
            Probe(2, "m:n3:4", sent=109.9, done=111.0, seq=80),  # answered after the heal
            Probe(0, "m:n1:5", sent=100.2, done=102.0),  # the majority electing
            Probe(1, "m:n2:6", sent=101.0, done=102.4, seq=81),
            Probe(0, "m:n1:7", sent=112.0, done=112.1, seq=90),  # after the heal: counted
            Probe(0, "m:n1:8", sent=99.0, done=99.1, seq=40),  # before the window
        ],
    )
    assert (window.minority_acked, window.minority_refused) == (1, 1)
    assert window.majority_acked == 2
    assert window.majority_first_ack_ms == pytest.approx(2400.0)


def test_a_majority_that_never_acknowledges_fails_the_run() -> None:
    window = cut_window()
    judge_probes(window, [Probe(2, "m:n3:1", sent=101.0, done=102.5)])
    assert window.majority_first_ack_ms is None
    summary = Summary(scenarios=1, games=1, verified=1)
    assert problems(summary, [window]) == [f"{MINORITY}: the majority side acknowledged no write"]


def test_a_minority_ack_fails_the_run_and_a_calm_window_is_not_judged() -> None:
    window = cut_window()
    judge_probes(
        window,
        [
            Probe(2, "m:n3:1", sent=105.0, done=105.2, seq=77),
            Probe(0, "m:n1:2", sent=105.0, done=105.2, seq=78),
        ],
    )
    summary = Summary(scenarios=1, games=2, verified=2)
    calm = Window(CALM, start=0.0, healed=10.0, end=10.0)
    assert problems(summary, [calm, window]) == [
        f"{MINORITY}: the cut-off node acknowledged 1 writes",
        f"{MINORITY}: no write to the cut-off node was tried",
    ]


def test_a_cut_line_says_who_was_on_the_node_at_the_cut_and_at_the_heal() -> None:
    window = cut_window()
    window.on_cut_off, window.still_on = ["dealer.2", "lobby.2"], []
    assert window.line().endswith("; connected to it: dealer.2 lobby.2 (at the heal: nothing)")
    window.still_on = ["lobby.2"]
    assert window.line().endswith("(at the heal: lobby.2)")
    assert "connected to it" not in Window(CALM).line()


def test_stored_check_finds_acknowledged_probes_missing_or_stored_twice() -> None:
    probes = [
        Probe(0, "a:n1:1", 0.0, 0.1, seq=1),
        Probe(1, "a:n2:2", 0.0, 0.1, seq=2),
        Probe(2, "a:n3:3", 0.0, 0.1),  # never acknowledged: may or may not be stored
        Probe(0, "a:n1:4", 0.0, 0.1, seq=4),
    ]
    assert stored_check(probes, {1: "a:n1:1", 2: "a:n2:2", 3: "a:n3:3", 4: "a:n1:4"}) == ([], [])
    lost, doubled = stored_check(probes, {1: "a:n1:1", 2: "a:n3:3", 3: "a:n3:3"})
    assert lost == ["2 a:n2:2", "4 a:n1:4"]
    assert doubled == ["a:n3:3 x2"]


def test_the_summary_leaves_the_calm_window_out() -> None:
    calm = Window(CALM, gaps_ms=[5.0, 6.0])
    leader = Window(LEADER, gaps_ms=[100.0, 9000.0], minority_acked=0)
    slow = Window(SLOW, gaps_ms=[300.0])
    summary = summarize([calm, leader, slow], games=9, lost=0, duplicated=0, verified=9)
    assert summary.scenarios == 2
    assert (summary.unavailable_p50_ms, summary.unavailable_p99_ms) == (300.0, 9000.0)
    assert summary.line() == (
        "chaos-partition: scenarios=2 games=9 lost=0 duplicated=0 verified=9 "
        "unavailable_p50_ms=300 p99_ms=9000 probe_lost=0 probe_duplicated=0 minority_acked=0"
    )
    assert problems(summary, [calm, leader, slow]) == [
        f"{LEADER}: the majority side acknowledged no write",
        f"{SLOW}: the majority side acknowledged no write",
    ]
    unverified = summarize([leader], games=3, lost=2, duplicated=1, verified=2)
    assert problems(unverified, [])[:2] == [
        "1 of 3 games not verified",
        "games: 2 events lost, 1 duplicated",
    ]


def test_connected_to_reads_the_processes_off_ss() -> None:
    ss = (
        'ESTAB 0 0 10.77.30.1:40100 10.77.30.11:4222 users:(("python",pid=101,fd=9))\n'
        'ESTAB 0 0 10.77.30.1:40102 10.77.30.12:4222 users:(("python",pid=102,fd=9))\n'
        'ESTAB 0 0 10.77.30.1:40104 10.77.30.11:4222 users:(("python",pid=103,fd=7))\n'
        'ESTAB 0 0 10.77.30.1:40106 10.77.30.11:4222 users:(("other",pid=999,fd=7))\n'
        "garbage\n"
    )
    names = {101: "referee.1", 102: "lobby.1", 103: "ledger.2"}
    assert connected_to(4222, "10.77.30.11", names, ss) == ["ledger.2", "referee.1"]
    assert connected_to(4222, "10.77.30.13", names, ss) == []


# --- the namespaces ----------------------------------------------------------------------------


def test_a_node_listens_and_routes_on_its_own_address(tmp_path: Path) -> None:
    a = NodeSpec("n1", 4222, 6222, tmp_path / "n1", "10.77.30.11", 8222)
    b = NodeSpec("n2", 4222, 6222, tmp_path / "n2", "10.77.30.12")
    config = node_config(a, [b])
    assert "listen: 10.77.30.11:4222\n" in config
    assert "http: 10.77.30.11:8222\n" in config
    assert "  listen: 10.77.30.11:6222\n" in config
    assert "nats-route://10.77.30.12:6222" in config
    assert a.url == "nats://10.77.30.11:4222"
    assert "http:" not in node_config(b, [a])  # no monitoring port, none served


def test_the_rules_drop_the_cut_peers_and_a_share_at_random() -> None:
    cuts = {frozenset((0, 1)), frozenset((1, 2))}
    one = netns.ruleset("10.77.30", 1, cuts)
    assert "ip saddr 10.77.30.11 drop" in one and "ip daddr 10.77.30.13 drop" in one
    assert "numgen" not in one
    zero = netns.ruleset("10.77.30", 0, cuts, loss_percent=10)
    assert "ip saddr 10.77.30.12 drop" in zero and "10.77.30.13" not in zero
    assert zero.count("numgen random mod 100 < 10 drop") == 2
    assert "drop" not in netns.ruleset("10.77.30", 2, set())
    assert netns.ruleset("10.77.30", 2, set()).startswith("table inet chaos\ndelete table")


def test_names_say_their_owner_and_only_the_gone_ones_are_stale() -> None:
    assert netns.owner_of("mcp1f2ah1") == 0x1F2A
    assert netns.owner_of("mcp1f2ab") == 0x1F2A
    assert netns.owner_of("mcp1f2an3") == 0x1F2A
    assert netns.owner_of("eth0") is None
    assert netns.owner_of("mcpXYZ") is None
    names = ["mcp10h1", "mcp10n1", "mcp20b", "eth0", "lo"]
    assert netns.stale(names, alive={0x10}) == ["mcp20b"]
    lab = netns.NetLab(owner=0xABC, octet=42)
    assert (lab.bridge, lab.namespace(0), lab.host_end(2)) == ("mcpabcb", "mcpabcn1", "mcpabch3")
    assert lab.hosts == ["10.77.42.11", "10.77.42.12", "10.77.42.13"]
    assert lab.command(1, ["nats-server"]) == ["ip", "netns", "exec", "mcpabcn2", "nats-server"]
    assert all(len(n) <= 15 for n in (lab.bridge, lab.host_end(2), "mcp3fffffh3"))  # IFNAMSIZ


@pytest.mark.skipif(bool(netns.missing_tools()), reason="needs root, ip, tc and nft")
def test_a_cut_between_two_namespaces_drops_and_heals_and_down_leaves_nothing() -> None:
    lab = netns.NetLab(size=2).up()
    try:
        server = lab.command(1, ["python3", "-c", LISTEN, lab.host(1)])
        with subprocess.Popen(server, stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "listening"
            try:
                assert reaches(lab, 0, lab.host(1))
                lab.cut(0, 1)
                assert not reaches(lab, 0, lab.host(1))
                assert reaches_from_root(lab.host(1))  # the clients' link stays up
                lab.heal(0, 1)
                assert reaches(lab, 0, lab.host(1))
            finally:
                proc.kill()
    finally:
        lab.down()
    assert lab.leftovers() == []


LISTEN = (
    "import socket, sys\n"
    "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "s.bind((sys.argv[1], 7777)); s.listen(16); print('listening', flush=True)\n"
    "while True:\n"
    "    c, _ = s.accept(); c.close()\n"
)


def reaches(lab: netns.NetLab, i: int, host: str) -> bool:
    probe = f"import socket; socket.create_connection(({host!r}, 7777), timeout=1).close()"
    done = subprocess.run(lab.command(i, ["python3", "-c", probe]), capture_output=True)
    return done.returncode == 0


def reaches_from_root(host: str) -> bool:
    try:
        socket.create_connection((host, 7777), timeout=1).close()
    except OSError:
        return False
    return True
