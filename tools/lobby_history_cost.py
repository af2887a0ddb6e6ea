"""What the lobby's table listing holds in memory as finished games pile up in the log. Every
lobby folds the whole log into its listing (services/lobby/directory.py, ``TableDirectory``), at
start and as it runs.

It plays ``--games`` (4) solo Concentration tables of 24 cards through a real referee and dealer
to their end, then folds ``TABLES`` finished tables into a fresh ``TableDirectory``: the played
tables' records again and again under new table ids, each copy's clock moved on so that one
game ends every ``--every-ms`` (250: 14,400 games an hour, some 1,000 tables playing 4-minute
games). Prints, every tenth of the way, how much the process's resident memory grew (the
listing's tables are protobuf messages, outside Python's heap) and how many tables the listing
keeps; then the CPU per record folded.

``.venv/bin/python tools/lobby_history_cost.py TABLES [--every-ms N] [--games N] [--root DIR]``
from the checkout; ``--root`` imports the listing (and what it plays the games with) from another
checkout (``git worktree add /tmp/old REV``) to compare. A quick figure, not a test:
``tests/services/test_lobby_listing.py`` has the tests."""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

Played = list[tuple[str, bytes, dict[str, str] | None]]  # (table id, record, headers)


async def play(games: int) -> Played:
    """The records of ``games`` solo tables played to their end, one entry a record."""
    from match_bus.records import unpack

    # This checkout's game player, whatever --root is: what it imports comes from --root.
    spec = importlib.util.spec_from_file_location("solo", ROOT / "tests/bench/listing_cost.py")
    assert spec is not None and spec.loader is not None
    solo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solo)
    out: Played = []
    for m in await solo.solo_log(games):
        for record in unpack(m.subject, m.data, m.headers):
            assert record.table_id is not None
            headers = dict(record.headers) if record.headers else None
            out.append((record.table_id, record.data, headers))
    return out


def copies(played: Played, tables: int, every_ms: int) -> Iterator[tuple[str, bytes, Any]]:
    """(subject, record, headers) of ``tables`` finished tables: the played games in turn under
    new ids, each copy's times moved so the copies' games end ``every_ms`` apart."""
    from match.v1 import referee_pb2
    from match_bus import subjects

    games: dict[str, list[tuple[referee_pb2.TableRecord, Any]]] = {}
    for table_id, data, headers in played:
        games.setdefault(table_id, []).append((referee_pb2.TableRecord.FromString(data), headers))
    originals = list(games.values())
    first_ms = min(e.server_time_ms for rs in originals for r, _ in rs for e in r.events)
    for n in range(tables):
        records = originals[n % len(originals)]
        new_id = f"h{n:011d}"
        shift = n * every_ms
        for record, headers in records:
            copy = referee_pb2.TableRecord()
            copy.CopyFrom(record)
            copy.table_id = new_id
            for envelope in copy.events:
                envelope.table_id = new_id
                envelope.server_time_ms = envelope.server_time_ms - first_ms + shift + 1
            yield subjects.events(new_id), copy.SerializeToString(), headers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", type=int)
    parser.add_argument("--every-ms", type=int, default=250)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    sys.path[:0] = [str(args.root), str(args.root / "libs")]
    played = asyncio.run(play(args.games))
    from match_bus.records import GAME_OVER, facts_of
    from services.lobby.directory import TableDirectory

    per_game = [
        sum(1 for t, _, _ in played if t == table)
        for table in dict.fromkeys(t for t, _, _ in played)
    ]
    total = sum(per_game[n % len(per_game)] for n in range(args.tables))
    print(f"{len(played)} records of {args.games} games; {total:,} records to fold")
    step = max(args.tables // 10, 1)
    gc.collect()
    base = rss()
    directory = TableDirectory(js=None)  # type: ignore[arg-type]  # folding only
    cpu, tables = 0.0, 0
    for seq, (subject, data, headers) in enumerate(
        copies(played, args.tables, args.every_ms), start=1
    ):
        start = time.process_time()
        directory.take(subject, seq, data, headers)
        cpu += time.process_time() - start
        if GAME_OVER in (facts_of(headers) or ()):
            tables += 1
            if tables % step == 0:
                held = rss() - base
                kept = len(directory._tables)  # a measure, not an API
                print(
                    f"games ended {tables:>8,}  RSS {held / 1e6:7.1f} MB over the start  "
                    f"tables kept {kept:>8,}  {held / max(kept, 1):6.0f} bytes a kept table"
                )
    print(f"CPU: {cpu / seq * 1e6:.1f} us a record folded")
    print(f"a start that folds the whole log: {cpu:.2f} s of CPU for {seq:,} records")
    snapshot_cost(directory, TableDirectory)


def snapshot_cost(directory: Any, directory_class: Any) -> None:
    """What the listing's snapshot costs (services/lobby/snapshot.py), for the listing as it
    stands: taking it (on the lobby's loop), encoding and compressing it (in a thread), and a
    start's decompressing, decoding and restoring it (no NATS: the bytes only)."""
    import zlib

    from match.v1 import lobby_listing_pb2
    from services.lobby.directory import build_snapshot

    if not hasattr(directory, "snapshot"):
        print("snapshot: this checkout's listing has none")
        return
    taken, held, parts = asyncio.run(paused(directory))
    start = time.process_time()
    snap = build_snapshot(parts)
    data = zlib.compress(snap.SerializeToString(), 6)
    encoded = time.process_time() - start
    start = time.process_time()
    restored = directory_class(js=None)
    restored.restore(lobby_listing_pb2.ListingSnapshot.FromString(zlib.decompress(data)))
    loaded = time.process_time() - start
    print(
        f"snapshot: {len(snap.tables):,} tables, {len(data) / 1e6:.2f} MB compressed "
        f"({snap.ByteSize() / 1e6:.2f} MB raw); taken in {taken * 1e3:.0f} ms with folding paused, "
        f"the loop held {held * 1e3:.1f} ms at most at a time; "
        f"built, encoded and compressed {encoded * 1e3:.0f} ms in a thread; a start restores it in "
        f"{loaded * 1e3:.0f} ms of CPU"
    )


async def paused(directory: Any) -> tuple[float, float, Any]:
    """Take the snapshot's parts as the running lobby does, a task beside it counting how long
    the loop went without turning: (seconds in all, the longest hold, the parts)."""
    gaps: list[float] = []
    done = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    beside = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    parts = await directory.snapshot_parts_paused()
    taken = time.perf_counter() - start
    done = True
    await beside
    return taken, max(gaps), parts


def rss() -> int:
    """This process's resident memory (bytes): protobuf's objects live outside Python's heap."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


if __name__ == "__main__":
    main()
