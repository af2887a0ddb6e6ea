"""Concentration in the client: ``--game`` on the command line, the tracker and its lines (pure),
``match play --game concentration --plain`` played to its end through the real stack, driven
only by the lines it prints, and the demo playing a whole game through it (``make demo
GAME=concentration``)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from match.v1 import common_pb2, concentration_pb2
from match_client import cli, concentration, demo, terminal
from match_client.concentration import DOWN, TAKEN, UP, Card
from match_client.concentration import demo as concentration_demo
from match_client.concentration.screen import card_label
from match_client.programs import runnable
from match_launch.stack import Stack
from tests.client.test_number_match_client import Lines
from tests.conftest import running

E = concentration_pb2.ConcentrationEvent
Settings = concentration_pb2.ConcentrationSettings


def args(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


# --- the command line ----------------------------------------------------------------------


def test_play_takes_the_game_and_its_options() -> None:
    a = args("play", "--game", "concentration", "--new", "--seats", "3", "--fill-now")
    assert (a.game, a.seats, a.fill_now) == ("concentration", 3, True)  # type: ignore[attr-defined]
    assert cli.play_problem(a) is None  # type: ignore[arg-type]
    b = args("play", "--new")
    assert b.game == "race"  # type: ignore[attr-defined]
    c = args(
        "play", "--game", "concentration", "--new", "--cards", "24", "--playing-cards",
        "--jokers", "--matching", "rank", "--turn-limit", "30",
    )  # fmt: skip
    assert cli.play_problem(c) is None  # type: ignore[arg-type]
    settings = concentration.settings_from(24, True, True, "rank", 30)
    assert settings == Settings(
        pictures=Settings.PICTURES_PLAYING_CARDS,
        cards=24,
        jokers=True,
        matching=Settings.MATCHING_RANK,
        turn_limit_ms=30_000,
    )
    with pytest.raises(SystemExit):
        args("play", "--game", "chess", "--new")


def test_a_games_options_go_with_that_game_only() -> None:
    race_with_cards = args("play", "--new", "--cards", "24")
    assert cli.play_problem(race_with_cards) == (  # type: ignore[arg-type]
        "--cards only goes with --game concentration or --game match-cards"
    )
    conc_with_hints = args("play", "--game", "concentration", "--new", "--hints", "2")
    assert cli.play_problem(conc_with_hints) == "--hints only goes with --game race"  # type: ignore[arg-type]
    joined_with_cards = args("play", "--game", "concentration", "--table", "abc", "--cards", "24")
    assert cli.play_problem(joined_with_cards) == "--cards only goes with --new"  # type: ignore[arg-type]


def test_the_demo_takes_the_game() -> None:
    parser_help = demo.__doc__ or ""
    assert "--game concentration" in parser_help


# --- the tracker and its lines -------------------------------------------------------------


def env(number: int, **event: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        event_number=number, concentration=E(**event), game_kind=common_pb2.GAME_KIND_CONCENTRATION
    )


def test_the_tracker_follows_flips_pairs_misses_drops_and_the_end() -> None:
    t = concentration.ConcentrationTracker(player="ann", table_id="t1")
    settings = Settings(cards=24)
    new = t.apply_events(
        [
            env(
                1,
                game_started=E.GameStarted(players=["ann", "cpu"], cpus=["cpu"], settings=settings),
            ),
            env(2, turn_began=E.TurnBegan(player="ann")),
            env(3, card_flipped=E.CardFlipped(player="ann", card=1, face="A")),
            env(4, card_flipped=E.CardFlipped(player="ann", card=2, face="B")),
            env(
                5,
                attempt_missed=E.AttemptMissed(player="ann", cards=[1, 2], tries=1, turn_down_at=9),
            ),
        ]
    )
    assert len(new) == 5 and t.size == 24 and t.up == [1, 2] and not t.my_turn
    assert t.apply_events([env(5)]) == []  # once only
    t.apply_events(
        [
            env(6, cards_turned_down=E.CardsTurnedDown(cards=[1, 2])),
            env(7, turn_began=E.TurnBegan(player="cpu", deadline=100)),
            env(8, card_flipped=E.CardFlipped(player="cpu", card=3, face="A")),
            env(9, card_flipped=E.CardFlipped(player="cpu", card=4, face="B")),
            env(10, attempt_missed=E.AttemptMissed(player="cpu", cards=[3, 4], tries=1)),
            env(11, cards_turned_down=E.CardsTurnedDown(cards=[3, 4])),
            env(12, player_dropped=E.PlayerDropped(player="cpu", takeover_at=50)),
            env(13, turn_began=E.TurnBegan(player="ann")),
        ]
    )
    assert t.up == [] and t.cards[1].face == "" and t.faces[1] == "A"  # down: no face shown
    assert t.known_pair() == (1, 3) and t.my_turn and 5 in t.unknown()
    assert t.seat("cpu") is not None and t.seat("cpu").takeover_at_ms == 50  # type: ignore[union-attr]
    t.apply_events([env(14, card_flipped=E.CardFlipped(player="ann", card=1, face="A"))])
    assert t.partner_of(1) == 3
    t.apply_events(
        [
            env(15, card_flipped=E.CardFlipped(player="ann", card=3, face="A")),
            env(16, pair_taken=E.PairTaken(player="ann", cards=[1, 3], pairs=1, tries=2)),
            env(17, seat_handed_to_cpu=E.SeatHandedToCpu(player="cpu")),
        ]
    )
    assert t.cards[1].state == concentration.TAKEN and t.cards[1].taken_by == "ann"
    lines = concentration.seat_lines(t)
    assert lines == ["you: 1 pair, 2 tries (to play)", "cpu: 0 pairs, 1 try (CPU)"]
    board = concentration.board_lines(t)
    assert len(board) == 4 and "·" in board[0] and "[  2  ]" in board[0]  # 6 across, 4 rows
    standing = concentration_pb2.ConcentrationStanding
    t.apply_events(
        [
            env(
                18,
                game_ended=E.GameEnded(
                    standings=[standing(player="ann", place=1, pairs=7, tries=9)],
                    winners=["ann"],
                ),
            )
        ]
    )
    assert t.game_over and concentration.standings_lines(t)[1] == (
        "  1. you: 7 pairs, 9 tries (winner)"
    )
    assert concentration.clock_line(t, 0) == "the game is over"


def test_a_reply_ahead_of_the_stream_waits_for_the_events_before_it() -> None:
    """A command's reply (event 5) can come before the stream has brought the event ahead of it
    (4: the other player's flip): 5 waits, and both are folded in order once 4 comes, rather than
    4 being passed over as seen (every follower of match_client.following)."""
    t = concentration.ConcentrationTracker(player="ann", table_id="t1")
    started = E.GameStarted(players=["ann", "bob"], settings=Settings(cards=24))
    t.apply_events(
        [
            env(1, game_started=started),
            env(2, turn_began=E.TurnBegan(player="bob")),
            env(3, card_flipped=E.CardFlipped(player="bob", card=1, face="A")),
        ]
    )
    reply = [env(5, card_flipped=E.CardFlipped(player="ann", card=3, face="C"))]
    assert t.apply_events(reply) == [] and t.event_number == 3 and t.faces.get(3) is None
    stream = [env(4, card_flipped=E.CardFlipped(player="bob", card=2, face="B")), *reply]
    assert [e.event_number for e in t.apply_events(stream)] == [4, 5]
    assert t.event_number == 5 and t.faces[2] == "B" and t.faces[3] == "C"
    assert t.apply_events(stream) == [] and not t.waiting  # each once


def test_a_snapshot_covers_what_waited_and_what_follows_it_is_folded() -> None:
    t = concentration.ConcentrationTracker(player="ann", table_id="t1")
    t.apply_events([env(1, game_started=E.GameStarted(players=["ann"], settings=Settings()))])
    t.apply_events([env(3, turn_began=E.TurnBegan(player="ann")), env(5, turn_began=E.TurnBegan())])
    assert t.event_number == 1 and sorted(t.waiting) == [3, 5]
    t.event_number = 4  # what apply_snapshot does with the snapshot's number
    assert [e.event_number for e in t.apply_events([])] == [5] and not t.waiting


def test_a_snapshot_replaces_the_table_and_a_face_down_card_shows_no_face() -> None:
    View = concentration_pb2.ConcentrationView
    t = concentration.ConcentrationTracker(player="bob")
    view = View(
        table_id="t1",
        event_number=40,
        phase=View.PHASE_PLAYING,
        settings=Settings(cards=24),
        turn="ann",
        deadline_ms=5_000,
        cards=[
            View.Card(card=1, state=View.CARD_STATE_DOWN),
            View.Card(card=2, state=View.CARD_STATE_UP, face="K"),
            View.Card(card=3, state=View.CARD_STATE_TAKEN, face="Q", taken_by="ann"),
        ],
        seats=[View.Seat(player="ann", display_name="Ann", pairs=1), View.Seat(player="bob")],
    )
    t.apply_snapshot(view)
    assert t.event_number == 40 and t.faces == {2: "K", 3: "Q"} and t.name("ann") == "Ann"
    assert concentration.clock_line(t, 2_000) == "Ann's turn: 3 s left to flip"
    assert concentration.columns(52) == 13 and concentration.columns(36) == 9


# --- through the real stack -------------------------------------------------------------------


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    anchor = str(int(time.time() * 1000))
    clock = {"REFEREE_CLOCK_RATE": "10", "REFEREE_CLOCK_ANCHOR_MS": anchor}
    for name, value in clock.items():  # the demo's player reads the system clock from here
        monkeypatch.setenv(name, value)
    s = Stack(tmp_path / "stack", services=("dealer", "referee", "lobby", "ledger"), env=clock)
    yield from running(s)


async def test_the_demo_plays_a_whole_concentration_game_and_prints_the_seed(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await asyncio.wait_for(
        concentration_demo.demo_concentration(stack.lobby_addr, pace=0.05, seed=7, seats=3), 240
    )
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("game ")
    assert "final standings:" in lines
    assert any(line.startswith("published seed: ") for line in lines), out
    assert "its SHA-256 matches the commitment" in lines
    assert any("show the same faces" in line for line in lines), out
    assert lines[-1].startswith(
        f"check this game against the ledger: {runnable('match-audit')} verify "
    )


FLIPPED = re.compile(r"^you flipped card (\d+): (.+)$")


async def test_match_play_plain_plays_a_solo_game_to_the_verify_command(
    stack: Stack, tmp_path: Path
) -> None:
    """The newcomer's game: ``match play --game concentration --new --seats 1 --cards 24``,
    played from the lines it prints (the faces of the cards flipped, remembered), ends with the
    published seed checked and then the exact ``match-audit verify`` command for the game."""
    env = {**os.environ, "MATCH_STATE_DIR": str(tmp_path / "state"), "MATCH_PLAIN": "1"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "match_client.cli", "--addr", stack.lobby_addr, "play",
        "--game", "concentration", "--new", "--seats", "1", "--cards", "24", "--name", "Ann",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out = Lines(proc)
    try:
        table = re.match(r"table (\w+), your seat 1, as Ann", await out.until("table "))
        assert table is not None, out.lines
        seen: dict[int, str] = {}  # the face of every card flipped and not taken
        taken: set[int] = set()

        async def flip(card: int) -> str:
            await out.type(str(card))
            m = FLIPPED.match(await out.until("you flipped card ", "refused"))
            assert m is not None and int(m[1]) == card, out.lines[-5:]
            seen[card] = m[2]
            return m[2]

        while await out.until("your turn", "the game is over") == "your turn":
            by_face: dict[str, list[int]] = {}
            for card, face in seen.items():
                by_face.setdefault(face, []).append(card)
            pair = next((cards[:2] for cards in by_face.values() if len(cards) > 1), None)
            unseen = [c for c in range(1, 25) if c not in seen and c not in taken]
            if pair is None:
                first = unseen.pop(0)
                face = await flip(first)
                second = next((c for c, f in seen.items() if f == face and c != first), None)
                pair = [first, second if second is not None else unseen[0]]
                await flip(pair[1])
            else:
                for card in pair:
                    await flip(card)
            if (await out.until("you took a pair", "you missed")).startswith("you took a pair"):
                taken.update(pair)
                for card in pair:
                    del seen[card]
        assert len(taken) == 24, out.lines
        assert (await out.until("published seed: ")).endswith(" (concentration-deal-v1)")
        assert await out.next() == "its SHA-256 matches the commitment"
        audit = await out.next()
        assert audit == terminal.audit_line(table[1], terminal.Settings.from_env(env))
        assert audit.startswith(
            f"check this game against the ledger: {runnable('match-audit')} verify {table[1]} "
        )
        assert await asyncio.wait_for(proc.wait(), 30) == 0  # the game is over: it ends
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def test_an_up_picture_shows_its_emoji_where_the_terminal_draws_them() -> None:
    mouse = Card(7, UP, "mouse")
    assert card_label(mouse, emoji=True) == "\U0001f42d"
    assert card_label(mouse, emoji=False) == "mouse"
    assert card_label(Card(3, UP, "QH"), emoji=True) == "QH"  # a playing card stays as it is
    assert card_label(Card(9, DOWN), emoji=True) == "9"
    assert card_label(Card(9, TAKEN, "mouse"), emoji=True) == "·"
