"""``python -m services.referee``"""

from __future__ import annotations

from nats.aio.client import Client

from match_bus.service import configured, run
from services.referee.config import RefereeConfig
from services.referee.service import serve


def main() -> None:
    config = configured("referee", RefereeConfig.from_env)

    async def start(nc: Client):  # type: ignore[no-untyped-def]
        return await serve(nc, config)

    run("referee", config.base, start)


if __name__ == "__main__":
    main()
