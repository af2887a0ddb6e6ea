"""The viewers of one table share the game's fold (services.lobby.viewer.SharedFold): each gets
exactly what it would have folded alone, event for event and snapshot for snapshot, while the
table's events are decoded and evolved once for all of them. Pure: real games' records, built
with the games' own rules (tests/audit/replay_records), no services."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from match.v1 import referee_pb2
from match_rules import registry
from services.lobby.viewer import SharedFold, TableViewer
from tests.audit.replay_records import TABLE
from tests.audit.test_replay import concentration_records, race_records
from tests.services.players.games import race_game

Records = list[referee_pb2.TableRecord]


def games() -> Iterator[tuple[str, Records, list[str]]]:
    yield "race, two players", race_records(), ["ann", "bob", ""]
    yield "concentration, a player and a CPU", concentration_records(), ["ann", "cpu1", ""]
    for seed in range(4):
        players = ["ann", "bob"]
        yield f"random race {seed}", race_game(random.Random(seed), players, TABLE), [*players, ""]


GAMES = list(games())


@pytest.fixture
def evolved(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every game's ``evolve`` calls."""
    calls = [0]
    for kind in {type(game) for game in registry.games()}:

        def counted(self: Any, state: Any, event: Any, evolve: Any = kind.evolve) -> Any:
            calls[0] += 1
            return evolve(self, state, event)

        monkeypatch.setattr(kind, "evolve", counted)
    return calls


def fold(viewer: TableViewer, records: Records) -> tuple[list[bytes], list[bytes]]:
    """Each record folded: what the viewer got (serialized) and its snapshot after each."""
    got: list[bytes] = []
    snapshots: list[bytes] = []
    for sequence, record in enumerate(records, start=1):
        got.extend(
            e.SerializeToString() for e in viewer.fold_record(sequence, record.SerializeToString())
        )
        if viewer.game is not None:
            snapshots.append(viewer.snapshot().SerializeToString())
    return got, snapshots


@pytest.mark.parametrize(("name", "records", "viewers"), GAMES, ids=[g[0] for g in GAMES])
def test_viewers_in_step_share_the_fold_and_get_what_each_would_alone(
    name: str, records: Records, viewers: list[str], evolved: list[int]
) -> None:
    alone = {v: fold(TableViewer(TABLE, v), records) for v in viewers}
    once_each = evolved[0] // len(viewers)
    evolved[0] = 0
    shared = SharedFold()
    table = {v: TableViewer(TABLE, v, shared) for v in viewers}
    together: dict[str, tuple[list[bytes], list[bytes]]] = {v: ([], []) for v in viewers}
    for sequence, record in enumerate(records, start=1):  # record by record, as live viewers
        for v in viewers:
            for event in table[v].fold_record(sequence, record.SerializeToString()):
                together[v][0].append(event.SerializeToString())
            together[v][1].append(table[v].snapshot().SerializeToString())
    assert together == alone
    assert once_each > 0 and evolved[0] == once_each  # once for all the viewers, not per viewer


def test_a_viewer_far_behind_folds_on_its_own_and_still_gets_its_view(
    evolved: list[int],
) -> None:
    records = race_records()
    alone = fold(TableViewer(TABLE, "bob"), records)
    evolved[0] = 0
    shared = SharedFold(keep=4)
    live = fold(TableViewer(TABLE, "ann", shared), records)  # the whole game, first
    late = fold(TableViewer(TABLE, "bob", shared), records)  # then from the start, far behind
    assert late == alone
    assert live == fold(TableViewer(TABLE, "ann"), records)
    assert len(shared._events) == 4  # only the last few events are kept
