"""The bot's Prometheus counters (served on METRICS_PORT, 9105 by default)."""

from __future__ import annotations

from prometheus_client import Counter

SEATS_FILLED = Counter("match_bot_seats_filled", "Seats the bot took at open tables")
TURNS = Counter("match_bot_turns", "Turns the bot's seats sent that were accepted")
GAMES_FINISHED = Counter("match_bot_games_finished", "Games the bot's seats played to the end")
