"""What an operator runs once when upgrading a deployment whose streams were made by an older
version (docs/operations.md, "Upgrading"). No service may change a stream, so these connect as
the operator's ``admin`` identity.

``python -m match_bus.upgrade live-push``: the lobby's copy of the log (``MATCH_EVENTS_LOBBY``)
gains the push of each record it stores on ``match.live.>`` (match_bus.jetstream.LIVE_PUSH);
nothing else of its config changes. Until then each lobby follows a watched table with a
consumer on the copy, as before.

``python -m match_bus.upgrade async-copies``: each copy of the log at one replica made before
copies were written to disk in the background (match_bus.jetstream.copy_persist_mode) is made
again with its config as it is but for that. nats-server cannot change a stream's persist mode,
so the copy is deleted and made anew, and fills from the log again; it refuses while any
consumer is on a copy it would make again (stop the lobby and players replicas first). Until
then the copy is fsynced on every record, as before: nothing is wrong, a turn costs more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys

from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.errors import BadRequestError, NotFoundError

from match_bus.jetstream import (
    add_live_push,
    connect,
    copies_to_rewrite,
    persist_mode_of,
    pushes_live,
)


async def live_push(url: str, seed_file: str) -> str:
    nc = await connect(url, "admin", seed_file)
    try:
        js = nc.jetstream()
        if await add_live_push(js):
            return "added: the lobby's copy of the log now pushes its records on match.live.>"
        if await pushes_live(js):
            return "nothing to do: the lobby's copy of the log pushes its records already"
        return (
            "the lobby's copy of the log pushes elsewhere (an operator's own RePublish): "
            "left as it is; the lobbies follow watched tables with consumers"
        )
    finally:
        await nc.close()


async def async_copies(url: str, seed_file: str) -> str:
    nc = await connect(url, "admin", seed_file)
    try:
        done = await rewrite_copies(nc.jetstream())
    finally:
        await nc.close()
    if not done:
        return (
            "nothing to do: every copy of the log at one replica is written in the "
            "background already (copies at more replicas stay as the server syncs them)"
        )
    return (
        "made again, written in the background, filling from the log: "
        + ", ".join(done)
        + ". Start the lobby and players replicas: they catch up as the copies fill"
    )


async def rewrite_copies(js: JetStreamContext) -> list[str]:
    """Make each copy of the log that should be written in the background again, so
    (``async-copies``); the copies made, each with the persist mode it got. Refused, and
    nothing changed, while a consumer is on one of them."""
    rewrite = await copies_to_rewrite(js)
    busy = [f"{name} has {n} consumers" for name, (_, n) in rewrite.items() if n]
    if busy:
        raise Refused(
            "refused, nothing changed: "
            + "; ".join(busy)
            + ". Stop every lobby and players replica, then run this again"
        )
    done = []
    for name, (config, _) in rewrite.items():
        with contextlib.suppress(NotFoundError):
            await js.delete_stream(name)
        with contextlib.suppress(BadRequestError):  # a referee or ledger made it meanwhile
            await js.add_stream(config)
        mode = persist_mode_of((await js.stream_info(name)).config)
        done.append(f"{name} ({mode.value if mode else 'default'})")
    return done


class Refused(Exception):
    """The step would harm a running deployment; nothing was changed."""


STEPS = {"live-push": live_push, "async-copies": async_copies}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_bus.upgrade", description=__doc__)
    parser.add_argument("step", choices=sorted(STEPS))
    parser.add_argument(
        "--nats", default=os.environ.get("NATS_URL", "nats://127.0.0.1:4222"), help="NATS URL"
    )
    parser.add_argument(
        "--seed",
        default=os.environ.get("NATS_NKEY_FILE", ""),
        help="the admin identity's NKey seed file (default: NATS_NKEY_FILE)",
    )
    args = parser.parse_args(argv)
    try:
        print(asyncio.run(STEPS[args.step](args.nats, args.seed)))
    except Refused as refused:
        print(refused, file=sys.stderr)
        return 2
    except NatsTimeoutError:
        print(
            f"{args.step}: NATS did not answer in time; nothing was changed, or the step stopped "
            "part way (run it again: it does what is left). Is --seed (or NATS_NKEY_FILE) the "
            "admin identity's? A service identity may not change streams, and its requests go "
            "unanswered.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
