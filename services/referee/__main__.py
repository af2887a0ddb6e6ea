"""``python -m services.referee``"""

from __future__ import annotations

import sys

from nats.aio.client import Client

from match_bus.service import run
from services.referee.config import RefereeConfig
from services.referee.service import serve


def main() -> None:
    try:
        config = RefereeConfig.from_env()
    except ValueError as error:  # refused before anything starts
        sys.exit(f"referee: {error}")

    async def start(nc: Client):  # type: ignore[no-untyped-def]
        return await serve(nc, config)

    run("referee", config.base, start)


if __name__ == "__main__":
    main()
