"""Number Match through the real stack, with raw gRPC stubs of NumberMatchService: every level
cleared with the hints, Classic's fixed board, the daily puzzle (two players, one board), undo,
the hint limit, a dead end with no moves left, bad input each refused with its own code and
changing nothing, and ``match-audit verify`` replaying the revealed witness.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import io

import grpc
import pytest

from match_audit.cli import main as audit_main
from match_rules.number_match import board as boards
from match_rules.number_match import generate
from match_rules.number_match.board import Level
from tests.e2e.players_concentration import refusal_code
from tests.e2e.players_number_match import Event, NMPlayer, Settings, View


async def audit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.to_thread(audit_main, list(argv), out, out)
    return code, out.getvalue()


async def verified(stack: object, table_id: str) -> str:
    """``match-audit verify <id> --key <ledger.vkey>`` exits 0 for the game; its report."""
    addr = stack.ledger_addr  # type: ignore[attr-defined]
    vkey = str(stack.workdir / "ledger.vkey")  # type: ignore[attr-defined]
    for _ in range(100):  # the ledger publishes a game once it has its last record
        code, output = await audit("verify", table_id, "--addr", addr, "--key", vkey)
        # The ledger serves a game once it has its last record, the seed's reveal after the end.
        if "FAILED_PRECONDITION" not in output and "never revealed" not in output:
            break
        await asyncio.sleep(0.1)
    assert code == 0, output
    return output


async def refused(call: object) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call  # type: ignore[misc]
    details = error.value.details() or ""
    assert details, "a message a person can act on"
    return error.value.code(), refusal_code(error.value), details


LEVELS = {
    Settings.LEVEL_EASY: Level.EASY,
    Settings.LEVEL_MEDIUM: Level.MEDIUM,
    Settings.LEVEL_HARD: Level.HARD,
    Settings.LEVEL_EXPERT: Level.EXPERT,
}


async def test_every_level_is_cleared_with_its_hints_and_the_audit_replays_the_witness(
    stack: object, channel: grpc.aio.Channel
) -> None:
    for wire, level in LEVELS.items():
        ann = NMPlayer(f"Ann {level.value}", channel)
        await ann.create(Settings(level=wire))
        ann.watch()
        started = await ann.wait_for("game_started")
        assert len(started.board) == level.numbers and all(1 <= n <= 9 for n in started.board)
        assert started.additions == level.additions and started.hints == 3
        assert started.witness_commitment and not ann.snapshots()[0].witness
        await ann.clear(hints=3)
        over = await ann.wait_for("game_over")
        assert over.outcome == Event.OUTCOME_CLEARED and over.hints_used == 3
        assert ann.view is not None and ann.view.phase == View.PHASE_GAME_OVER
        assert ann.view.score == over.score >= 150 + 10
        seed = await ann.wait_for_seed()
        assert hashlib.sha256(seed).hexdigest() == ann.snapshots()[0].commitment
        # The board is the one the revealed seed deals, and the witness the one it finds.
        dealt = generate.generate(seed, level)
        assert tuple(started.board) == dealt.board
        assert len(over.witness) == len(dealt.moves)
        report = await verified(stack, ann.table_id)
        assert "ok   witness: replayed" in report, report
        await ann.stop_watch()


async def test_classic_deals_the_paper_games_board_with_additions_without_limit(
    stack: object, channel: grpc.aio.Channel
) -> None:
    bob = NMPlayer("Bob", channel)
    await bob.create(Settings(level=Settings.LEVEL_CLASSIC))
    bob.watch()
    started = await bob.wait_for("game_started")
    digits = [int(d) for d in "123456789" + "".join(str(n) for n in range(11, 20))]
    assert list(started.board) == digits and not started.HasField("additions")
    for _ in range(3):
        await bob.add()
    assert bob.view is not None and not bob.view.HasField("additions_left")
    await bob.end()
    over = await bob.wait_for("game_over")
    assert over.outcome == Event.OUTCOME_GAVE_UP and over.witness
    report = await verified(stack, bob.table_id)
    assert "ok   witness: replayed" in report


async def test_the_daily_puzzle_is_one_board_for_everybody_on_the_same_date(
    stack: object, channel: grpc.aio.Channel
) -> None:
    probe = NMPlayer("Probe", channel)
    await probe.create()
    now_ms = (await probe.hint()).view.server_time_ms
    berlin = 60
    today = (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=now_ms + berlin * 60_000)).date()
    daily = Settings(daily_date=today.isoformat(), utc_offset_minutes=berlin)
    ann, bob = NMPlayer("Ann", channel), NMPlayer("Bob", channel)
    for player in (ann, bob):
        await player.create(daily)
        player.watch()
    a, b = await ann.wait_for("game_started"), await bob.wait_for("game_started")
    assert list(a.board) == list(b.board) and len(a.board) == Level.HARD.numbers
    assert a.daily_date == b.daily_date == today.isoformat() and a.additions == 4
    assert a.witness_commitment == b.witness_commitment
    dealt = generate.generate(generate.daily_seed(today.isoformat()), Level.HARD)
    assert tuple(a.board) == dealt.board  # anyone can deal it again from the date
    # Tomorrow's puzzle is not today's: refused, no table made.
    tomorrow = Settings(
        daily_date=(today + dt.timedelta(days=1)).isoformat(), utc_offset_minutes=berlin
    )
    status, code, details = await refused(NMPlayer("Cy", channel).create(tomorrow))
    assert status == grpc.StatusCode.FAILED_PRECONDITION and code == "daily_not_today"
    assert today.isoformat() in details
    await ann.clear()
    over = await ann.wait_for("game_over")
    assert over.outcome == Event.OUTCOME_CLEARED
    await verified(stack, ann.table_id)
    for player in (ann, bob):
        await player.stop_watch()


async def test_undo_hints_and_bad_input_each_refused_with_its_code_changing_nothing(
    stack: object, channel: grpc.aio.Channel
) -> None:
    cy = NMPlayer("Cy", channel)
    await cy.create(Settings(level=Settings.LEVEL_MEDIUM))
    cy.watch()
    await cy.wait_for("game_started")
    start = (await cy.hint()).view
    status, code, _ = await refused(cy.undo())
    assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, "nothing_to_undo")
    board = cy.board
    # Bad pairs: each refused with its own code, the board unchanged.
    legal = set(boards.pair_moves(board))
    blocked = next(
        (i + 1, j + 1)
        for i in range(len(board))
        for j in range(i + 1, len(board))
        if boards.pairs_with(board[i], board[j]) and (i, j) not in legal
    )
    other = next(
        (i + 1, j + 1)
        for i in range(len(board))
        for j in range(i + 1, len(board))
        if not boards.pairs_with(board[i], board[j])
    )
    for (first, second), want in [
        # the lobby's own check (no cell 0) answers with the rules' slug, as the referee does
        ((0, 1), (grpc.StatusCode.INVALID_ARGUMENT, "cell_out_of_range")),
        ((1, len(board) + 1), (grpc.StatusCode.INVALID_ARGUMENT, "cell_out_of_range")),
        ((2, 2), (grpc.StatusCode.INVALID_ARGUMENT, "same_cell")),
        (other, (grpc.StatusCode.FAILED_PRECONDITION, "not_a_pair")),
        (blocked, (grpc.StatusCode.FAILED_PRECONDITION, "cells_blocked")),
    ]:
        status, code, details = await refused(cy.pair(first, second))
        assert status == want[0], (first, second, details)
        if want[1] is not None:
            assert code == want[1], (first, second, details)
    # Play the hint, then undo it: the board and score come back, the hint stays used.
    assert start.hint.kind == Event.HINT_KIND_PAIR
    played = (await cy.pair(start.hint.first, start.hint.second)).view
    assert played.score > 0 and played.can_undo and played.moves == 1
    back = (await cy.undo()).view
    assert tuple(back.board) == board and back.score == 0 and back.hints_left == 2
    for _ in range(2):
        await cy.hint()
    status, code, _ = await refused(cy.hint())
    assert (status, code) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "hint_limit_reached")
    # An empty cell, once a pair has emptied it.
    i, j = boards.pair_moves(cy.board)[0]
    await cy.pair(i + 1, j + 1)
    status, code, _ = await refused(
        cy.pair(i + 1, next(k for k, n in enumerate(cy.board) if n) + 1)
    )
    assert code == "cell_empty"
    after = cy.view
    await cy.end()
    for call in (cy.undo(), cy.add(), cy.pair(1, 2), cy.hint()):
        status, code, _ = await refused(call)
        assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, "game_over")
    assert after is not None and cy.view is not None
    assert tuple(cy.view.board) == tuple(after.board)
    await verified(stack, cy.table_id)
    await cy.stop_watch()


def _dead_end_seed() -> bytes:
    """A seed whose Expert board a first-pair player leads into a dead end (the rules, played
    here without the stack, find one)."""
    for n in range(50):
        seed = hashlib.sha256(b"dead end %d" % n).digest()
        board = generate.generate(seed, Level.EXPERT).board
        left = Level.EXPERT.additions
        assert left is not None
        while any(board):
            moves = boards.pair_moves(board)
            if moves:
                board, _ = boards.remove_pair(board, *moves[0])
            elif left and boards.can_add(board):
                board, left = boards.add_numbers(board), left - 1
            else:
                return seed
    raise AssertionError("no dead end in 50 boards")


async def test_no_pair_and_no_addition_left_ends_the_game_and_it_can_be_played_again(
    stack: object, channel: grpc.aio.Channel
) -> None:
    seed = await asyncio.to_thread(_dead_end_seed)
    dee = NMPlayer("Dee", channel)
    await dee.create(Settings(level=Settings.LEVEL_EXPERT, replay_seed=seed))
    dee.watch()
    started = await dee.wait_for("game_started")
    assert started.replay
    await dee.first_pairs()
    over = await dee.wait_for("game_over")
    assert over.outcome == Event.OUTCOME_NO_MOVES
    assert dee.view is not None and dee.view.additions_left == 0 and not dee.view.can_undo
    _, code, _ = await refused(dee.undo())
    assert code == "game_over"
    report = await verified(stack, dee.table_id)
    assert "ok   witness: replayed" in report and "not ranked" in report
    # The same board again, from the same seed: this time cleared.
    eve = NMPlayer("Eve", channel)
    await eve.create(Settings(level=Settings.LEVEL_EXPERT, replay_seed=seed))
    eve.watch()
    again = await eve.wait_for("game_started")
    assert list(again.board) == list(started.board)
    await eve.clear()
    assert (await eve.wait_for("game_over")).outcome == Event.OUTCOME_CLEARED
    for player in (dee, eve):
        await player.stop_watch()


async def test_a_witness_changed_in_the_log_fails_the_audit_even_from_a_ledger_that_signs_it(
    stack: object, channel: grpc.aio.Channel, tmp_path: object
) -> None:
    """A compromised ledger rewrites the revealed witness (and signs its rebuilt tree with its
    own key): the witness no longer matches its commitment, and verify says so."""
    from pathlib import Path

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from match.v1 import referee_pb2
    from match_audit import export
    from match_audit.note import Checkpoint, Signer, parse
    from tests.audit.test_tamper import RealGame, compromised_ledger, data

    fay = NMPlayer("Fay", channel)
    await fay.create()
    fay.watch()
    await fay.wait_for("game_started")
    await fay.end()
    await verified(stack, fay.table_id)
    workdir = Path(stack.workdir)  # type: ignore[attr-defined]
    path = Path(str(tmp_path)) / "game.jsonl"
    out = io.StringIO()
    addr = stack.ledger_addr  # type: ignore[attr-defined]
    argv = ["export", fay.table_id, "--addr", addr, "-o", str(path)]
    assert await asyncio.to_thread(audit_main, argv, out, out) == 0, out.getvalue()
    evidence = export.loads(path.read_text().splitlines())
    key = serialization.load_pem_private_key((workdir / "ledger.key").read_bytes(), None)
    assert isinstance(key, Ed25519PrivateKey)
    real = RealGame(
        game=fay.table_id,
        path=path,
        evidence=evidence,
        vkey=(workdir / "ledger.vkey").read_text().strip(),
        signer=Signer(Checkpoint.parse(parse(evidence.checkpoint).text).origin, key),
        early=path,
    )
    records = data(evidence)
    for n, raw in enumerate(records):
        record = referee_pb2.TableRecord.FromString(raw)
        for env in record.events:
            if env.number_match.WhichOneof("event") == "game_over":
                # The first pair's cells changed: an addition ("+") commits no cells, so a
                # witness whose first step is one would come out the same.
                step = next(s for s in env.number_match.game_over.witness if not s.add)
                step.first, step.second = step.second, step.first + 1
                records[n] = record.SerializeToString()
    forged = Path(str(tmp_path)) / "forged.jsonl"
    forged.write_text(export.dumps(compromised_ledger(real, records)))
    out = io.StringIO()
    argv = ["verify", "--offline", str(forged), "--key", real.vkey]
    code = await asyncio.to_thread(audit_main, argv, out, out)
    last = out.getvalue().strip().splitlines()[-1]
    assert code == 1 and last.startswith("FAIL "), out.getvalue()
    assert "witness revealed at the end is not the one committed" in last, last


async def test_every_addition_the_counter_shows_is_made_and_the_audit_reruns_it(
    stack: object, channel: grpc.aio.Channel
) -> None:
    # Issue 31, item 10: on Easy, adding straight away went 27 -> ... -> 432 cells and the fifth
    # was refused (board_full) with one shown left. Now each one the view shows is made.
    fay = NMPlayer("Fay", channel)
    await fay.create(Settings(level=Settings.LEVEL_EASY))
    fay.watch()
    await fay.wait_for("game_started")
    for left in (4, 3, 2, 1, 0):
        reply = await fay.add()
        assert reply.view.additions_left == left
    assert fay.view is not None and len(fay.view.board) == 27 * 2**5 == 864
    _, code, _ = await refused(fay.add())
    assert code == "no_additions_left"
    await fay.end()
    await fay.wait_for("game_over")
    assert "ok   witness: replayed" in await verified(stack, fay.table_id)
    await fay.stop_watch()
