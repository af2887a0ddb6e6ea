"""A service's connection leaves a NATS node cut off from the rest of its cluster (the links
between nodes cut in network namespaces, the client's link to every node kept up), and its
JetStream writes go through the majority again within a bound; a connection not watched stays
on the cut-off node and its writes keep timing out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import nats
import nats.js.errors
import pytest
from nats.aio.client import Client
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.api import StorageType, StreamConfig

from match_bus.failover import FailoverSettings
from match_bus.jetstream import connect
from match_launch import netns
from match_launch.natscluster import NatsCluster

pytestmark = [
    pytest.mark.stack,
    pytest.mark.skipif(bool(netns.missing_tools()), reason="needs root, ip, tc and nft"),
]
# Three probes a second apart, the node asked again, the others asked; and when the node cut off
# was the meta leader, it answers the probe itself until it notices it lost its quorum.
MOVE_BOUND_S = 40.0


@pytest.fixture
def lab_cluster(tmp_path: Path) -> Iterator[tuple[netns.NetLab, NatsCluster]]:
    lab = netns.NetLab().up()
    try:
        cluster = NatsCluster(
            tmp_path / "nats",
            ports=[4222] * 3,
            cluster_ports=[6222] * 3,
            hosts=lab.hosts,
            command=lab.command,
        )
        try:
            yield lab, cluster.start()
        finally:
            cluster.stop()
    finally:
        lab.down()


def node_of(nc: Client, cluster: NatsCluster) -> int:
    assert nc.connected_url is not None
    return [n.host for n in cluster.nodes].index(nc.connected_url.hostname)


async def publish_until_acked(nc: Client, subject: str, bound_s: float) -> float:
    """Seconds until a JetStream publish through ``nc`` is acknowledged (raises past bound)."""
    js = nc.jetstream()
    start = time.monotonic()
    while time.monotonic() - start < bound_s:
        try:
            await js.publish(subject, b"x", timeout=1.0)
            return time.monotonic() - start
        except (NatsTimeoutError, nats.errors.Error):
            await asyncio.sleep(0.1)
    raise AssertionError(f"no JetStream publish acknowledged within {bound_s} s")


async def test_a_service_leaves_a_cut_off_node_and_writes_through_the_majority(
    lab_cluster: tuple[netns.NetLab, NatsCluster],
) -> None:
    lab, cluster = lab_cluster
    settings = FailoverSettings(interval_s=1.0, timeout_s=1.0, misses=3)
    watched = await connect(cluster.urls, "watched", failover=settings)
    here = node_of(watched, cluster)
    # a connection without the watch, on the same node: what every service was before
    unwatched = await nats.connect(cluster.nodes[here].url, allow_reconnect=False)
    others = [n.url for i, n in enumerate(cluster.nodes) if i != here]
    outside = await nats.connect(others, allow_reconnect=False)
    try:
        await outside.jetstream().add_stream(
            StreamConfig(
                name="FAILOVER",
                subjects=["failover.>"],
                storage=StorageType.FILE,
                num_replicas=3,
            )
        )
        assert await publish_until_acked(watched, "failover.before", 10.0) < 10.0
        heard: asyncio.Queue[bytes] = asyncio.Queue()

        async def hear(msg: nats.aio.msg.Msg) -> None:
            await heard.put(msg.data)

        await watched.subscribe("failover.ping", cb=hear)
        await watched.flush()

        lab.isolate(here)
        moved_in = await publish_until_acked(watched, "failover.during", MOVE_BOUND_S)
        assert node_of(watched, cluster) != here, "acknowledged, yet still on the cut-off node"
        # the subscription made before the move is there after it (nats-py sends it again)
        await outside.publish("failover.ping", b"still here")
        assert await asyncio.wait_for(heard.get(), 5.0) == b"still here"
        # the connection not watched stays on the cut-off node and cannot write: its publish
        # times out, or the node says at once that no stream answers (once it knows it is cut)
        with pytest.raises((NatsTimeoutError, nats.js.errors.NoStreamResponseError)):
            await unwatched.jetstream().publish("failover.stuck", b"x", timeout=2.0)
        print(f"left n{here + 1}, wrote through the majority {moved_in:.1f} s after the cut")
    finally:
        lab.heal_all()
        for nc in (watched, unwatched, outside):
            await nc.close()
