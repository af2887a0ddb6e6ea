"""``match-audit replay`` over records built with each game's own package (no services): the
race's timeline, board by board, exactly as it has always been printed; Concentration's, every
flip with its face, the pairs, the misses, time running out, a drop, a return, the CPU taking a
seat over and the end with the standings. The replay names no game: the table's TableCreated
does."""

from __future__ import annotations

import io
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import concentration_command_pb2, concentration_pb2, race_command_pb2
from match_audit import export, merkle
from match_audit.cli import main
from match_audit.note import Checkpoint, Signer, sign_checkpoint
from match_audit.replay import timeline
from match_audit.verify import Entry, Evidence
from match_rules.game import SeatInfo
from match_rules.registry import by_slug
from tests.audit.replay_records import (
    TABLE,
    Command,
    Presence,
    Tick,
    UntilOver,
    table_records,
)

T = 1_700_000_000_000  # the host starts the game


# --- the race: the output is as it was before the seam --------------------------------------


def _race(at: int, **command: object) -> Command:
    return Command(at, race_command_pb2.RaceCommand(**command))  # type: ignore[arg-type]


def race_records() -> list:  # type: ignore[type-arg]
    t0 = T + 3_200  # board 1's T0: both Ready at once, then the countdown
    steps = [
        _race(T + 100, player_id="ann", press_ready={}),
        _race(T + 200, player_id="bob", press_ready={}),
        Tick(T + 10_000),
        Tick(t0),
        *(_race(t0 + 1_000 * i, player_id="ann", turn_tile={"tile": i}) for i in (1, 2, 4, 5, 3)),
        _race(t0 + 6_000, player_id="ann", request_hint={}),
        _race(t0 + 7_000, player_id="ann", turn_tile={"tile": 12}),
        _race(t0 + 7_100, player_id="ann", turn_tile={"tile": 7}),
        _race(t0 + 9_000, player_id="bob", turn_tile={"tile": 0}),
        _race(t0 + 9_500, player_id="bob"),
        _race(t0 + 10_000, player_id="bob", request_hint={}),
        _race(t0 + 20_000, player_id="ann", resign={}),
        _race(t0 + 21_000, player_id="bob", resign={}),
    ]
    seats = [SeatInfo(1, "ann", "Ann", False), SeatInfo(2, "bob", "Bob", True)]
    return table_records(by_slug("race"), bytes(32), None, seats, T, steps)


# What ``match-audit replay`` printed for these records before it went behind the seam (main at
# 580d651), line for line: trailing blanks and all.
RACE_TIMELINE = Path(__file__).with_name("test_replay_race.txt")


def test_the_race_replays_board_by_board_as_it_always_has() -> None:
    """The timeline printed before the replay went behind the seam, line for line."""
    assert timeline("g1", race_records()) == RACE_TIMELINE.read_text("utf-8").splitlines()


# --- Concentration ----------------------------------------------------------------------------

SEED = bytes(range(32))
# This seed deals 24 emoji cards: card 1 and card 9 are both bread, 2 is fish and 3 a lion.
CONCENTRATION = concentration_pb2.ConcentrationSettings(cards=24, turn_limit_ms=30_000)


def _flip(at: int, card: int, player: str = "ann") -> Command:
    return Command(
        at,
        concentration_command_pb2.ConcentrationCommand(player_id=player, flip_card={"card": card}),
    )


def concentration_records() -> list:  # type: ignore[type-arg]
    """Ann and a CPU: Ann drops and comes back, takes a pair, flips a taken card (refused),
    misses; the CPU plays; a flip sent for the CPU's seat is refused; Ann's time runs out, she
    drops again and the CPU takes her seat; the CPU plays both seats to the end."""
    steps = [
        Presence(T + 500, "ann", False),
        Presence(T + 800, "ann", True),
        _flip(T + 1_000, 1),
        _flip(T + 2_000, 9),
        _flip(T + 2_500, 9),
        _flip(T + 3_000, 2),
        _flip(T + 4_000, 3),
        Tick(T + 10_000),
        _flip(T + 10_500, 1, "cpu1"),
        Presence(T + 11_000, "ann", False),
        UntilOver(),
    ]
    seats = [SeatInfo(1, "ann", "Ann", False), SeatInfo(2, "cpu1", "Robot", True)]
    return table_records(by_slug("concentration"), SEED, CONCENTRATION, seats, T, steps)


