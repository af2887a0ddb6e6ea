"""Match Cards through the real stack, with raw gRPC stubs of MatchCardsService: pairs and
triples, a win, a loss by the limit, Hard's notice turned off, a challenge table of two, a replay
from a finished game's printed code, bad input, and the audit of a finished game.

The system clock runs ten times faster here (tests/e2e/conftest.py): the 1.5 s compare is
0.15 s of wall time. Every message each player receives is checked
(tests/e2e/players_match_cards.py):
a picture only of their own card turned or found, never another player's, never a hidden one.
"""

from __future__ import annotations

import asyncio
import hashlib
import io

import grpc
import pytest

from match_audit.cli import main as audit_main
from match_client.match_cards.demo import demo_match_cards
from match_rules.match_cards import code as codes
from match_rules.match_cards.game import GAME
from match_rules.match_cards.settings import Settings as Rules
from tests.e2e.players_concentration import refusal_code
from tests.e2e.players_match_cards import MCPlayer, Settings, check_no_leaks

HARD = Settings.DIFFICULTY_HARD


async def audit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.to_thread(audit_main, list(argv), out, out)
    return code, out.getvalue()


async def verified(stack: object, table_id: str) -> None:
    """``match-audit verify <id> --key <ledger.vkey>`` exits 0 for the game."""
    addr = stack.ledger_addr  # type: ignore[attr-defined]
    vkey = str(stack.workdir / "ledger.vkey")  # type: ignore[attr-defined]
    for _ in range(100):  # the ledger publishes a game once it has its last record
        code, output = await audit("verify", table_id, "--addr", addr, "--key", vkey)
        if "FAILED_PRECONDITION" not in output:
            break
        await asyncio.sleep(0.1)
    assert code == 0, output


async def seed_of(player: MCPlayer) -> bytes:
    """The published seed, from the table's SeedRevealed (after the game)."""

    def revealed() -> bytes | None:
        for item in player.stream:
            event = item.event if item.WhichOneof("item") == "event" else None
            if event is not None and event.table.HasField("seed_revealed"):
                return bytes(event.table.seed_revealed.seed)
        return None

    await player.wait_until(lambda: revealed() is not None, timeout=30)
    seed = revealed()
    assert seed is not None
    return seed


def deal_of(code: str) -> list[str]:
    """The cards a code deals (the dealer's seed plays no part in a replay)."""
    return list(GAME.deal(b"", GAME.settings(Settings(code=code))).cards)


async def refused(call: object) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call  # type: ignore[misc]
    details = error.value.details() or ""
    assert details, "a message a person can act on"
    return error.value.code(), refusal_code(error.value), details


