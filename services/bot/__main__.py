"""``python -m services.bot``: see services/bot/service.py and docs/client.md."""

from __future__ import annotations

import sys

from services.bot.config import BotConfig
from services.bot.service import main

if __name__ == "__main__":
    try:
        config = BotConfig.from_env()
    except ValueError as err:  # ConfigError, or a setting every service reads (BaseConfig)
        print(f"bot: {err}", file=sys.stderr)
        sys.exit(2)
    main(config)
