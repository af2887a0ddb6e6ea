"""The table listing's index: the listed tables' keys kept in order, so that a page of
ListTables costs a binary search and the page itself, however many tables are open.

Pure: no I/O, no protobuf. A key is ``(time_ms, table_id)``: the time orders the tables, the id
breaks ties and names the table. A page starts after a cursor (the last key of the previous
page), so a table added or removed meanwhile never shifts a page or repeats a table.
"""

from __future__ import annotations

import bisect

Key = tuple[int, str]


class SortedKeys:
    """Keys in ascending order. Adding or removing is a binary search and a move of the
    pointers after it (a memmove: microseconds at 10,000 keys); reading a page touches only it."""

    def __init__(self) -> None:
        self._keys: list[Key] = []

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, key: Key) -> None:
        at = bisect.bisect_left(self._keys, key)
        if at == len(self._keys) or self._keys[at] != key:
            self._keys.insert(at, key)

    def discard(self, key: Key) -> None:
        at = bisect.bisect_left(self._keys, key)
        if at < len(self._keys) and self._keys[at] == key:
            del self._keys[at]

    def newest(self, size: int, before: Key | None = None) -> tuple[list[Key], bool]:
        """Up to ``size`` keys, highest first, below ``before`` (all: None); and whether more
        follow."""
        end = len(self._keys) if before is None else bisect.bisect_left(self._keys, before)
        start = max(end - size, 0)
        return self._keys[start:end][::-1], start > 0

    def oldest(self, size: int, upto: int, after: Key | None = None) -> tuple[list[Key], bool]:
        """Up to ``size`` keys, lowest first, above ``after`` (all: None) and with a time of at
        most ``upto``; and whether more such keys follow."""
        start = 0 if after is None else bisect.bisect_right(self._keys, after)
        end = bisect.bisect_right(self._keys, (upto, "\U0010ffff"))
        stop = min(start + size, end)
        return self._keys[start:stop], stop < end