def test_a_concentration_game_replays_with_every_flip_its_face_and_the_standings() -> None:
    records = concentration_records()
    lines = timeline("g2", records)
    text = "\n".join(lines)
    assert lines[:3] == [f"game g2: {len(records)} records", "players: Ann, Robot (bot)", ""]
    table = lines.index("table (times from 2023-11-14 22:13:19.000 UTC)")
    assert lines[table + 1] == (
        "         +0 ms  Ann made the table: 2 seats, open, 24 cards of emoji, identical cards "
        "pair, 30000 ms a turn"
    )
    play = lines.index("play (T0 = 2023-11-14 22:13:20.000 UTC)")
    assert lines[play + 1 : play + 20] == [
        "         +0 ms  the game starts: Ann, Robot (bot) in turn order; 24 cards of emoji, "
        "identical cards pair, 30000 ms a turn; dealt with concentration-deal-v1",
        "         +0 ms  Ann's turn, until +30,000 ms",
        "       +500 ms  Ann's connection drops: the CPU takes the seat at +30,500 ms unless "
        "they come back",
        "       +800 ms  Ann is back",
        "     +1,000 ms  Ann flips card 1: bread",
        "     +1,000 ms  Ann is to flip a second card: until +31,000 ms",
        "     +2,000 ms  Ann flips card 9: bread",
        "     +2,000 ms  Ann takes the pair: cards 1 and 9 (1 pair, 1 try) and flips again",
        "     +2,000 ms  Ann's turn, until +32,000 ms",
        "     +2,500 ms  Ann flips card 9: refused, card_taken (card 9 was taken; its place "
        "stays empty)",
        "     +3,000 ms  Ann flips card 2: fish",
        "     +3,000 ms  Ann is to flip a second card: until +33,000 ms",
        "     +4,000 ms  Ann flips card 3: lion",
        "     +4,000 ms  Ann misses with cards 2 and 3 (2 tries): they show until +5,500 ms",
        "     +5,500 ms  cards 2 and 3 turn face down",
        "     +5,500 ms  Robot (bot)'s turn, until +35,500 ms",
        "     +6,200 ms  Robot (bot) flips card 8: rocket",
        "     +6,200 ms  Robot (bot) is to flip a second card: until +36,200 ms",
        "     +6,900 ms  Robot (bot) flips card 15: cake",
    ]
    for line in (
        "    +10,500 ms  Robot (bot) flips card 1: refused, seat_played_by_cpu (the CPU plays "
        "this seat: it was a CPU seat from the start, or its player did not come back in time)",
        "    +11,000 ms  Ann's connection drops: the CPU takes the seat at +41,000 ms unless "
        "they come back",
        "    +38,400 ms  Ann's time runs out before a card is flipped",
        "    +41,000 ms  the CPU plays Ann's seat from now on",
    ):
        assert line in lines, line
    end = lines.index("end of the game (times from the start of play)")
    assert lines[end + 1 :] == [
        "   +111,800 ms  the game ends: Robot (bot) won",
        f"   +111,800 ms  seed revealed: {SEED.hex()}",
        "  standings:",
        "      1. Robot (bot): 7 pairs, 18 tries",
        "      2. Ann: 5 pairs, 16 tries",
    ]
    # every flip shows the face the deal gave its card, every card is taken by the end
    cards = by_slug("concentration").deal(SEED, CONCENTRATION).cards
    flips = [line.split("flips card ")[1] for line in lines if "flips card" in line]
    shown = [f.split(": ") for f in flips if "refused" not in f]
    assert all(face == cards[int(card) - 1] for card, face in shown)
    assert text.count("takes the pair") == 12
    assert "race" not in text.lower() and "board" not in text


def test_the_cli_replays_a_concentration_export(tmp_path: Path) -> None:
    """``match-audit replay --offline`` on a signed export of the game's records."""
    records = concentration_records()
    signer = Signer("match.test/ledger", Ed25519PrivateKey.generate())
    leaves = [r.SerializeToString() for r in records]
    tree = merkle.LeafList([merkle.leaf_hash(leaf) for leaf in leaves])
    size = len(leaves)
    note = sign_checkpoint(
        Checkpoint(signer.name, size, merkle.subtree_root(tree, 0, size)), signer
    )
    entries = tuple(
        Entry(i, i + 1, leaf, tuple(merkle.inclusion_proof(tree, i, size)))
        for i, leaf in enumerate(leaves)
    )
    path = tmp_path / "game.jsonl"
    path.write_text(export.dumps(Evidence(TABLE, note, str(signer.verifier), entries)))
    out = io.StringIO()
    assert main(["replay", "--offline", str(path)], out=out) == 0
    printed = out.getvalue().splitlines()
    assert printed[0].startswith("(from ") and printed[1:] == timeline(TABLE, records)
    out = io.StringIO()
    assert main(["verify", "--offline", str(path), "--key", str(signer.verifier)], out=out) == 0


def test_what_the_game_cannot_tell_is_shown_as_it_is_on_the_wire() -> None:
    """The replay reads, it does not verify: an event the game cannot read, and a log with no
    TableCreated (no game known), are printed as wire text, never a traceback."""
    records = race_records()
    records[3].events[0].race.Clear()  # an event with nothing set: the codec cannot read it
    lines = timeline("g1", records)
    assert any(line.endswith("unreadable: ") for line in lines)
    headless = timeline("g1", records[1:])  # the table's creation missing: no game known
    assert "end of the game" not in headless[-1]
    assert any("race {" in line for line in headless)