async def test_pairs_solo_a_win_publishes_a_code_with_the_whole_seed_that_replays_the_deal(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann = MCPlayer("Ann", channel)
    await ann.create(seats=1)  # one seat: the game starts as the table is made
    ann.watch()
    started = await ann.wait_for("game_started")
    assert list(started.players) == [ann.player_id]
    assert started.settings.cards == 12 and started.limit == 20
    await ann.play_to_the_end()
    finished = await ann.wait_for("player_finished", player=ann.player_id)
    assert finished.won and finished.groups == 6 and finished.failed < 20
    ended = await ann.wait_for("game_ended")
    assert not ended.replay and ended.code.startswith("MM3-PAEA-")
    (standing,) = ended.standings
    assert standing.player == ann.player_id and standing.place == 1 and standing.won
    # The code carries exactly the revealed seed, committed before play.
    seed = await seed_of(ann)
    assert hashlib.sha256(seed).hexdigest() == ann.snapshots()[0].commitment
    assert codes.parse(ended.code).seed == seed
    deal = deal_of(ended.code)
    for card, picture in ann.faces().items():
        assert deal[card - 1] == picture
    check_no_leaks(ann, deal)
    # After the game: a turn is refused, nothing changes.
    status, code, _ = await refused(ann.turn(1))
    assert status == grpc.StatusCode.FAILED_PRECONDITION and code == "game_over"
    await verified(stack, ann.table_id)

    # A new game from the printed code: the same cards in the same places, a replay.
    bob = MCPlayer("Bob", channel)
    await bob.create(seats=1, settings=Settings(code=ended.code.lower().replace("-", " ")))
    bob.watch()
    again = await bob.wait_for("game_started")
    assert again.settings.code == ended.code and again.settings.cards == 12
    await bob.play_to_the_end()
    ended_again = await bob.wait_for("game_ended")
    assert ended_again.replay and ended_again.code == ended.code
    assert bob.faces() == {c: deal[c - 1] for c in bob.faces()}
    common = set(ann.faces()) & set(bob.faces())
    assert common and all(ann.faces()[c] == bob.faces()[c] for c in common)
    assert set(bob.faces()) == set(range(1, 13))  # every card turned: the whole deal compared
    check_no_leaks(bob, deal)
    await seed_of(bob)
    await verified(stack, bob.table_id)


async def test_triples_hard_a_loss_by_the_limit_with_the_notice_turned_off(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann = MCPlayer("Ann", channel)
    await ann.create(settings=Settings(mode=Settings.MODE_TRIPLES, cards=12, difficulty=HARD))
    ann.watch()
    started = await ann.wait_for("game_started")
    limit = started.limit
    assert limit == 12 and ann.seen.group == 3
    # First attempt: three different cards; a fourth during the compare is refused.
    await ann.wait_until(lambda: ann.seen.size > 0)
    first = [1, 2, 3]
    for card in first:
        await ann.turn(card)
    status, code, _ = await refused(ann.turn(4))
    assert status == grpc.StatusCode.FAILED_PRECONDITION and code == "comparing"
    status, code, _ = await refused(ann.turn(1))
    assert code in ("comparing", "card_turned")
    await ann.wait_until(lambda: bool(ann.found("attempt_failed") or ann.found("group_found")))
    told = (ann.found("attempt_failed") or ann.found("group_found"))[0]
    assert told.notice  # Hard: "Same picture" / "Different pictures"
    await ann.wait_until(lambda: not ann.seen.up)
    reply = await ann.turn_off_notice()
    assert not reply.view.notice_on
    status, code, _ = await refused(ann.turn_off_notice())
    assert code == "notice_already_off"
    await ann.play_to_the_end(forgetful=True)
    finished = await ann.wait_for("player_finished", player=ann.player_id)
    assert not finished.won and finished.failed == limit
    # Every attempt after the first, whichever it was (the first may be a group, by the deal).
    later = [e for e in (*ann.found("attempt_failed"), *ann.found("group_found")) if e != told]
    assert later and not any(e.notice for e in later)  # off for the rest of the game
    ended = await ann.wait_for("game_ended")
    assert ended.code.startswith("MM3-TAHA-") and not ended.standings[0].won
    check_no_leaks(ann, deal_of(ended.code))
    await seed_of(ann)
    await verified(stack, ann.table_id)


async def test_a_challenge_table_of_two_each_sees_only_the_others_progress(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob = MCPlayer("Ann", channel), MCPlayer("Bob", channel)
    await ann.create(seats=2, settings=Settings(cards=20))
    ann.watch()
    _, code, _ = await refused(ann.turn(1))
    assert code == "game_not_started"
    await bob.join(ann.table_id)  # the last seat taken: the game starts
    bob.watch()
    await ann.wait_for("game_started")
    await bob.wait_for("game_started")
    await asyncio.gather(ann.play_to_the_end(), bob.play_to_the_end(forgetful=True))
    ended = await ann.wait_for("game_ended")
    await bob.wait_for("game_ended")
    places = {s.player: s for s in ended.standings}
    assert places[ann.player_id].won and places[ann.player_id].place == 1
    assert places[bob.player_id].place == 2  # fewer groups (a loss) ranks below
    assert ann.found("opponent_progress", player=bob.player_id)
    assert bob.found("opponent_progress", player=ann.player_id)
    deal = deal_of(ended.code)
    check_no_leaks(ann, deal)
    check_no_leaks(bob, deal)
    await seed_of(ann)
    await verified(stack, ann.table_id)


def _well_checked(head: str) -> str:
    """A format 3 code for the settings symbols ``head`` whose check and tag fit."""
    seed = bytes(32)
    tag = codes._tag(head, seed)
    body = "3" + head + "A" * 51 + codes.ALPHABET[tag]
    return "MM" + body + codes.ALPHABET[codes._luhn([codes.ALPHABET.index(c) for c in body])]


async def test_bad_input_is_refused_with_its_own_code_changing_nothing(
    stack: object, channel: grpc.aio.Channel
) -> None:
    good = codes.encode(Rules(), bytes(range(32)))
    ann = MCPlayer("Ann", channel)
    for settings, expected in (
        (Settings(code="MM3-PAEA-NOT-A-CODE"), "code_malformed"),
        (Settings(code=good[:-1] + ("B" if good[-1] != "B" else "C")), "code_check_failed"),
        (Settings(code="MM2-PAEA-AAAAAB6"), "code_version_unknown"),
        (Settings(code=_well_checked("PEEA")), "code_size_unknown"),
        (Settings(cards=18), "invalid_deck_size"),
        (Settings(code=good, cards=20), "code_conflict"),
    ):
        status, code, details = await refused(ann.create(settings=settings))
        assert status == grpc.StatusCode.INVALID_ARGUMENT, details
        assert code == expected, (code, details)
    await ann.create()
    ann.watch()
    await ann.wait_for("game_started")
    await ann.wait_until(lambda: ann.seen.size > 0)
    status, code, _ = await refused(ann.turn(13))
    assert status == grpc.StatusCode.INVALID_ARGUMENT and code == "card_out_of_range"
    status, code, _ = await refused(ann.turn_off_notice())
    assert code == "no_notice"  # Easy has no notice
    # Find a group, then turn one of its cards again.
    while not ann.seen.found:
        await ann.play_attempt()
    before = len(ann.events())
    status, code, _ = await refused(ann.turn(min(ann.seen.found)))
    assert status == grpc.StatusCode.FAILED_PRECONDITION and code == "card_found"
    card = ann.seen.unseen()
    await ann.turn(card)
    await ann.wait_until(lambda: ann.seen.up == [card])
    status, code, _ = await refused(ann.turn(card))
    assert status == grpc.StatusCode.FAILED_PRECONDITION and code == "card_turned"
    await asyncio.sleep(0.3)
    assert len(ann.events()) == before + 1  # only the CardTurned: the refusals added nothing
    check_no_leaks(ann)


async def test_the_demo_prints_id_result_counters_and_a_code_that_replays_the_same_cards(
    stack: object, channel: grpc.aio.Channel
) -> None:
    lines: list[str] = []
    addr = stack.lobby_addr  # type: ignore[attr-defined]
    assert await demo_match_cards(addr, out=lines.append) == 0
    text = "\n".join(lines)
    assert lines[0].startswith("game ") and "result: won" in text
    assert "of 6 groups found" in text and "failed attempts" in text
    printed = next(line for line in lines if line.startswith("game code: "))
    code = printed.removeprefix("game code: ")
    assert codes.parse(code).settings.cards == 12
    # A game started from the printed code: the same cards in the same places.
    ann = MCPlayer("Ann", channel)
    await ann.create(settings=Settings(code=code))
    ann.watch()
    await ann.play_to_the_end()
    assert (await ann.wait_for("game_ended")).replay
    deal = deal_of(code)
    assert ann.faces() == {c: deal[c - 1] for c in range(1, 13)}
    await seed_of(ann)
    game_id = lines[0].removeprefix("game ")
    await verified(stack, game_id)
