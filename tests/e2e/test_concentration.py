"""Concentration through the real stack: solo, 2 and 6 players, the turn timer, a drop and a
return, a drop and the CPU's takeover, bad input, and the audit of a finished game.

The system clock runs ten times faster here (tests/e2e/conftest.py): a 30 s turn limit is 3 s
of wall time, the CPU's takeover after a drop too. Every player's received messages are checked
for leaks (tests/e2e/players_concentration.py).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
from pathlib import Path

import grpc
import pytest

from match_audit.cli import main as audit_main
from match_rules.concentration import game as concentration
from tests.e2e.players_concentration import CPlayer, Settings, check_no_leaks, refusal_code

SMALL = Settings(
    pictures=Settings.PICTURES_PLAYING_CARDS, cards=24, matching=Settings.MATCHING_RANK
)


async def audit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.to_thread(audit_main, list(argv), out, out)
    return code, out.getvalue()


async def seed_of(player: CPlayer) -> bytes:
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


def faces_from_seed(seed: bytes, settings: Settings) -> list[str]:
    deal = concentration.GAME.deal(seed, concentration.GAME.settings(settings))
    return list(deal.cards)


async def test_solo_a_whole_game_records_tries_and_publishes_a_seed_that_re_deals_it(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann = CPlayer("Ann", channel)
    created = await ann.create(seats=1, settings=SMALL)  # one seat: the game starts at once
    ann.watch()
    started = await ann.wait_for("game_started")
    assert list(started.players) == [ann.player_id] and not started.cpus
    assert started.settings.cards == 24
    await ann.play_to_the_end()
    ended = await ann.wait_for("game_ended")
    (standing,) = ended.standings
    assert standing.player == ann.player_id and standing.place == 1 and standing.pairs == 12
    assert standing.tries >= 12 and not ended.draw
    assert list(ended.winners) == [ann.player_id]
    seed = await seed_of(ann)
    snapshot = ann.snapshots()[0]
    assert hashlib.sha256(seed).hexdigest() == snapshot.commitment
    faces = faces_from_seed(seed, SMALL)
    for flipped in ann.found("card_flipped"):
        assert faces[flipped.card - 1] == flipped.face  # every flip showed the dealt face
    check_no_leaks(ann)
    # After the game: a flip is refused, and says why.
    with pytest.raises(grpc.aio.AioRpcError) as late:
        await ann.flip(1)
    assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refusal_code(late.value) == "game_over"
    assert created.table_id == ann.table_id


async def test_two_players_take_turns_a_pair_keeps_the_turn_and_the_most_pairs_win(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob = CPlayer("Ann", channel), CPlayer("Bob", channel)
    await ann.create(seats=2, settings=SMALL)
    ann.watch()
    await bob.join(ann.table_id)
    bob.watch()
    started = await ann.wait_for("game_started")
    assert list(started.players) == [ann.player_id, bob.player_id]
    assert await ann.my_turn()
    # Out of turn: refused with its own code, nothing changes.
    before = len(ann.events())
    with pytest.raises(grpc.aio.AioRpcError) as out_of_turn:
        await bob.flip(1)
    assert out_of_turn.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refusal_code(out_of_turn.value) == "not_your_turn"
    with pytest.raises(grpc.aio.AioRpcError) as out_of_range:
        await ann.flip(25)
    assert out_of_range.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal_code(out_of_range.value) == "card_out_of_range"
    await ann.flip_seen(1)
    with pytest.raises(grpc.aio.AioRpcError) as twice:
        await ann.flip(1)
    assert refusal_code(twice.value) == "card_face_up"
    assert len(ann.events()) == before + 2  # CardFlipped, SecondCardDue: the refusals added none

    async def plays(player: CPlayer) -> None:
        await player.play_to_the_end()

    # Ann has a card up: finish her attempt by hand, then both play with perfect memory.
    await ann.flip_seen(ann.seen.unknown(besides=1))
    await asyncio.gather(plays(ann), plays(bob))
    ended = await ann.wait_for("game_ended")
    pairs = {s.player: s.pairs for s in ended.standings}
    assert sum(pairs.values()) == 12
    most = max(pairs.values())
    assert set(ended.winners) == {p for p, n in pairs.items() if n == most}
    assert ended.draw == (pairs[ann.player_id] == pairs[bob.player_id])
    # A miss passed the turn; a pair kept it.
    for taken in ann.found("pair_taken"):
        index = ann.events().index(next(e for e in ann.events() if e.pair_taken == taken))
        following = ann.events()[index + 1]
        if following.WhichOneof("event") == "turn_began":
            assert following.turn_began.player == taken.player
    assert ann.found("attempt_missed"), "a perfect memory still misses at first"
    check_no_leaks(ann)
    check_no_leaks(bob)


async def test_six_seats_the_host_against_five_cpu_players(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann = CPlayer("Ann", channel)
    await ann.create(seats=6, settings=SMALL)
    ann.watch()
    await ann.start_table()  # every empty seat gets a CPU player, and the game starts
    started = await ann.wait_for("game_started")
    assert len(started.players) == 6 and started.players[0] == ann.player_id
    assert sorted(started.cpus) == sorted(started.players[1:])
    await ann.play_to_the_end(timeout=180)
    ended = await ann.wait_for("game_ended", timeout=60)
    assert sum(s.pairs for s in ended.standings) == 12
    cpu_flips = [f for f in ann.found("card_flipped") if f.player in started.cpus]
    assert cpu_flips, "the CPU players flipped cards"
    snapshot = ann.snapshots()[0]
    assert sum(1 for seat in snapshot.seats if seat.cpu) == 5
    check_no_leaks(ann)


async def test_the_turn_timer_flips_the_first_card_back_passes_the_turn_and_counts_a_try(
    stack: object, channel: grpc.aio.Channel
) -> None:
    timed = Settings()
    timed.CopyFrom(SMALL)
    timed.turn_limit_ms = 30_000
    ann, bob = CPlayer("Ann", channel), CPlayer("Bob", channel)
    await ann.create(seats=2, settings=timed)
    ann.watch()
    await bob.join(ann.table_id)
    assert await ann.my_turn()
    await ann.flip_seen(5)
    ran_out = await ann.wait_for("time_ran_out", timeout=20)  # 30 s on the system clock
    assert ran_out.player == ann.player_id and ran_out.card == 5 and ran_out.tries == 1
    due = ann.found("second_card_due")[0]
    assert ran_out.at == due.deadline  # stamped with the instant it was due
    turn = await ann.wait_for("turn_began", count=2)
    assert turn.player == bob.player_id
    # Bob's first flip is timed too: nothing up, no try counted.
    ran_out_again = await ann.wait_for("time_ran_out", count=2, timeout=20)
    assert ran_out_again.player == bob.player_id
    assert not ran_out_again.HasField("card") and ran_out_again.tries == 0


async def test_a_dropped_player_returns_to_the_seat_and_resumes_from_the_last_event(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob = CPlayer("Ann", channel), CPlayer("Bob", channel)
    await ann.create(seats=2, settings=SMALL)
    ann.watch()
    await bob.join(ann.table_id)
    bob.watch()
    await ann.wait_for("game_started")
    await bob.wait_for("turn_began")
    last = bob.seen.last
    await bob.stop_watch()  # the connection drops
    dropped = await ann.wait_for("player_dropped", player=bob.player_id, timeout=20)
    assert dropped.takeover_at > dropped.at
    bob.watch(after=last)  # reconnects, resuming after the last event it had
    await ann.wait_for("player_returned", player=bob.player_id, timeout=20)
    await bob.wait_for("player_returned", player=bob.player_id, timeout=20)
    numbers = [i.event.event_number for i in bob.stream if i.WhichOneof("item") == "event"]
    assert numbers == sorted(set(numbers)) and numbers[0] > 0
    assert not ann.found("seat_handed_to_cpu")
    # Bob still plays his own seat.
    assert await ann.my_turn()
    await ann.play_turn()
    check_no_leaks(bob)


async def test_a_player_who_does_not_return_in_time_is_replaced_by_the_cpu(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob = CPlayer("Ann", channel), CPlayer("Bob", channel)
    await ann.create(seats=2, settings=SMALL)
    ann.watch()
    await bob.join(ann.table_id)
    bob.watch()
    await ann.wait_for("game_started")
    await bob.wait_for("game_started")  # his stream is open at the lobby
    await bob.stop_watch()
    dropped = await ann.wait_for("player_dropped", player=bob.player_id, timeout=20)
    handed = await ann.wait_for("seat_handed_to_cpu", player=bob.player_id, timeout=30)
    assert handed.at == dropped.takeover_at
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bob.flip(1)
    assert refusal_code(refused.value) in ("seat_played_by_cpu", "not_your_turn")
    await ann.play_to_the_end(timeout=180)
    ended = await ann.wait_for("game_ended", timeout=60)
    assert sum(s.pairs for s in ended.standings) == 12
    bob_flips = [f for f in ann.found("card_flipped") if f.player == bob.player_id]
    assert any(f.at > handed.at for f in bob_flips), "the CPU played Bob's seat"
    check_no_leaks(ann)


async def test_bad_settings_and_calls_are_refused_with_their_own_codes(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann = CPlayer("Ann", channel)
    for seats, settings, status in (
        (7, SMALL, grpc.StatusCode.INVALID_ARGUMENT),
        (2, Settings(cards=40), grpc.StatusCode.INVALID_ARGUMENT),
        (
            2,
            Settings(pictures=Settings.PICTURES_EMOJI, jokers=True),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (2, Settings(turn_limit_ms=45_000), grpc.StatusCode.INVALID_ARGUMENT),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ann.create(seats=seats, settings=settings)
        assert refused.value.code() == status, refused.value.details()
        assert refused.value.details(), "a message a person can act on"
    await ann.create(seats=2, settings=SMALL)
    with pytest.raises(grpc.aio.AioRpcError) as early:
        await ann.flip(1)
    assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refusal_code(early.value) == "game_not_started"
    bob = CPlayer("Bob", channel)
    await bob.join(ann.table_id)
    stranger = CPlayer("Eve", channel, table_id=ann.table_id, token=bob.token + "x")
    with pytest.raises(grpc.aio.AioRpcError) as forged:
        await stranger.flip(1)
    assert forged.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_finished_game_verifies_in_the_audit_and_a_changed_byte_fails(
    stack: object, channel: grpc.aio.Channel, tmp_path: Path
) -> None:
    ann = CPlayer("Ann", channel)
    await ann.create(seats=3, settings=SMALL)
    ann.watch()
    await ann.start_table()
    await ann.play_to_the_end(timeout=180)
    await ann.wait_for("game_ended", timeout=60)
    await seed_of(ann)
    addr = stack.ledger_addr  # type: ignore[attr-defined]
    vkey = str(stack.workdir / "ledger.vkey")  # type: ignore[attr-defined]
    for _ in range(100):  # the ledger publishes a game once it has its last record
        code, output = await audit("verify", ann.table_id, "--addr", addr, "--key", vkey)
        if "FAILED_PRECONDITION" not in output:
            break
        await asyncio.sleep(0.1)
    assert code == 0, output
    exported = tmp_path / "game.jsonl"
    code, output = await audit("export", ann.table_id, "--addr", addr, "-o", str(exported))
    assert code == 0, output
    code, output = await audit("verify", "--offline", str(exported), "--key", vkey)
    assert code == 0, output
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    records = [line for line in lines if line["type"] == "record"]
    middle = records[len(records) // 2]
    data = bytearray(base64.b64decode(middle["data"]))
    data[len(data) // 2] ^= 0x01  # one bit of one record
    middle["data"] = base64.b64encode(bytes(data)).decode()
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, output = await audit("verify", "--offline", str(tampered), "--key", vkey)
    assert code != 0, output
    assert "PASS" not in output
