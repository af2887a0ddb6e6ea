"""The readers' copies of the log are written to disk in the background; the log is not
(match_bus.jetstream.copy_persist_mode), over a real nats-server with ``sync_interval: always``.

What makes that safe is tested here: a copy that lost its last records (a crash before the
background write) fetches them from the log again, byte for byte, under the same sequences. And
the operator's step that makes an older copy again (``python -m match_bus.upgrade async-copies``)
keeps the copy's config and its records, and refuses while a reader is on it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, PersistMode, StreamConfig
from structlog.testing import capture_logs

from match_bus import jetstream, subjects, upgrade
from match_bus.access import ADMIN, Identities
from match_bus.jetstream import copy_config, copy_persist_mode, ensure_stream, persist_mode_of
from match_launch.natsserver import NatsServer
from match_launch.stack import Stack

LOG, COPIES = subjects.EVENTS_STREAM, list(subjects.EVENTS_COPIES.values())


def test_only_a_copy_at_one_replica_is_written_in_the_background() -> None:
    """nats-server refuses ``async`` on a replicated stream: copies at R3 stay as it syncs them."""
    assert copy_persist_mode(1) is PersistMode.ASYNC
    assert copy_persist_mode(3) is None
    assert copy_config("lobby", subjects.LOBBY_EVENTS, 3).persist_mode is None


@pytest.fixture
async def nc(nats_server: NatsServer) -> AsyncIterator[Client]:
    client = await nats.connect(nats_server.url)
    yield client
    await client.close()


async def append(js: JetStreamContext, n: int) -> list[int]:
    """``n`` records over five tables, each naming its place; their stream sequences."""
    acks = [
        await js.publish(subjects.events(f"copy{i % 5:08d}"), f"record {i} ".encode() * 8)
        for i in range(n)
    ]
    return [ack.seq for ack in acks]


async def older_streams(js: JetStreamContext, max_consumers: int | None = None) -> None:
    """The log and its copies as an older version made them: the copies fsynced on every
    record (no persist mode); ``max_consumers``, an operator's own cap on each copy."""
    await js.add_stream(StreamConfig(name=LOG, subjects=[subjects.EVENTS_ALL]))
    for reader, name in subjects.EVENTS_COPIES.items():
        old = copy_config(reader, name)
        old.persist_mode = None
        if max_consumers is not None:
            old.max_consumers = max_consumers
        await js.add_stream(old)


async def same_as_the_log(js: JetStreamContext, name: str, timeout_s: float = 10.0) -> None:
    """Wait until copy ``name`` holds what the log holds, then compare every record: subject,
    sequence and bytes."""
    want = (await js.stream_info(LOG)).state.last_seq
    deadline = time.monotonic() + timeout_s
    while (await js.stream_info(name)).state.last_seq < want:
        assert time.monotonic() < deadline, f"{name} did not catch up with the log"
        await asyncio.sleep(0.05)
    for sequence in range(1, want + 1):
        ours, theirs = await js.get_msg(LOG, sequence), await js.get_msg(name, sequence)
        assert (theirs.subject, theirs.data) == (ours.subject, ours.data), sequence


async def test_the_log_is_synced_and_its_copies_are_written_in_the_background(
    nc: Client,
) -> None:
    js = nc.jetstream()
    with capture_logs() as logged:
        await ensure_stream(js)
        await ensure_stream(js)  # as the next service to start: the copies are as wanted
    assert not [e for e in logged if "async-copies" in e["event"]]
    assert persist_mode_of((await js.stream_info(LOG)).config) is None  # sync_interval: always
    for name in COPIES:
        assert persist_mode_of((await js.stream_info(name)).config) is PersistMode.ASYNC
    await append(js, 30)
    for name in COPIES:
        await same_as_the_log(js, name)


