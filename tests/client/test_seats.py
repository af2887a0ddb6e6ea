"""Kept seats: owner-only, in the user's state directory, found again by --resume and watch."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from types import SimpleNamespace

from match_client.client import Seat
from match_client.seats import KeptTokens, KeyedSeats, SeatStore, resume_finders, state_dir


def test_the_state_directory_env_then_xdg_then_home() -> None:
    assert state_dir({"MATCH_STATE_DIR": "/a", "XDG_STATE_HOME": "/b", "HOME": "/c"}) == Path("/a")
    assert state_dir({"XDG_STATE_HOME": "/b", "HOME": "/c"}) == Path("/b/match")
    assert state_dir({"HOME": "/c"}) == Path("/c/.local/state/match")


def test_a_kept_seat_is_owner_only_and_found_again(tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "state" / "match")
    one = Seat("t1", "p1", "token-1", 1)
    two = Seat("t2", "p2", "token-2", 2, "K7QM4XRA")
    store.keep(one, "127.0.0.1:50051", "Ann", now_ms=1_000)
    store.keep(two, "127.0.0.1:50051", "Ann", now_ms=2_000)
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [k.table_id for k in store.all()] == ["t1", "t2"]
    kept = store.get("t1")
    assert kept is not None and kept.as_seat() == one
    latest = store.latest("127.0.0.1:50051")
    assert latest is not None and latest.as_seat() == two
    assert store.latest("elsewhere:1") is None
    store.forget("t2", "p2")
    assert [k.table_id for k in store.all()] == ["t1"]


def test_a_loose_directory_is_closed_and_a_broken_file_is_no_seats(tmp_path: Path) -> None:
    directory = tmp_path / "match"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    store = SeatStore(directory)
    store.path.write_text("{not json")
    assert store.all() == []
    store.keep(Seat("t", "p", "x", 1), "a:1", "Ann")
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_resume_asks_the_key_first_then_the_kept_tokens() -> None:
    store = SeatStore(Path("/nonexistent/match"))
    finders = resume_finders(store)
    assert [type(f) for f in finders] == [KeyedSeats, KeptTokens]  # tests/client/test_identity.py
    anonymous = SimpleNamespace(player_id=None)  # the finders read only the client's player
    assert asyncio.run(finders[1].find(anonymous, "a:1", None)) is None  # type: ignore[arg-type]


def test_two_players_sharing_a_state_directory_each_get_their_own_seat(tmp_path: Path) -> None:
    """Two keys on one machine (MATCH_CONFIG_DIR), one state directory, one table: neither
    seat replaces the other, and a signed-in player is given back only their own, by --resume
    and by --rematch; an anonymous client gets the newest, as before."""
    store = SeatStore(tmp_path)
    ann, bob = Seat("t1", "kann", "token-ann", 1), Seat("t1", "kbob", "token-bob", 2)
    store.keep(ann, "a:1", "Ann", now_ms=1_000)
    store.keep(bob, "a:1", "Bob", now_ms=2_000)
    assert [(k.table_id, k.player_id) for k in store.all()] == [("t1", "kann"), ("t1", "kbob")]
    mine = store.get("t1", "a:1", "kann")
    assert mine is not None and mine.as_seat() == ann
    newest = store.get("t1", "a:1")
    assert newest is not None and newest.as_seat() == bob
    assert store.get("t1", "a:1", "kcarol") is None
    kept = KeptTokens(store)
    for player, seat in (("kann", ann), ("kbob", bob)):
        client = SimpleNamespace(player_id=player)
        assert asyncio.run(kept.find(client, "a:1", "t1")) == seat  # type: ignore[arg-type]
        assert asyncio.run(kept.find(client, "a:1", None)) == seat  # type: ignore[arg-type]
    store.keep(Seat("t1", "kann", "token-ann-2", 1), "a:1", "Ann", now_ms=3_000)  # a new token
    assert [k.token for k in store.all()] == ["token-bob", "token-ann-2"]
    store.forget("t1", "kbob")  # Bob's token refused: Ann's seat stays
    assert [k.player_id for k in store.all()] == ["kann"]


def test_match_seats_lists_what_was_kept_without_the_tokens(tmp_path: Path) -> None:
    from match_client import cli

    store = SeatStore(tmp_path)
    said: list[str] = []
    assert cli.seats(store, said.append) == 0
    assert said == [f"no seats kept (in {store.path})"]
    store.keep(Seat("t1", "p1", "secret-token", 2), "127.0.0.1:50051", "Ann")
    said.clear()
    assert cli.seats(store, said.append) == 0
    assert said[0].startswith("t1  seat 2  as Ann  at 127.0.0.1:50051  kept ")
    assert "secret-token" not in said[0]
