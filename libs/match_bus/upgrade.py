"""What an operator runs once when upgrading a deployment whose streams were made by an older
version (docs/operations.md, "Upgrading"). No service may change a stream, so these connect as
the operator's ``admin`` identity.

``python -m match_bus.upgrade live-push``: the lobby's copy of the log (``MATCH_EVENTS_LOBBY``)
gains the push of each record it stores on ``match.live.>`` (match_bus.jetstream.LIVE_PUSH);
nothing else of its config changes. Until then each lobby follows a watched table with a
consumer on the copy, as before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from match_bus.jetstream import add_live_push, connect, pushes_live


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m match_bus.upgrade", description=__doc__)
    parser.add_argument("step", choices=["live-push"])
    parser.add_argument(
        "--nats", default=os.environ.get("NATS_URL", "nats://127.0.0.1:4222"), help="NATS URL"
    )
    parser.add_argument(
        "--seed",
        default=os.environ.get("NATS_NKEY_FILE", ""),
        help="the admin identity's NKey seed file (default: NATS_NKEY_FILE)",
    )
    args = parser.parse_args(argv)
    print(asyncio.run(live_push(args.nats, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