async def test_a_copy_that_lost_its_last_records_fetches_them_from_the_log_again(
    tmp_path: Path,
) -> None:
    """What a crash before the background write leaves: the copy's data file cut short on disk
    (and its index gone). Restarted, the server holds fewer records in the copy than in the
    log, and the copy fetches the rest from the log under the same sequences."""
    server = NatsServer(tmp_path / "nats").start()
    try:
        client = await nats.connect(server.url, max_reconnect_attempts=-1, reconnect_time_wait=0.1)
        js = client.jetstream()
        await ensure_stream(js)
        written = await append(js, 400)
        for name in COPIES:
            await same_as_the_log(js, name)
        await client.close()
        server.kill()
        streams = server.store_dir / "jetstream" / "$G" / "streams"
        for name in COPIES:
            for block in (streams / name / "msgs").glob("*.blk"):
                with open(block, "r+b") as data:
                    data.truncate(block.stat().st_size // 2)
            (streams / name / "msgs" / "index.db").unlink(missing_ok=True)
        server.start()
        client = await nats.connect(server.url)
        js = client.jetstream()
        try:
            for name in COPIES:
                await same_as_the_log(js, name)
            assert (await js.stream_info(LOG)).state.last_seq == written[-1]
        finally:
            await client.close()
    finally:
        server.stop()


async def test_a_lost_tail_is_really_lost_before_the_copy_fetches_it(tmp_path: Path) -> None:
    """The test above cuts a real tail: with the mirror stopped (the log gone), the copy holds
    fewer records after the restart than before."""
    server = NatsServer(tmp_path / "nats").start()
    try:
        client = await nats.connect(server.url)
        js = client.jetstream()
        await ensure_stream(js)
        await append(js, 400)
        await same_as_the_log(js, subjects.LOBBY_EVENTS)
        await client.close()
        server.kill()
        streams = server.store_dir / "jetstream" / "$G" / "streams"
        for block in (streams / subjects.LOBBY_EVENTS / "msgs").glob("*.blk"):
            with open(block, "r+b") as data:
                data.truncate(block.stat().st_size // 2)
        (streams / subjects.LOBBY_EVENTS / "msgs" / "index.db").unlink(missing_ok=True)
        for path in sorted((streams / LOG).rglob("*"), reverse=True):  # no log to fetch from
            path.unlink() if path.is_file() else path.rmdir()
        (streams / LOG).rmdir()
        server.start()
        client = await nats.connect(server.url)
        try:
            held = (await client.jetstream().stream_info(subjects.LOBBY_EVENTS)).state.last_seq
            assert 0 < held < 400
        finally:
            await client.close()
    finally:
        server.stop()


async def test_the_upgrade_makes_an_older_copy_again_keeping_its_config_and_records(
    nats_server: NatsServer, nc: Client
) -> None:
    js = nc.jetstream()
    await older_streams(js, max_consumers=7)  # an operator's own setting
    jetstream._SAID_SYNCED.clear()  # (another test's process may have said it)
    with capture_logs() as logged:
        await ensure_stream(js)  # a service never changes a copy it finds, and says so
        await ensure_stream(js)  # once: the ledger calls it again at every new subscription
    warned = [e["stream"] for e in logged if "async-copies" in e["event"]]
    assert sorted(warned) == sorted(COPIES)
    for name in COPIES:
        assert persist_mode_of((await js.stream_info(name)).config) is None
    await append(js, 25)
    for name in COPIES:
        await same_as_the_log(js, name)

    reader = await js.add_consumer(subjects.LOBBY_EVENTS, ConsumerConfig(name="listing"))
    with pytest.raises(upgrade.Refused, match="MATCH_EVENTS_LOBBY has 1 consumers"):
        await upgrade.async_copies(nats_server.url, "")
    assert persist_mode_of((await js.stream_info(subjects.LOBBY_EVENTS)).config) is None
    await js.delete_consumer(subjects.LOBBY_EVENTS, reader.name)

    said = await upgrade.async_copies(nats_server.url, "")
    assert said.startswith("made again, written in the background") and all(
        f"{n} (async)" in said for n in COPIES
    )
    for name in COPIES:
        config = (await js.stream_info(name)).config
        assert persist_mode_of(config) is PersistMode.ASYNC and config.max_consumers == 7
        await same_as_the_log(js, name)
    assert (await js.stream_info(subjects.LOBBY_EVENTS)).config.republish is not None
    assert (await js.stream_info(subjects.PLAYERS_EVENTS)).config.republish is None
    assert "nothing to do" in await upgrade.async_copies(nats_server.url, "")


def test_the_operator_runs_the_step_with_the_admin_identity(tmp_path: Path) -> None:
    """``python -m match_bus.upgrade async-copies`` as an operator runs it: a server with the
    deployment's identities, the admin's seed; exit 2 and nothing changed while a lobby reads its
    copy, exit 0 once it stopped; and no service identity may do it."""
    identities = Identities(tmp_path / "secrets").ensure()
    server = NatsServer(tmp_path / "nats", authorization=identities.authorization()).start()

    def step(who: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "match_bus.upgrade", "async-copies"]
        command += ["--nats", server.url, "--seed", str(identities.seed_file(who))]
        return subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=60,
        )

    async def as_admin(then: str) -> None:
        client = await nats.connect(server.url, **identities.connect_options(ADMIN))
        js = client.jetstream()
        try:
            if then == "an older deployment":
                await older_streams(js)
                await js.add_consumer(subjects.LOBBY_EVENTS, ConsumerConfig(name="listing"))
            elif then == "the lobby stopped":
                await js.delete_consumer(subjects.LOBBY_EVENTS, "listing")
            else:
                for name in COPIES:
                    mode = persist_mode_of((await js.stream_info(name)).config)
                    assert mode is (PersistMode.ASYNC if then == "async" else None), name
        finally:
            await client.close()

    try:
        asyncio.run(as_admin("an older deployment"))
        refused = step(ADMIN)
        assert refused.returncode == 2, refused
        assert "refused, nothing changed: MATCH_EVENTS_LOBBY has 1 consumers" in refused.stderr
        asyncio.run(as_admin("unchanged"))
        asyncio.run(as_admin("the lobby stopped"))
        service = step("lobby")
        assert service.returncode == 1 and "Is --seed (or NATS_NKEY_FILE) the admin" in (
            service.stderr
        ), service
        asyncio.run(as_admin("unchanged"))
        done = step(ADMIN)
        assert done.returncode == 0, done
        assert done.stdout.startswith("made again, written in the background")
        asyncio.run(as_admin("async"))
    finally:
        server.stop()


async def test_a_step_stopped_between_deleting_and_making_a_copy_is_finished_by_the_next(
    nats_server: NatsServer, nc: Client
) -> None:
    js = nc.jetstream()
    await ensure_stream(js)
    await append(js, 10)
    await js.delete_stream(subjects.PLAYERS_EVENTS)  # where a step cut off would leave it
    said = await upgrade.async_copies(nats_server.url, "")
    assert said.startswith("made again") and f"{subjects.PLAYERS_EVENTS} (async)" in said
    assert subjects.LOBBY_EVENTS not in said  # already as it should be: left alone
    await same_as_the_log(js, subjects.PLAYERS_EVENTS)


def test_a_stack_over_a_store_an_older_version_made_makes_its_copies_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make run`` over the ``var/nats`` of an older version: the stack is the operator of its
    embedded server, so it runs the upgrade's step itself before any service starts."""
    stack = Stack(tmp_path / "var", services=())

    async def as_admin(then: str) -> list[Any]:
        client = await stack.connect_nats()
        js = client.jetstream()
        try:
            if then == "an older version":
                await older_streams(js)
                await append(js, 12)
                for name in COPIES:
                    await same_as_the_log(js, name)
            else:
                for name in COPIES:
                    await same_as_the_log(js, name)
            return [persist_mode_of((await js.stream_info(n)).config) for n in COPIES]
        finally:
            await client.close()

    stack.start()
    try:
        assert asyncio.run(as_admin("an older version")) == [None, None]
    finally:
        stack.stop()
    assert "made again" not in capsys.readouterr().out  # a new store: nothing to do
    stack.start()
    try:
        assert asyncio.run(as_admin("after")) == [PersistMode.ASYNC, PersistMode.ASYNC]
    finally:
        stack.stop()
    said = capsys.readouterr().out
    assert "the copies of the log an older version made are made again" in said
    assert all(f"{name} (async)" in said for name in COPIES)
