"""The bare chain a turn travels, with no game logic: grpc.aio unary -> NATS request ->
JetStream publish with ack (file storage, on the same nats-server as the stack) -> reply.

Two processes, like the lobby and the referee: ``python -m match_bench.bare server ADDR
NATS_URL`` and ``python -m match_bench.bare responder NATS_URL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import nats
from nats.aio.msg import Msg
from nats.js.api import StorageType, StreamConfig
from nats.js.errors import BadRequestError

from match_bus.access import connect_options
from match_bus.service import event_loop_from_env, run_loop, tune_gc

STREAM = "BENCH_BARE"
SUBJECTS = "bench.bare.>"
REQUEST_SUBJECT = "bench.bare-chain.call"
METHOD = "/match.bench.Bare/Call"


def _identity() -> Any:
    """The stack's admin identity when NATS_NKEY_FILE names it (the bare chain has no service
    identity of its own: it writes to its own stream, BENCH_BARE)."""
    seed = os.environ.get("NATS_NKEY_FILE", "")
    return connect_options(seed, "admin") if seed else {}


async def responder(url: str) -> None:
    nc = await nats.connect(url, name="bench-bare-responder", **_identity())
    js = nc.jetstream()
    with contextlib.suppress(BadRequestError):  # exists already
        await js.add_stream(
            StreamConfig(
                name=STREAM, subjects=[SUBJECTS], storage=StorageType.FILE, allow_direct=True
            )
        )
    tasks: set[asyncio.Task[None]] = set()

    async def handle(msg: Msg) -> None:
        ack = await js.publish(f"bench.bare.{len(msg.data) % 64}", msg.data, timeout=5)
        await msg.respond(str(ack.seq).encode())

    async def on_message(msg: Msg) -> None:  # the work in its own task (see the architecture)
        task = asyncio.create_task(handle(msg))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    await nc.subscribe(REQUEST_SUBJECT, queue="bare", cb=on_message)
    await nc.flush()
    print("ready", flush=True)
    await asyncio.Event().wait()


async def server(addr: str, url: str) -> None:
    nc = await nats.connect(url, name="bench-bare-server", **_identity())

    async def call(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        reply = await nc.request(REQUEST_SUBJECT, request, timeout=5)
        return reply.data

    handler = grpc.method_handlers_generic_handler(
        "match.bench.Bare", {"Call": grpc.unary_unary_rpc_method_handler(call)}
    )
    srv = grpc.aio.server()
    srv.add_generic_rpc_handlers((handler,))
    srv.add_insecure_port(addr)
    await srv.start()
    print("ready", flush=True)
    await srv.wait_for_termination()


def main(argv: list[str]) -> None:
    """On the services' event loop (``MATCH_EVENT_LOOP``, default uvloop): the baseline runs on
    the loop the game does, with the services' collector, so the ratio compares the work."""
    loop = event_loop_from_env()
    tune_gc()
    if argv[0] == "server":
        run_loop(loop, server(argv[1], argv[2]))
    else:
        run_loop(loop, responder(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
