"""The bot's Prometheus metrics (served on METRICS_PORT, 9105 by default)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

SEATS_FILLED = Counter("match_bot_seats_filled", "Seats the bot took at open tables")
TURNS = Counter("match_bot_turns", "Turns the bot's seats sent that were accepted")
GAMES_FINISHED = Counter("match_bot_games_finished", "Games the bot's seats played to the end")
SEATS_RESUMED = Counter(
    "match_bot_seats_resumed", "Seats this replica took over from a replica that stopped"
)
SEATS_HANDED_OVER = Counter(
    "match_bot_seats_handed_over", "Seats this replica stopped because another one claimed them"
)
SEATS_PLAYING = Gauge("match_bot_seats_playing", "Seats this replica plays now")
