"""The bench's scripted games (match_bench.scripts, match_bench.games) and its pure pieces: every
script's moves are legal by the game's own rules on the game's own deal, the games are found by
the registry, the transports, the event loops' alternation and the ``bench:`` line. Pure: no
stack (tests/bench/test_bench_smoke.py runs them on one)."""

from __future__ import annotations

import argparse
import asyncio
import itertools
from pathlib import Path
from typing import Any, cast

import grpc  # type: ignore[import-untyped, unused-ignore]
import pytest

from match.v1 import dealer_pb2, race_service_pb2
from match_bench import games, hops, players, run, transport
from match_bench.scripts.common import grouped
from match_client.session import rpcs
from match_rules import registry
from match_rules.concentration.settings import Matching, pair
from match_rules.match_five import content as five
from match_rules.number_match import board as boards

SEED = bytes(range(32))


def dealt(slug: str, settings: Any = None) -> dealer_pb2.Deal:
    """The game's own deal of ``SEED``, in the dealer's envelope (its member named by slug)."""
    game = registry.by_slug(slug)
    chosen = game.settings(settings if settings is not None else games.script_of(slug).settings())
    deal = dealer_pb2.Deal()
    getattr(deal, slug).CopyFrom(game.deal(SEED, chosen))
    return deal


