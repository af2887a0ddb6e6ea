"""When the bot service fills a table's empty seats, and the names its bots sit down with.

Pure: the lobby's listing of a table and the clock's ``now`` in, a decision out. The bot's play
itself is the game's (the race's is match_rules.race.bot)."""

from __future__ import annotations

from match.v1 import common_pb2, lobby_pb2


def should_fill(table: lobby_pb2.Table, now_ms: int) -> bool:
    """An open table still waiting, with a free seat, whose fill time has come."""
    return (
        table.status == lobby_pb2.Table.STATUS_WAITING
        and table.visibility == common_pb2.VISIBILITY_OPEN
        and len(table.taken) < table.seats
        and 0 < table.fill_at_ms <= now_ms
    )


def bot_names(table: lobby_pb2.Table) -> list[str]:
    """The names for the free seats: "Bot 1".."Bot 3", after the bots already seated."""
    seated = sum(1 for s in table.taken if s.is_bot)
    free = max(table.seats - len(table.taken), 0)
    return [f"Bot {seated + i}" for i in range(1, free + 1)]
