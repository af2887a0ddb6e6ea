"""A lobby feed's errors without NATS (services/lobby/fanout.py): only errors in a row give a
table up. A copy that does not push is followed by a consumer kept open, which is made again
each time it goes quiet while the log grows; a consumer made between two such stalls means the
copy answers, so stalls far apart never add up to GIVE_UP_S. One that cannot be made does."""

from __future__ import annotations

import asyncio
from typing import Any

import nats.errors
import pytest

from services.lobby import fanout
from services.lobby.fanout import TableFeed


async def table_end(js: object, table_id: str) -> int:
    """The table's end in the log: always a record the feed has not got."""
    return 5


class QuietCopy:
    """A copy whose consumers are made (or refused, with ``refuse``) and never deliver."""

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.made = 0

    async def subscribe(self, *args: object, **kwargs: object) -> Any:
        if self.refuse:
            raise nats.errors.TimeoutError
        self.made += 1
        return self

    async def next_msg(self, timeout: float) -> Any:
        await asyncio.sleep(timeout)
        raise nats.errors.TimeoutError

    async def unsubscribe(self) -> None:
        pass

    async def delete_consumer(self, *args: object) -> None:
        pass


async def never_pushes() -> bool:
    return False


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout, "table_end", table_end)
    monkeypatch.setattr(fanout, "STALL_CHECK_S", 0.05)
    monkeypatch.setattr(fanout, "GIVE_UP_S", 0.3)  # less than two stalls apart (0.5 s pause)


async def test_stalls_far_apart_do_not_give_a_table_up() -> None:
    copy = QuietCopy()
    feed = TableFeed(copy, copy, "table0001", never_pushes)  # type: ignore[arg-type]
    try:
        await asyncio.sleep(1.5)
        assert copy.made >= 3  # stalled and made again, more than GIVE_UP_S apart
        assert feed.failure is None
    finally:
        await feed.close()


async def test_a_copy_that_never_answers_gives_the_table_up() -> None:
    copy = QuietCopy(refuse=True)
    feed = TableFeed(copy, copy, "table0002", never_pushes)  # type: ignore[arg-type]
    try:
        with pytest.raises(fanout.FeedFailed):
            await feed.record(0, 5.0)
    finally:
        await feed.close()
