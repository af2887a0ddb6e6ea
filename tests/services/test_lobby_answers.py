"""A Play view that leaves out what the stream's answers carried (services.lobby.watch.Answers).

The end-to-end proof, over the real stack, is tests/e2e/test_play.py; these pin the ordering
rules of the one handler: the view waits for the answer of a command whose record it read
first, never for another's, and an answer that never came leaves nothing out.
"""

from __future__ import annotations

import asyncio

import pytest

from match.v1 import common_pb2
from services.lobby import watch
from services.lobby.watch import Answers, unanswered


def envelopes(*numbers: int) -> list[common_pb2.EventEnvelope]:
    return [common_pb2.EventEnvelope(event_number=n) for n in numbers]


def numbers(kept: list[common_pb2.EventEnvelope]) -> list[int]:
    return [e.event_number for e in kept]


def test_what_an_answer_carried_is_left_out_and_the_view_forgets_what_it_passed() -> None:
    carried = {5, 6, 9}
    assert numbers(unanswered(envelopes(4, 5, 6, 7), carried)) == [4, 7]
    assert carried == {9}  # 5 and 6 passed; 9 is still to come
    assert numbers(unanswered(envelopes(8, 9), carried)) == [8]
    assert carried == set()
    assert numbers(unanswered(envelopes(10), carried)) == [10]


def test_a_number_the_view_skipped_past_leaves_the_set() -> None:
    carried = {3, 12}  # 3 was covered by a snapshot the view sent instead of events
    assert numbers(unanswered(envelopes(10, 11), carried)) == [10, 11]
    assert carried == {12}


async def test_the_view_waits_for_the_answer_to_a_command_whose_record_came_first() -> None:
    answers = Answers()
    answers.expect("r1")
    view = asyncio.create_task(answers.leave_out(envelopes(5, 6), "r1"))
    await asyncio.sleep(0.01)
    assert not view.done()  # the record came before the answer: the view waits
    answers.carried(envelopes(5))  # the answer holds 5 only (6 is another seat's, say)
    answers.settle("r1")
    assert numbers(await asyncio.wait_for(view, 1)) == [6]


async def test_a_refused_or_failed_command_leaves_nothing_out() -> None:
    answers = Answers()
    answers.expect("r1")
    view = asyncio.create_task(answers.leave_out(envelopes(5, 6), "r1"))
    await asyncio.sleep(0.01)
    answers.settle("r1")  # no answer carried them: the view must send them itself
    assert numbers(await asyncio.wait_for(view, 1)) == [5, 6]


async def test_another_commands_record_does_not_wait() -> None:
    answers = Answers()
    answers.expect("mine")
    for request_id in ("theirs", ""):  # another seat's command, a timer
        kept = await asyncio.wait_for(answers.leave_out(envelopes(7), request_id), 1)
        assert numbers(kept) == [7]


async def test_an_answer_that_never_comes_does_not_hold_the_view_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(watch, "ANSWER_WAIT_S", 0.05)
    answers = Answers()
    answers.expect("r1")
    kept = await asyncio.wait_for(answers.leave_out(envelopes(5), "r1"), 1)
    assert numbers(kept) == [5]  # sent by the view; the late answer would repeat it
