"""ViewTracker: a snapshot, then events, hand-built as protobuf messages; and, over random games
played through the rules core, the tracker always says what ``player_view`` says."""

from __future__ import annotations

import random

import pytest

from match.v1 import common_pb2, race_pb2, race_service_pb2, views_pb2
from match_client.race.tracker import ViewTracker
from match_rules.errors import RuleError
from match_rules.race import commands as cmd
from match_rules.race import decide, evolve, initial_state, player_view, redact
from match_rules.race.game import to_proto
from match_rules.race.state import Phase, RaceState
from match_rules.race.view import RaceView as CoreView
from match_rules.race.view import Status, TileState

RV = views_pb2.RaceView
RE = race_pb2.RaceEvent
ME, BOB = "ann", "bob"
T0 = 1_000_000


def env(n: int, at: int = T0, **race: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id="t1",
        game_id="t1",
        game_kind=common_pb2.GAME_KIND_MATCH_RACE,
        event_number=n,
        server_time_ms=at,
        race=RE(**race),  # type: ignore[arg-type]
    )


def table_env(n: int, **table: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(
        table_id="t1",
        event_number=n,
        table=common_pb2.TableEvent(**table),  # type: ignore[arg-type]
    )


def playing_snapshot(event_number: int = 10) -> views_pb2.RaceView:
    """Board 1 under way; tile 4 is already found with tile 9 (symbol 3)."""
    view = RV(
        table_id="t1",
        game_id="t1",
        event_number=event_number,
        server_time_ms=T0 + 5_000,
        player=ME,
        phase=RV.PHASE_PLAYING,
        board=1,
        starts_at_ms=T0,
        ends_at_ms=T0 + 120_000,
        status=RV.STATUS_PLAYING,
        turns=2,
        pairs=1,
        hints_left=3,
        commitment="ab" * 32,
        deal_version="match-deal-v1",
    )
    for t in range(1, 21):
        if t in (4, 9):
            view.tiles.add(tile=t, state=RV.TILE_STATE_FOUND, symbol=3)
        else:
            view.tiles.add(tile=t, state=RV.TILE_STATE_DOWN)
    bob = view.opponents.add(player=BOB, status=RV.STATUS_PLAYING, display_name="Bob")
    bob.boards.add(board=1, pairs=0, turns=4, hints=0)
    return view


def tracker_from_snapshot() -> ViewTracker:
    t = ViewTracker(player=ME)
    t.apply_watch(race_service_pb2.WatchResponse(snapshot=playing_snapshot()))
    return t


def faces(t: ViewTracker) -> dict[int, tuple[int, int | None]]:
    return {n: (tile.state, tile.symbol) for n, tile in t.tiles.items() if tile.up}


# --- a snapshot, then events -------------------------------------------------------------


def test_snapshot_is_taken_whole() -> None:
    t = tracker_from_snapshot()
    assert t.event_number == 10
    assert t.phase == RV.PHASE_PLAYING and t.board == 1 and t.status == RV.STATUS_PLAYING
    assert faces(t) == {4: (RV.TILE_STATE_FOUND, 3), 9: (RV.TILE_STATE_FOUND, 3)}
    assert (t.turns, t.pairs, t.hints_left) == (2, 1, 3)
    assert t.starts_at_ms == T0 and t.ends_at_ms == T0 + 120_000
    assert [o.player for o in t.opponents] == [BOB]
    assert t.name(BOB) == "Bob"
    assert t.commitment == "ab" * 32 and t.seed is None


def test_own_faces_appear_then_go_back_down() -> None:
    t = tracker_from_snapshot()
    t.apply_events(
        [
            env(
                11,
                T0 + 6_000,
                tile_turned=RE.TileTurned(
                    at=T0 + 6_000, board=1, player=ME, tile=7, symbol=12, turn=3
                ),
            )
        ]
    )
    assert faces(t)[7] == (RV.TILE_STATE_SHOWING, 12)
    assert t.showing == (7,)
    t.apply_events(
        [
            env(
                12,
                T0 + 7_000,
                tile_turned=RE.TileTurned(
                    at=T0 + 7_000, board=1, player=ME, tile=8, symbol=5, turn=4
                ),
            ),
            env(
                13,
                T0 + 7_000,
                attempt_missed=RE.AttemptMissed(
                    at=T0 + 7_000, board=1, player=ME, tiles=[7, 8], paused_until=T0 + 8_000
                ),
            ),
        ]
    )
    assert faces(t)[7] == (RV.TILE_STATE_SHOWING, 12)
    assert faces(t)[8] == (RV.TILE_STATE_SHOWING, 5)
    assert t.paused_until_ms == T0 + 8_000 and t.turns == 4
    # The next accepted turn first puts the two back down: their faces are gone for good.
    t.apply_events(
        [
            env(
                14,
                T0 + 9_000,
                tiles_turned_down=RE.TilesTurnedDown(
                    at=T0 + 9_000, board=1, player=ME, tiles=[7, 8]
                ),
            ),
            env(
                15,
                T0 + 9_000,
                tile_turned=RE.TileTurned(
                    at=T0 + 9_000, board=1, player=ME, tile=1, symbol=12, turn=5
                ),
            ),
        ]
    )
    assert t.tiles[7].symbol is None and t.tiles[8].symbol is None
    assert not t.tiles[7].up and not t.tiles[8].up
    assert faces(t)[1] == (RV.TILE_STATE_SHOWING, 12)
    t.apply_events(
        [
            env(
                16,
                T0 + 10_000,
                tile_turned=RE.TileTurned(
                    at=T0 + 10_000, board=1, player=ME, tile=7, symbol=12, turn=6
                ),
            ),
            env(
                17,
                T0 + 10_000,
                pair_found=RE.PairFound(
                    at=T0 + 10_000, board=1, player=ME, tiles=[1, 7], symbol=12, pairs=2
                ),
            ),
        ]
    )
    assert faces(t)[1] == faces(t)[7] == (RV.TILE_STATE_FOUND, 12)
    assert t.found == frozenset({1, 4, 7, 9})
    assert not t.showing
    assert (t.turns, t.pairs) == (6, 2)
    assert t.event_number == 17


def test_another_players_move_changes_only_their_counts() -> None:
    t = tracker_from_snapshot()
    before = (dict(t.tiles), t.turns, t.pairs, t.paused_until_ms, t.hints_left, t.status)
    t.apply_events(
        [
            env(
                11,
                opponent_moved=RE.OpponentMoved(
                    at=T0 + 6_000, board=1, player=BOB, turns=14, pairs=3, hints=1
                ),
            )
        ]
    )
    assert (dict(t.tiles), t.turns, t.pairs, t.paused_until_ms, t.hints_left, t.status) == before
    bob = t.players[BOB]
    assert (bob.boards[1].pairs, bob.boards[1].turns, bob.boards[1].hints) == (3, 14, 1)
    assert t.status_of(BOB) == RV.STATUS_PLAYING


def test_events_already_applied_are_skipped_and_order_can_vary() -> None:
    """A command's reply runs ahead of the Watch stream: each event counts once."""
    t = tracker_from_snapshot()
    reply = [
        env(
            12,
            tile_turned=RE.TileTurned(at=T0 + 6_000, board=1, player=ME, tile=2, symbol=8, turn=3),
        ),
    ]
    assert t.apply_events(reply) == reply
    assert t.event_number == 10  # event 11 is still missing: resume a Watch after 10
    moved = env(11, opponent_moved=RE.OpponentMoved(at=T0 + 5_500, board=1, player=BOB, turns=5))
    assert t.apply_events([moved, *reply]) == [moved]
    assert t.event_number == 12
    assert t.turns == 3 and t.players[BOB].boards[1].turns == 5
    assert t.apply_events([env(5, board_started=RE.BoardStarted(at=T0, board=1))]) == []


def test_a_new_snapshot_replaces_everything() -> None:
    t = tracker_from_snapshot()
    t.apply_events(
        [
            env(
                11,
                tile_turned=RE.TileTurned(
                    at=T0 + 6_000, board=1, player=ME, tile=2, symbol=8, turn=3
                ),
            )
        ]
    )
    again = playing_snapshot(event_number=20)
    t.apply_snapshot(again)
    assert t.event_number == 20
    assert 2 not in faces(t)  # the snapshot holds only what is up now
    assert t.turns == 2


def test_board_from_ready_to_reveal_and_the_game_to_its_seed() -> None:
    t = ViewTracker(player=ME)
    layout = [s // 2 for s in range(20)]
    result = RE.BoardResult(
        player=ME, outcome=RE.OUTCOME_CLEARED, pairs=10, found=10, turns=24, time_ms=30_000
    )
    other = RE.BoardResult(
        player=BOB, outcome=RE.OUTCOME_BOARD_ENDED, pairs=4, found=4, turns=30, time_ms=50_000
    )
    opened = T0 - 10_000
    t.apply_events(
        [
            table_env(
                1,
                player_seated=common_pb2.TableEvent.PlayerSeated(
                    seat=1, player_id=ME, display_name="Ann"
                ),
            ),
            table_env(
                2,
                player_seated=common_pb2.TableEvent.PlayerSeated(
                    seat=2, player_id=BOB, display_name="Bot 1", is_bot=True
                ),
            ),
            env(
                3,
                opened,
                game_started=RE.GameStarted(
                    at=opened,
                    players=[ME, BOB],
                    bots=[BOB],
                    ready_window_ms=30_000,
                    hints_per_board=2,
                ),
            ),
            env(
                4, opened, ready_opened=RE.ReadyOpened(at=opened, board=1, deadline=opened + 30_000)
            ),
        ]
    )
    assert t.phase == RV.PHASE_READY and t.status == RV.STATUS_WAITING
    assert t.ready_deadline_ms == opened + 30_000 and t.hints_left == 2
    assert t.has_bot and t.players[BOB].is_bot and t.name(BOB) == "Bot 1"
    t.apply_events(
        [
            env(5, player_ready=RE.PlayerReady(at=T0 - 3_000, board=1, player=ME)),
        ]
    )
    assert t.status == RV.STATUS_READY and t.status_of(BOB) == RV.STATUS_WAITING
    t.apply_events(
        [
            env(6, player_ready=RE.PlayerReady(at=T0 - 3_000, board=1, player=BOB)),
            env(7, countdown_started=RE.CountdownStarted(at=T0 - 3_000, board=1, starts_at=T0)),
        ]
    )
    assert t.phase == RV.PHASE_COUNTDOWN and t.starts_at_ms == T0
    t.apply_events([env(8, board_started=RE.BoardStarted(at=T0, board=1))])
    assert t.phase == RV.PHASE_PLAYING and t.status == RV.STATUS_PLAYING
    t.apply_events(
        [
            env(
                9,
                tile_turned=RE.TileTurned(at=T0 + 1, board=1, player=ME, tile=1, symbol=0, turn=1),
            ),
            env(
                10,
                hint_given=RE.HintGiven(
                    at=T0 + 2, board=1, player=ME, tile=1, partner=2, hints_used=1
                ),
            ),
        ]
    )
    assert t.last_hint == (1, 2) and t.hints_left == 1
    t.apply_events(
        [
            env(
                11,
                board_cleared=RE.BoardCleared(
                    at=T0 + 30_000, board=1, player=ME, elapsed_ms=30_000
                ),
            ),
            env(
                12,
                board_taken=RE.BoardTaken(
                    at=T0 + 30_000, board=1, player=ME, grace_until=T0 + 50_000
                ),
            ),
        ]
    )
    assert t.status == RV.STATUS_DONE and t.outcome == RE.OUTCOME_CLEARED
    assert t.ends_at_ms == T0 + 50_000 and t.taken_by == ME
    t.apply_events(
        [
            env(
                13,
                board_ended=RE.BoardEnded(at=T0 + 50_000, board=1, reason=RE.END_REASON_GRACE_OVER),
            ),
            env(
                14,
                board_revealed=RE.BoardRevealed(
                    at=T0 + 50_000, board=1, layout=layout, results=[result, other]
                ),
            ),
            env(15, ready_opened=RE.ReadyOpened(at=T0 + 50_000, board=2, deadline=T0 + 80_000)),
        ]
    )
    assert [r.board for r in t.revealed] == [1] and list(t.revealed[0].layout) == layout
    assert t.players[BOB].boards[1].pairs == 4
    assert t.phase == RV.PHASE_READY and t.board == 2
    assert faces(t) == {} and (t.turns, t.pairs, t.hints_left) == (0, 0, 2)
    assert t.outcome == RE.OUTCOME_UNSPECIFIED
    standing = RE.Standing(player=ME, place=1, pairs=10, time_ms=30_000, turns=24)
    t.apply_events(
        [
            env(16, player_resigned=RE.PlayerResigned(at=T0 + 51_000, board=2, player=BOB)),
            env(17, game_ended=RE.GameEnded(at=T0 + 51_000, standings=[standing])),
            table_env(
                18,
                seed_revealed=common_pb2.TableEvent.SeedRevealed(
                    seed=b"\x01" * 32, deal_version="match-deal-v1"
                ),
            ),
        ]
    )
    assert t.status_of(BOB) == RV.STATUS_OUT
    assert t.game_over and [s.player for s in t.standings] == [ME]
    assert t.seed == b"\x01" * 32 and t.event_number == 18


def test_whose_view_it_is_comes_from_the_first_private_event() -> None:
    t = ViewTracker()  # a Watch with a token only, from event 1: no snapshot names the viewer
    t.apply_events(
        [
            env(1, game_started=RE.GameStarted(at=T0, players=[ME, BOB])),
            env(2, opponent_moved=RE.OpponentMoved(at=T0, board=1, player=BOB, turns=1)),
            env(3, tile_turned=RE.TileTurned(at=T0, board=1, player=ME, tile=1, symbol=4)),
        ]
    )
    assert t.player == ME and [o.player for o in t.opponents] == [BOB]


def test_a_missed_ready_puts_the_player_out() -> None:
    t = ViewTracker(player=ME)
    t.apply_events(
        [
            env(1, game_started=RE.GameStarted(at=T0, players=[ME, BOB], ready_window_ms=10_000)),
            env(2, ready_opened=RE.ReadyOpened(at=T0, board=1, deadline=T0 + 10_000)),
            env(3, player_missed_ready=RE.PlayerMissedReady(at=T0 + 10_000, board=1, player=ME)),
        ]
    )
    assert t.status == RV.STATUS_OUT and t.outcome == RE.OUTCOME_OUT
    assert t.hints_left == 0  # no bot, no hints


# --- random games through the rules core -------------------------------------------------

_PHASE = {
    Phase.NOT_STARTED: RV.PHASE_WAITING_FOR_PLAYERS,
    Phase.READY: RV.PHASE_READY,
    Phase.COUNTDOWN: RV.PHASE_COUNTDOWN,
    Phase.PLAYING: RV.PHASE_PLAYING,
    Phase.OVER: RV.PHASE_GAME_OVER,
}
_STATUS = {
    Status.WAITING: RV.STATUS_WAITING,
    Status.READY: RV.STATUS_READY,
    Status.PLAYING: RV.STATUS_PLAYING,
    Status.DONE: RV.STATUS_DONE,
    Status.OUT: RV.STATUS_OUT,
}
_TILE = {
    TileState.DOWN: RV.TILE_STATE_DOWN,
    TileState.SHOWING: RV.TILE_STATE_SHOWING,
    TileState.FOUND: RV.TILE_STATE_FOUND,
}


def expected(view: CoreView) -> dict[str, object]:
    return {
        "phase": _PHASE[view.phase],
        "board": view.board,
        "ready_deadline": view.ready_deadline if view.phase is Phase.READY else None,
        "starts_at": view.starts_at or 0,
        "ends_at": view.ends_at or 0,
        "status": _STATUS[view.status],
        "tiles": [(t.tile, _TILE[t.state], t.symbol) for t in view.tiles],
        "counts": (view.turns, view.pairs, view.hints_left, view.paused_until),
        "outcome": RE.Outcome.Value("OUTCOME_" + view.outcome.name) if view.outcome else 0,
        "opponents": [
            (o.player, _STATUS[o.status], [(p.board, p.pairs, p.turns, p.hints) for p in o.boards])
            for o in view.opponents
        ],
        "revealed": [list(layout) for layout in view.revealed],
        "standings": [(s.player, s.place, s.pairs, s.time_ms) for s in view.standings],
    }


def actual(t: ViewTracker) -> dict[str, object]:
    return {
        "phase": t.phase,
        "board": t.board,
        "ready_deadline": t.ready_deadline_ms if t.phase == RV.PHASE_READY else None,
        "starts_at": t.starts_at_ms,
        "ends_at": t.ends_at_ms,
        "status": t.status,
        "tiles": [(n, tile.state, tile.symbol) for n, tile in sorted(t.tiles.items())],
        "counts": (t.turns, t.pairs, t.hints_left, t.paused_until_ms),
        "outcome": t.outcome,
        "opponents": [
            (
                o.player,
                t.status_of(o.player),
                [(p.board, p.pairs, p.turns, p.hints) for _, p in sorted(o.boards.items())],
            )
            for o in t.opponents
        ],
        "revealed": [list(r.layout) for r in t.revealed],
        "standings": [(s.player, s.place, s.pairs, s.time_ms) for s in t.standings],
    }


class Table:
    """A game run by the rules core, every event redacted and sent to each player's tracker."""

    def __init__(self, rng: random.Random, players: tuple[str, ...], bots: frozenset[str]) -> None:
        deal = []
        for _ in range(3):
            tiles = rng.sample(range(25), 10) * 2
            rng.shuffle(tiles)
            deal.append(tuple(tiles))
        self.state: RaceState = initial_state(tuple(deal))
        self.players = players
        self.bots = bots
        self.number = 0
        self.trackers = {p: ViewTracker(player=p) for p in players}

    def run(self, command: cmd.Command) -> None:
        try:
            events = decide(self.state, command)
        except RuleError:
            return
        for e in events:
            self.state = evolve(self.state, e)
            self.number += 1
            for p, tracker in self.trackers.items():
                seen = redact(self.state, e, p)
                envelope = common_pb2.EventEnvelope(
                    table_id="t1",
                    event_number=self.number,
                    server_time_ms=e.at,
                    race=to_proto(seen),
                )
                assert tracker.apply_event(envelope)
                assert not tracker.apply_event(envelope)  # a repeat changes nothing
        for p, tracker in self.trackers.items():
            assert actual(tracker) == expected(player_view(self.state, p)), p


@pytest.mark.parametrize("seed", range(40))
def test_tracker_says_what_player_view_says(seed: int) -> None:
    rng = random.Random(seed)
    players = ("p1", "p2", "p3", "p4")[: rng.randint(2, 4)]
    bots = frozenset(rng.sample(players[1:], rng.randint(0, len(players) - 1)))
    table = Table(rng, players, bots)
    now = 1_000_000
    table.run(cmd.StartGame(now, players, bots, rng.choice((10_000, 30_000)), 3, "test"))
    # Some games are fast (clears under 12 s), some mostly random turns (80 turns run out).
    steps: tuple[int, ...] = (0, 50, 300, 700, 1_200, 1_200, 3_000)
    random_turns = 0.4
    if seed % 4 == 1:
        steps = (0, 50, 100, 200)
    elif seed % 4 == 2:
        steps, random_turns = (100, 300, 500), 0.85
    for _ in range(3_000):
        if table.state.phase is Phase.OVER:
            break
        now += rng.choice(steps) + (20_000 if rng.random() < 0.01 else 0)
        who = rng.choice(players)
        roll = rng.random()
        if roll < 0.1:
            for p in players:
                if rng.random() < 0.97:
                    table.run(cmd.PressReady(now, p))
        elif roll < 0.1 + random_turns:
            table.run(cmd.TurnTile(now, who, rng.randint(1, 20)))
        elif roll < 0.9 and table.state.board is not None and table.state.deal is not None:
            # A good memory: turn both tiles of a pair not found yet.
            layout = table.state.layout(table.state.board.number)
            mine = table.state.board.players[who]
            left = sorted({s for t, s in enumerate(layout, 1) if t not in mine.found})
            if left:
                symbol = rng.choice(left)
                for t, s in enumerate(layout, 1):
                    if s == symbol:
                        table.run(cmd.TurnTile(now, who, t))
        elif roll < 0.95:
            table.run(cmd.RequestHint(now, who))
        elif roll < 0.953:
            table.run(cmd.Resign(now, who))
        else:
            table.run(cmd.Tick(now))
    table.run(cmd.Tick(now + 10_000_000))
    assert table.state.phase is Phase.OVER
    for tracker in table.trackers.values():
        assert tracker.game_over and tracker.standings
