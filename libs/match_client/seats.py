"""Seats kept between runs of ``match``: a closed terminal is not a lost seat.

Every seat ``match play`` takes is kept, with its player token, in ``seats.json`` in the user's
state directory: ``$MATCH_STATE_DIR`` when set, else ``$XDG_STATE_HOME/match``, else
``~/.local/state/match``. The directory is made owner-only (0700) and the file is written
owner-only (0600), replaced whole, so a token is never readable by another user, nor half
written. ``match play --resume`` and ``match watch`` read it.

How a seat is found again is a small port, ``SeatFinder``, and ``resume_finders`` asks them in
order: first ``KeyedSeats``, the lobby's answer to the player's key (FindMySeats: every seat of
the signed-in player at a game not over, with a fresh token, from any terminal, process or
computer that has the key), then ``KeptTokens``, the tokens kept here (an anonymous seat, or a
lobby that cannot say).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from match_client.client import MatchClient, Seat, is_rpc_error, status_name

FILE_NAME = "seats.json"
KEEP = 50  # the most recent seats kept; older ones are dropped
MAX_AGE_MS = 7 * 24 * 3600 * 1000  # a token lasts 6 h (TOKEN_TTL_S); a week is plenty


def state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where ``match`` keeps its state (see the module's text)."""
    if env.get("MATCH_STATE_DIR"):
        return Path(env["MATCH_STATE_DIR"]).expanduser()
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]).expanduser() / "match"
    return Path(env.get("HOME") or Path.home()).expanduser() / ".local" / "state" / "match"


@dataclass(frozen=True, slots=True)
class KeptSeat:
    """A seat as kept: what CreateTable or JoinTable returned, where, and when."""

    table_id: str
    player_id: str
    token: str
    seat: int
    invite_code: str
    addr: str
    name: str
    kept_at_ms: int

    def as_seat(self) -> Seat:
        return Seat(self.table_id, self.player_id, self.token, self.seat, self.invite_code)


class SeatStore:
    """The kept seats of one user, newest last."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / FILE_NAME

    def all(self) -> list[KeptSeat]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        seats = []
        for item in raw.get("seats", []) if isinstance(raw, dict) else []:
            with contextlib.suppress(TypeError, ValueError):
                seats.append(KeptSeat(**item))
        return seats

    # Two players may share one state directory (two keys on one machine, `MATCH_CONFIG_DIR`,
    # at one table): a seat is kept, found and forgotten as its player's, and a signed-in
    # player (``player_id``) is only ever given back a seat of their own. None: any player's
    # (an anonymous client's seats have a player id of the lobby's choosing).

    def get(
        self, table_id: str, addr: str | None = None, player_id: str | None = None
    ) -> KeptSeat | None:
        for kept in reversed(self.all()):
            if kept.table_id == table_id and _matches(kept, addr, player_id):
                return kept
        return None

    def latest(self, addr: str | None = None, player_id: str | None = None) -> KeptSeat | None:
        for kept in reversed(self.all()):
            if _matches(kept, addr, player_id):
                return kept
        return None

    def keep(self, seat: Seat, addr: str, name: str, now_ms: int | None = None) -> KeptSeat:
        now = int(time.time() * 1000) if now_ms is None else now_ms
        kept = KeptSeat(
            seat.table_id, seat.player_id, seat.token, seat.seat, seat.invite_code, addr, name, now
        )
        others = [
            k
            for k in self.all()
            if (k.table_id, k.player_id) != (seat.table_id, seat.player_id)
            and now - k.kept_at_ms < MAX_AGE_MS
        ]
        self._write([*others, kept][-KEEP:])
        return kept

    def forget(self, table_id: str, player_id: str) -> None:
        seats = self.all()
        left = [k for k in seats if (k.table_id, k.player_id) != (table_id, player_id)]
        if len(left) != len(seats):
            self._write(left)

    def _write(self, seats: list[KeptSeat]) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # not ours to change (e.g. a shared directory)
            if self.directory.stat().st_mode & 0o077:
                self.directory.chmod(0o700)
        text = json.dumps({"seats": [asdict(k) for k in seats]}, indent=1)
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask, and if the file was there before
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(tmp, self.path)


def _matches(kept: KeptSeat, addr: str | None, player_id: str | None) -> bool:
    same_place = addr is None or kept.addr == addr
    return same_place and (player_id is None or kept.player_id == player_id)


class SeatFinder(Protocol):
    """A way to get a seat back: None when it has none for that table (or, with ``table_id``
    None, none at all at ``addr``)."""

    async def find(self, client: MatchClient, addr: str, table_id: str | None) -> Seat | None: ...


class KeptTokens:
    """The seats ``match play`` kept, with their tokens (valid for 6 h from when they were
    issued; the lobby says UNAUTHENTICATED after that)."""

    def __init__(self, store: SeatStore) -> None:
        self.store = store

    async def find(self, client: MatchClient, addr: str, table_id: str | None) -> Seat | None:
        me = client.player_id
        kept = self.store.get(table_id, addr, me) if table_id else self.store.latest(addr, me)
        return kept.as_seat() if kept is not None else None


class KeyedSeats:
    """The signed-in player's seats, as the lobby knows them (FindMySeats): at ``table_id``, or
    the newest table whose game is not over. None for an anonymous client, and when the lobby
    cannot say (a lobby without player keys): the next finder may know."""

    async def find(self, client: MatchClient, addr: str, table_id: str | None) -> Seat | None:
        if client.player_id is None:
            return None
        try:
            found = await client.find_my_seats(table_id or "")
        except Exception as err:
            if not is_rpc_error(err) or status_name(err) == "UNAVAILABLE":
                raise
            return None
        for seat in found:  # newest table first
            if table_id is None or seat.table_id == table_id:
                return client.my_seat(seat)
        return None


def resume_finders(store: SeatStore) -> list[SeatFinder]:
    """The finders ``--resume`` asks, in order: the player's key, then the kept tokens."""
    return [KeyedSeats(), KeptTokens(store)]
