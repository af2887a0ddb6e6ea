"""What every game's client tracker folds the same way: the table's own events.

A game's tracker (``concentration.ConcentrationTracker``, ``match_cards.MatchCardsTracker``)
subclasses :class:`TableFollower`, names its slug and folds its own events in ``_game``. The
follower folds each event once and in order: a command's reply and the Watch stream both bring
the same events, and a reply can come before the stream has brought the events ahead of it
(another player's move, a deadline the referee fired), so an event after a gap waits until the
stream fills the gap, as the web client's ``InOrder`` does. It keeps the names, the commitment,
the deal version and the published seed, and hands the table's settings (the member named after
the slug) to ``_settings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from match.v1 import common_pb2, lobby_pb2


@dataclass
class TableFollower:
    SLUG: ClassVar[str] = ""

    player: str = ""  # "" for a spectator
    table_id: str = ""
    event_number: int = 0
    server_time_ms: int = 0
    names: dict[str, str] = field(default_factory=dict)
    commitment: str = ""
    deal_version: str = ""
    seed: bytes | None = None
    # events after a gap, by number, until the events before them come
    waiting: dict[int, common_pb2.EventEnvelope] = field(default_factory=dict, repr=False)

    def name(self, player: str) -> str:
        if player == self.player and player:
            return "you"
        return self.names.get(player) or player

    def note_table(self, table: lobby_pb2.Table) -> None:
        """Names, the commitment and the settings from the lobby's Table."""
        for seat in table.taken:
            self.names[seat.player_id] = seat.display_name
        self.commitment = self.commitment or table.commitment
        if table.HasField(self.SLUG):
            self._settings(getattr(table, self.SLUG))

    def apply_events(
        self, envelopes: Sequence[common_pb2.EventEnvelope]
    ) -> list[common_pb2.EventEnvelope]:
        """Fold the events not folded yet (a reply and the stream both bring them), each once
        and in number order; the ones folded now, in order. An event after one not yet here
        waits (:attr:`waiting`) and is folded when the gap is filled; what a snapshot covered
        (``event_number`` set by ``apply_snapshot``) is dropped from the waiting."""
        for env in envelopes:
            if env.event_number > self.event_number:
                self.waiting.setdefault(env.event_number, env)
        for number in [n for n in self.waiting if n <= self.event_number]:
            del self.waiting[number]
        new = []
        while self.event_number + 1 in self.waiting:
            env = self.waiting.pop(self.event_number + 1)
            self.event_number = env.event_number
            self.server_time_ms = env.server_time_ms
            if env.HasField("table"):
                self._table(env.table)
            elif env.HasField(self.SLUG):
                self._game(getattr(env, self.SLUG))
            new.append(env)
        return new

    def _table(self, event: common_pb2.TableEvent) -> None:
        kind = event.WhichOneof("event")
        if kind == "player_seated":
            self.names[event.player_seated.player_id] = event.player_seated.display_name
        elif kind == "table_created" and event.table_created.HasField(self.SLUG):
            self._settings(getattr(event.table_created, self.SLUG))
        elif kind == "seed_committed":
            self.commitment = event.seed_committed.commitment
            self.deal_version = event.seed_committed.deal_version
        elif kind == "seed_revealed":
            self.seed = bytes(event.seed_revealed.seed)

    def _settings(self, settings: Any) -> None:
        """The table's settings, from its TableCreated or the lobby's Table."""
        raise NotImplementedError

    def _game(self, event: Any) -> None:
        """Fold one of the game's own events."""
        raise NotImplementedError