def commands(slug: str, deal: dealer_pb2.Deal, seat: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """Every command the script sends for ``seat``, each answered."""
    script = games.script_of(slug).Script(deal, games.script_of(slug).SEATS)
    out = []
    while (command := script.next(seat)) is not None:
        out.append(command)
        script.answered(seat, None)
        assert len(out) < 10_000
    return out


def test_every_game_but_the_race_has_a_script_found_by_its_slug() -> None:
    assert games.scripted_slugs() == [s for s in registry.slugs() if s != "race"]
    for slug in games.scripted_slugs():
        module = games.script_of(slug)
        game = registry.by_slug(slug)
        assert game.min_seats <= module.SEATS <= game.max_seats, slug
        game.settings(module.settings())  # the rules take the table's settings as they are
        for name, _ in commands(slug, dealt(slug)):
            assert name in rpcs(slug), (slug, name)


def test_grouping_puts_equal_faces_together_in_first_seen_order() -> None:
    assert grouped(["a", "b", "a", "c", "b", "a"]) == [[1, 3, 6], [2, 5], [4]]


def test_concentration_flips_pairs_that_match_by_the_rules() -> None:
    deal = dealt("concentration")
    faces = list(deal.concentration.cards)
    sent = commands("concentration", deal)
    cards = [fields["card"] for name, fields in sent]
    assert {name for name, _ in sent} == {"FlipCard"}
    assert sorted(cards) == list(range(1, len(faces) + 1))  # every card, once
    for a, b in zip(cards[::2], cards[1::2], strict=True):
        assert pair(faces[a - 1], faces[b - 1], Matching.IDENTICAL), (a, b)


@pytest.mark.parametrize("mode, size", [("MODE_PAIRS", 2), ("MODE_TRIPLES", 3)])
def test_match_cards_turns_whole_groups_and_waits_for_each_comparison(mode: str, size: int) -> None:
    from match.v1 import match_cards_pb2
    from match_rules.match_cards.decide import COMPARE_MS

    deal = dealt("match_cards", match_cards_pb2.MatchCardsSettings(mode=mode))
    faces = list(deal.match_cards.cards)
    script = games.script_of("match_cards").Script(deal, 1)
    turned: list[int] = []
    waits: list[float] = []
    while (command := script.next(0)) is not None:
        turned.append(command[1]["card"])
        script.answered(0, None)
        waits.append(script.pause_s(0))
    assert sorted(turned) == list(range(1, len(faces) + 1))
    for start in range(0, len(turned), size):
        group = {faces[c - 1] for c in turned[start : start + size]}
        assert len(group) == 1, turned[start : start + size]
    # a wait longer than the comparison after each attempt's last card, none inside one
    assert waits == [
        COMPARE_MS / 1000 + 0.1 if (i + 1) % size == 0 else 0.0 for i in range(len(waits))
    ]


def test_number_match_plays_its_deal_to_a_clear_board() -> None:
    deal = dealt("number_match")
    board = tuple(deal.number_match.board)
    for name, fields in commands("number_match", deal):
        if name == "AddNumbers":
            assert boards.can_add(board)
            board = boards.add_numbers(board)
        else:
            i, j = fields["first"] - 1, fields["second"] - 1
            assert (i, j) in boards.pair_moves(board), (i, j)
            board, _ = boards.remove_pair(board, i, j)
    assert boards.is_clear(board)


def test_match_five_writes_and_erases_only_its_own_links() -> None:
    module = games.script_of("match_five")
    deal = dealt("match_five")
    texts: dict[int, set[str]] = {}
    for seat in range(module.SEATS):
        links: dict[int, str] = {}
        sent = commands("match_five", deal, seat)
        assert len(sent) == module.ROUNDS * 2 * len(five.COMBINATIONS)
        for name, fields in sent:
            combination = fields["combination"]
            assert 1 <= combination <= len(five.COMBINATIONS)  # the rules' numbering
            if name == "WriteLink":
                assert combination not in links  # written on an empty combination
                links[combination] = fields["text"]
            else:
                assert name == "EraseLink" and combination in links  # erased: it was there
                del links[combination]
        assert links == {}
        texts[seat] = {f["text"] for n, f in sent if n == "WriteLink"}
        assert len(texts[seat]) == module.COMBINATIONS  # one word per combination: never reused
    assert module.Script(deal, 3).pause_s(0) == 0.0


def test_a_transport_is_made_by_name() -> None:
    assert set(transport.TRANSPORTS) == {"unary", "play", "view"}
    with pytest.raises(
        ValueError, match="no transport 'pigeon'; the bench has \\['play', 'unary', 'view'\\]"
    ):
        transport.make("pigeon", None, "race", "t")


def test_the_unary_transport_sends_commands_not_the_watch() -> None:
    class Channel:
        def unary_unary(self, path: str, **_: Any) -> str:
            return path

    way = transport.make("unary", Channel(), "concentration", "tok")
    assert isinstance(way, transport.Unary)
    assert way._call("FlipCard") == "/match.v1.ConcentrationService/FlipCard"
    with pytest.raises(ValueError, match="streams"):
        way._call("Watch")


async def test_a_viewing_seat_follows_its_view_from_its_first_command_and_counts_it() -> None:
    class Stream:
        def __init__(self, items: int, error: grpc.StatusCode | None) -> None:
            self.items, self.error = items, error
            self.sent: list[Any] = []
            self.view_messages = 0

        async def call(self, rpc: str, request: Any, request_id: str | None) -> str:
            await asyncio.sleep(0.01)  # the view's task runs meanwhile
            self.sent.append(rpc)
            return "reply"

        async def watch(self, after: int, skip_answered: bool = False) -> Any:
            assert after == 0
            assert skip_answered  # as the clients ask: what the replies carried comes once
            for n in range(self.items):
                if n % 2 == 0:  # events two to a message, as a batched view sends a record's
                    self.view_messages += 1
                yield n
            if self.error is not None:
                raise grpc.aio.AioRpcError(self.error, grpc.aio.Metadata(), grpc.aio.Metadata())

        async def close(self) -> None:
            return None

    tally = transport.Viewing.tally = transport.ViewTally()
    seats = []
    for items, error in ((3, None), (1, grpc.StatusCode.RESOURCE_EXHAUSTED)):
        seat = transport.Viewing.__new__(transport.Viewing)
        seat._stream, seat._follow = Stream(items, error), None  # type: ignore[assignment]
        assert await seat.send("PressReady", race_service_pb2.PressReadyRequest()) == "reply"
        seats.append(seat)
    for seat in seats:
        await seat.close()
    assert (tally.items, tally.messages) == (4, 3)  # events 0-1 and 2, then 0
    assert tally.ended == {"ok": 1, "RESOURCE_EXHAUSTED": 1}


def test_the_loops_alternate_and_the_other_wins_only_when_every_step_is_faster() -> None:
    assert run.loop_sequence(2) == ["uvloop", "asyncio", "uvloop", "asyncio"]
    assert run.loop_sequence(0) == []

    def step(loop: str, rate: float, cpu: int) -> dict[str, Any]:
        return {"loop": loop, "turns_per_s": rate, "stack_cpu_us_per_turn": cpu}

    steps = [step("uvloop", 900, 1000), step("asyncio", 700, 1200), step("uvloop", 500, 1400),
             step("asyncio", 800, 1100)]  # fmt: skip
    winner, loops = run.loop_winner(steps)
    assert winner == "uvloop"  # asyncio's mean is higher (750 against 700), its steps overlap
    assert loops["uvloop"] == {
        "turns_per_s": [900, 500], "mean_turns_per_s": 700.0, "stack_cpu_us_per_turn": 1200,
    }  # fmt: skip
    assert loops["asyncio"]["mean_turns_per_s"] == 750.0
    faster = [step("uvloop", 900, 1000), step("asyncio", 950, 900), step("uvloop", 800, 1100),
              step("asyncio", 901, 950)]  # fmt: skip
    assert run.loop_winner(faster)[0] == "asyncio"  # each of its steps beat each of uvloop's
    assert run.loop_winner([step("uvloop", 5, 1), step("asyncio", 5, 1)])[0] == "uvloop"  # tie
    assert run.loop_winner([step("asyncio", 5, 1)])[0] == "asyncio"  # only it ran
    assert run.loop_winner([]) == ("uvloop", {})
    assert run.loop_verdict("uvloop").startswith("uvloop stays")  # never "won" on overlap
    assert run.loop_verdict("asyncio").startswith("asyncio won (every one of its steps beat")


def test_the_bench_line_says_play_is_absent_and_every_games_cpu() -> None:
    def fig(rate: float, cpu: int, **more: Any) -> dict[str, Any]:
        return {"turns_per_s": rate, "stack_cpu_us_per_turn": cpu, "all_cpu_us_per_turn": cpu,
                "service_cpu_us_per_turn": cpu, "mean_in_flight": 63.6, "tables": 40,
                "tables_playing": 9, "concurrency": 64,
                "latency_ms": {"p50": 3.0, "p95": 8.0, "p99": 12.0}, **more}  # fmt: skip

    results: dict[str, Any] = {
        "full_speed": {**fig(812.4, 1900), "transport": "play"},
        "full_speed_unary": {**fig(500.2, 2600), "transport": "unary"},
        "full_speed_view": {**fig(700.4, 2100), "transport": "view", "view_items_per_turn": 2.1,
                            "views_ended": {"ok": 30, "RESOURCE_EXHAUSTED": 2}},
        "bare_chain": fig(2000.0, 600),
        # The p99's tables (1,000, not the ramp's last step): what a turn costs there and how
        # busy the machine was.
        "human_pace": [fig(325, 0, tables=250, turns=4875),
                       fig(1300.4, 1400, tables=1000, cpu_utilisation_cores=1.853, turns=19506),
                       fig(1700, 2000, tables=1500, cpu_utilisation_cores=1.99, turns=25500,
                           latency_ms={"p50": 30.0, "p95": 70.0, "p99": 80.0})],
        "held": {"tables": 11000, "bytes_per_table": 5000},
        "loop_steps": [fig(800, 1900, loop="uvloop"), fig(900, 1700, loop="asyncio")],
        "games": {"concentration": fig(640.2, 2100), "match_five": fig(500, 2500)},
    }  # fmt: skip
    args = argparse.Namespace(p99_ms=50.0, human_tables=1000, group_sync="")
    line = run.summary(results, args)
    assert line == (
        "bench: turns_s=812 cpu_us_per_turn=1900 in_flight=64 p99_ms=12.0 max_tables_50ms=1000 "
        "unary_turns_s=500 unary_cpu_us_per_turn=2600 fixed_in_flight=64 fixed_turns_s=812 "
        "fixed_cpu_us_per_turn=1900 human_turns_s=1300 human_cpu_us_per_turn=1400 "
        "human_cores=1.85 transport=play loop=asyncio "
        "view_turns_s=700 view_cpu_us_per_turn=2100 view_items_per_turn=2.1 views_failed=2 "
        "asyncio_turns_s=900 uvloop_turns_s=800 "
        "concentration_cpu_us=2100 concentration_cmds_s=640 match_five_cpu_us=2500 "
        "match_five_cmds_s=500 ratio=0.406 tables=11000 bytes_per_table=5000"
    )
    # A window without a turn tells no cost per turn (figures() divides by at least one turn,
    # which would print the window's whole CPU).
    idle = {**results, "human_pace": [fig(0, 2_000_000, tables=1000, turns=0)]}
    assert " human_turns_s=0 human_cpu_us_per_turn=0 " in run.summary(idle, args)
    # The stack on one CPU and the load on the other; the load split over two stacks.
    results["pinned_full_speed"] = fig(700.4, 1500)
    results["pinned_human_pace"] = [fig(325, 0, tables=250), fig(900, 0, tables=1000)]
    results["pinned_human_pace"][1]["latency_ms"]["p99"] = 80.0  # over 50 ms at 1,000
    halves = [fig(400, 1400, turns=400), fig(600, 1600, turns=600)]
    results["two_stacks"] = {
        "full_speed": run.joined(halves),
        "human_pace": [
            run.joined([fig(650, 0, tables=500, turns=9), fig(650, 0, tables=500, turns=9)])
        ],
    }
    assert run.summary(results, args) == line + (
        " pinned_turns_s=700 pinned_cpu_us_per_turn=1500 pinned_p99_ms=80.0"
        " pinned_max_tables_50ms=250 two_stacks_turns_s=1000 two_stacks_cpu_us_per_turn=1520"
        " two_stacks_p99_ms=12.0 two_stacks_max_tables_50ms=1000"
    )
    text = run.table_text(results)
    assert (
        "event loop: asyncio won (every one of its steps beat every step of uvloop) "
        "(asyncio 900 turns/s (steps 900)" in text
    )
    assert (
        "full speed over play: 812 turns/s, 1900 us services + NATS per turn, 64 in flight (its "
        "most turns/s); at 64 in flight 812 turns/s, 1900 us, and over unary calls" in text
    )
    assert "right after: 500 turns/s, 2600 us" in text
    assert (
        "human pace at 1000 tables: 1300 turns/s (1.30 a table), 1400 us services + NATS per "
        "turn (a turn wakes every process on its own), 1.85 cores busy with the driver, p99 12.0"
        in text
    )
    assert "(as the apps play): 700 turns/s, 2100 us services + NATS per turn, 2.1 view " in text
    assert "full speed view" in text and "full speed unary" in text
    assert "concentration 2100 us at 640 commands/s, match_five 2500 us at 500" in text


def test_a_scripted_seat_keeps_under_the_lobbys_limit_per_player() -> None:
    from services.lobby.config import DEFAULT_PLAYER_LIMIT

    assert DEFAULT_PLAYER_LIMIT.per_s > games.SEAT_RATE


async def test_a_scripted_seat_sends_at_most_seat_rate_a_second_retries_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twelve commands answered, every third send refused and sent again with no pause of its
    own: 17 sends, none closer to the one before than 1 / SEAT_RATE."""
    monkeypatch.setattr(games, "SEAT_RATE", 40.0)
    monkeypatch.setattr(games, "POLL_S", 0.0)
    sent: list[float] = []

    class Way:
        async def send(self, rpc: str, request: Any) -> str:
            sent.append(asyncio.get_running_loop().time())
            if len(sent) % 3 == 0:
                raise grpc.aio.AioRpcError(
                    grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(), grpc.aio.Metadata()
                )
            return "reply"

    class Script:
        left = 12

        def next(self, seat: int) -> tuple[str, dict[str, Any]] | None:
            return ("FlipCard", {"card": 1}) if self.left else None

        def answered(self, seat: int, reply: Any) -> None:
            self.left -= 1

        def pause_s(self, seat: int) -> float:
            return 0.0

    table = games.Table("concentration", "t", Script(), [Way()])  # type: ignore[list-item]
    sink = players.Sink(limit=asyncio.Semaphore(8))
    assert await games.play_seat(table, 0, sink, asyncio.Event())
    assert len(sent) == 17  # 12 answered, and every third send refused
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert min(gaps) >= 1 / 40.0 - 0.002, gaps


LOOP = "<module> (services/lobby/__main__.py:3);Runner.run (asyncio/runners.py:118)"


def test_a_turns_samples_are_split_into_hops_by_their_innermost_known_frame() -> None:
    """A sample goes to the first hop whose frame it holds (the request to the referee inside
    the answer is hop 3, not the edge's), one with nothing of ours below the loop to the C side,
    and the shares add up to 100; in microseconds, each share of the process's CPU per turn."""
    answer = f"{LOOP};GameServicer._read (services/lobby/playing.py:344)"
    answer += ";GameServicer._answer (services/lobby/playing.py:390)"
    collapsed = "\n".join(
        [
            f"{answer};GameServicer.forward (x.py:1);Referee.game (services/lobby/referee.py:9) 30",
            f"{answer};validation.random_looking (services/lobby/validation.py:142) 20",
            f"{answer};GameServicer._may_see (services/lobby/playing.py:500) 10",
            f"{LOOP} 35",
            "Thread._bootstrap (threading.py:1002);Thread.run (threading.py:982) 5",
            "not a stack line",
        ]
    )
    shares = hops.split(collapsed, "lobby")
    assert shares == {
        hops.C_SIDE: 35.0,
        "3. the NATS request to the referee": 30.0,
        "2. the edge: token, limits, validation, copies": 20.0,
        "2. the edge: the leak check": 10.0,
        "1. gRPC's threads": 5.0,
    }
    assert hops.split("", "lobby") == {}
    profile = {"lobby": {"hops_pct": shares}, "ledger": {"error": "py-spy failed"}}
    phase = {"turns": 1000, "cpu_s": {"lobby": 0.4, "ledger": 0.1}}
    split = hops.of_phase(profile, phase)
    assert split == {
        "lobby": {
            hops.C_SIDE: 140,
            "3. the NATS request to the referee": 120,
            "2. the edge: token, limits, validation, copies": 80,
            "2. the edge: the leak check": 40,
            "1. gRPC's threads": 20,
        }
    }
    assert hops.of_phase(profile, {"turns": 0, "cpu_s": {}}) == {}


def test_every_hops_frame_names_code_that_exists() -> None:
    """The hops name frames by function, class or file: each must still be in the code, or a
    rename would quietly move its samples to another hop."""
    root = Path(__file__).resolve().parents[2]
    files = [p for d in ("services", "libs") for p in (root / d).rglob("*.py")]
    code = "\n".join(p.read_text() for p in files)
    libraries = ("nats/aio/", "nats/js/", "threading.py", "Msg.respond")  # py-spy names them
    for process, hop, frames in hops.HOPS:
        for frame in frames:
            if frame in libraries:
                continue
            if frame.endswith(".py"):
                assert any(p.as_posix().endswith(frame) for p in files), (process, hop, frame)
                continue
            name = frame.split(" (")[0].rstrip(".").split(".")[-1]
            defined = f"class {name}" if frame.endswith(".") else f"def {name}("
            assert defined in code, (process, hop, frame)


async def test_the_saturation_ramp_doubles_until_two_steps_gain_nothing_and_the_line_takes_its_best(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On its own stack: full speed at 64 in flight, then 128, 256, ... The ramp stops after two
    doublings in a row that beat the best step before by less than 5 % (one may be a noisy
    moment), or at --saturate-to. The line's turns_s, CPU and in flight are its best step's,
    fixed_* the main stack's full speed (another stack: never the best)."""
    rates: dict[int, float] = {}
    asked: list[tuple[int, int]] = []

    def fig(rate: float, cpu: int, flight: float, concurrency: int) -> dict[str, Any]:
        return {"turns_per_s": rate, "stack_cpu_us_per_turn": cpu, "all_cpu_us_per_turn": cpu,
                "service_cpu_us_per_turn": cpu, "mean_in_flight": flight, "tables": 40,
                "concurrency": concurrency,
                "latency_ms": {"p50": 3.0, "p95": 8.0, "p99": 12.0}}  # fmt: skip

    class Stepped(run.Bench):
        async def full_speed(
            self, channels: Any, key: str = "full_speed", tables: int | None = None,
            warmup: float | None = None, seconds: float | None = None,
            concurrency: int | None = None,
        ) -> dict[str, Any]:  # fmt: skip
            assert concurrency is not None and tables is not None
            asked.append((concurrency, tables))
            out = self.results[key] = fig(rates[concurrency], 100_000 // concurrency,
                                          concurrency - 2, concurrency)  # fmt: skip
            return out

    full = fig(3000.0, 1200, 62.1, 64)  # the main stack had a fast moment
    bench = Stepped(
        run.parse(["--tables", "300", "--max-tables", "800"]), cast(Any, None), cast(Any, None),
        Path("."), {},
    )  # fmt: skip

    async def ramp(**at: float) -> list[int]:
        rates.clear()
        rates.update({int(k[1:]): v for k, v in at.items()})
        asked.clear()
        bench.results = {"full_speed": full}
        await bench.saturate(cast(Any, None))
        assert "saturation_step" not in bench.results
        steps = bench.results["saturation"]
        assert [s["concurrency"] for s in steps] == [c for c, _ in asked]
        return [c for c, _ in asked]

    # 512 gained 2.8 % on 256, 1,024 fell below it: two in a row, the ramp stops; the best is
    # 512's. Twice the slots in tables, at least --tables, at most --max-tables.
    assert await ramp(c64=1100, c128=1400, c256=1800, c512=1850, c1024=1820) == [
        64, 128, 256, 512, 1024,
    ]  # fmt: skip
    assert asked == [(64, 300), (128, 300), (256, 512), (512, 800), (1024, 800)]
    assert run.saturated(bench.results)["concurrency"] == 512
    # A step that fell back alone does not end it: 1,024 beat the best (256's) by 11 %.
    assert await ramp(c64=1100, c128=1400, c256=1800, c512=1700, c1024=2000, c2048=2010) == [
        64, 128, 256, 512, 1024, 2048,
    ]  # fmt: skip
    assert run.saturated(bench.results)["concurrency"] == 2048
    assert "still rising" not in capsys.readouterr().out  # 2,048 gained under 5 %
    line = run.summary(
        {**bench.results, "bare_chain": fig(2000.0, 600, 64, 64),
         "human_pace": [{**fig(1300, 0, 3, 0), "tables": 1000, "turns": 19500}],
         "held": {"tables": 1, "bytes_per_table": 1}},
        argparse.Namespace(p99_ms=50.0, human_tables=1000, group_sync=""),
    )  # fmt: skip
    assert line.startswith(
        "bench: turns_s=2010 cpu_us_per_turn=48 in_flight=2046 p99_ms=12.0 max_tables_50ms=1000 "
        "unary_turns_s=0 unary_cpu_us_per_turn=0 fixed_in_flight=64 fixed_turns_s=3000 "
        "fixed_cpu_us_per_turn=1200 human_turns_s=1300 human_cpu_us_per_turn=0 human_cores=0.00 "
    ), line
    assert "ratio=1.500 " in line  # the main stack's full speed against its bare chain
    # Every doubling gained up to --saturate-to: the ramp stops there and says so.
    bench.args = run.parse(["--saturate-to", "256"])
    assert await ramp(c64=1000, c128=1200, c256=1500) == [64, 128, 256]
    assert "stopped at --saturate-to 256, still rising" in capsys.readouterr().out
    # Without the ramp (--saturate-to under twice --concurrency: amain starts no stack for
    # it), the main stack's full speed is the best.
    assert run.saturated({"full_speed": full}) is full


def test_a_window_without_a_turn_has_no_cost_per_turn() -> None:
    """A step that stalled (no turn answered in its window) shows 0 us a turn, not the window's
    whole CPU as the cost of one turn; a window with turns divides by them."""
    cpu = {"lobby": 2.0, "referee": 1.0, "nats": 0.5, "driver": 0.25}
    stalled = run.Bench.figures(cast(Any, None), players.Stats(), 5.0, cpu, 2048.0)
    assert stalled["turns"] == 0 and stalled["turns_per_s"] == 0
    assert stalled["stack_cpu_us_per_turn"] == stalled["all_cpu_us_per_turn"] == 0
    assert stalled["cpu_utilisation_cores"] == 0.75
    played = run.Bench.figures(cast(Any, None), players.Stats([0.01] * 1000), 5.0, cpu, 64.0)
    assert played["stack_cpu_us_per_turn"] == 3500 and played["driver_cpu_us_per_turn"] == 250
