"""The CLI, its pure parts: command lines, what is typed at the prompt, the board as text."""

from __future__ import annotations

import pytest

from match.v1 import common_pb2, lobby_pb2, race_pb2, views_pb2
from match_client import cli, terminal
from match_client.client import refusal_code
from match_client.race import play as race_play
from match_client.race import text
from match_client.race.tracker import Tile, ViewTracker

RV = views_pb2.RaceView
RE = race_pb2.RaceEvent


def args(*argv: str) -> object:
    return cli.build_parser().parse_args(list(argv))


# --- command lines -----------------------------------------------------------------------


def test_play_new_table_options() -> None:
    a = args("play", "--new", "--seats", "3", "--private", "--ready-window", "45", "--hints", "2")
    assert (a.new, a.seats, a.private, a.ready_window, a.hints) == (True, 3, True, 45.0, 2)  # type: ignore[attr-defined]
    assert cli.play_problem(a) is None  # type: ignore[arg-type]


def test_play_join_by_table_or_invite() -> None:
    a = args("play", "--table", "abc123def456", "--name", "Ann")
    assert (a.table, a.name, a.new) == ("abc123def456", "Ann", False)  # type: ignore[attr-defined]
    b = args("play", "--invite", "XK4P-9QZ2")
    assert b.invite == "XK4P-9QZ2"  # type: ignore[attr-defined]


def test_play_needs_exactly_one_table() -> None:
    with pytest.raises(SystemExit):
        args("play")
    with pytest.raises(SystemExit):
        args("play", "--new", "--table", "abc")


def test_new_table_options_only_go_with_new() -> None:
    a = args("play", "--table", "abc", "--seats", "3", "--fill-now")
    problem = cli.play_problem(a)  # type: ignore[arg-type]
    assert problem is not None and "--seats" in problem and "--fill-now" in problem


def test_fill_now_is_for_open_tables() -> None:
    a = args("play", "--new", "--private", "--fill-now")
    assert "private" in (cli.play_problem(a) or "")  # type: ignore[arg-type]


def test_one_option_only_goes_with_and_several_only_go_with() -> None:
    one = args("play", "--game", "race", "--new", "--level", "expert")
    assert cli.play_problem(one) == "--level only goes with --game number-match"  # type: ignore[arg-type]
    two = args("play", "--game", "race", "--new", "--level", "expert", "--daily")
    assert cli.play_problem(two) == "--level and --daily only go with --game number-match"  # type: ignore[arg-type]
    three = args("play", "--table", "abc", "--seats", "3", "--private", "--fill-now")
    assert cli.play_problem(three) == "--seats, --private and --fill-now only go with --new"  # type: ignore[arg-type]
    assert cli.play_problem(args("play", "--table", "abc", "--seats", "3")) == (  # type: ignore[arg-type]
        "--seats only goes with --new"
    )


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["play", "--new", "--bogus"], "match play: error: unrecognized arguments: --bogus"),
        (
            ["play", "--game", "number-match", "--new", "--replay-seed", "nothex"],
            "match play: error: --replay-seed is 64 hex digits",
        ),
        (["key", "show", "--bogus"], "match key show: error: unrecognized arguments: --bogus"),
    ],
)
def test_a_subcommands_bad_option_shows_that_subcommands_usage(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    usage = "usage: " + " ".join(error.split(":")[0].split())  # "usage: match play"
    assert err.startswith(usage + " "), err
    assert error in err


def test_addr_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATCH_ADDR", raising=False)
    assert cli.address(args("tables")) == "127.0.0.1:50051"  # type: ignore[arg-type]
    assert cli.address(args("tables", "--addr", "h:1")) == "h:1"  # type: ignore[arg-type]
    assert cli.address(args("--addr", "h:2", "tables")) == "h:2"  # type: ignore[arg-type]
    monkeypatch.setenv("MATCH_ADDR", "env:3")
    assert cli.address(args("watch", "--table", "t", "--token", "x")) == "env:3"  # type: ignore[arg-type]
    assert cli.address(args("play", "--new", "--addr", "h:4")) == "h:4"  # type: ignore[arg-type]


def test_watch_takes_table_and_token_or_what_the_client_kept() -> None:
    a = args("watch", "--table", "t", "--token", "secret", "--after", "7")
    assert (a.table, a.token, a.after) == ("t", "secret", 7)  # type: ignore[attr-defined]
    kept = args("watch")  # the latest kept seat (tests/client/test_seats.py)
    assert (kept.table, kept.token) == (None, None)  # type: ignore[attr-defined]


# --- the prompt --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("7", text.Turn(7)),
        ("  20 \n", text.Turn(20)),
        ("0", text.Turn(0)),  # the server says it is not a tile
        ("r", text.Simple("ready")),
        ("R", text.Simple("ready")),
        ("h", text.Simple("hint")),
        ("q", text.Simple("resign")),
        ("?", text.Simple("help")),
        ("b", text.Simple("board")),
        ("s", text.Simple("scores")),
        ("", None),
        ("   ", None),
        ("7 8", text.Unknown("7 8")),
        ("-3", text.Unknown("-3")),
        ("99999999", text.Unknown("99999999")),
        ("xyz", text.Unknown("xyz")),
    ],
)
def test_parse_command(line: str, command: text.Command) -> None:
    assert text.parse_command(line) == command


# --- the board as text -------------------------------------------------------------------


def test_a_face_down_board_is_its_numbers() -> None:
    tiles = {n: Tile(n) for n in range(1, 21)}
    lines = text.render_board(tiles)
    assert len(lines) == 5
    assert [line.split() for line in lines] == [
        ["1", "2", "3", "4"],
        ["5", "6", "7", "8"],
        ["9", "10", "11", "12"],
        ["13", "14", "15", "16"],
        ["17", "18", "19", "20"],
    ]


def test_an_up_tile_shows_its_number_and_symbol() -> None:
    tiles = {n: Tile(n) for n in range(1, 21)}
    tiles[7] = Tile(7, RV.TILE_STATE_SHOWING, 12)
    tiles[20] = Tile(20, RV.TILE_STATE_FOUND, 0)
    lines = text.render_board(tiles)
    assert lines[1].split() == ["5", "6", "7:bell", "8"]  # symbols are words, not numbers
    assert lines[4].split() == ["17", "18", "19", "20:sun"]
    # Columns line up for the eye; a screen reader reads the same tokens.
    assert lines[0].index("2") == lines[1].index("6")


def test_a_down_tile_never_shows_a_symbol() -> None:
    assert text.tile_text(Tile(3, RV.TILE_STATE_DOWN, None)) == "3"


def test_layout_after_the_reveal() -> None:
    lines = text.render_layout([s // 2 for s in range(20)])
    assert lines[0].split() == ["1:sun", "2:sun", "3:moon", "4:moon"]


# --- events as text ----------------------------------------------------------------------


def envelope(n: int, **race: object) -> common_pb2.EventEnvelope:
    return common_pb2.EventEnvelope(event_number=n, race=RE(**race))  # type: ignore[arg-type]


def tracker() -> ViewTracker:
    t = ViewTracker(player="ann")
    t.apply_events(
        [
            common_pb2.EventEnvelope(
                event_number=1,
                table=common_pb2.TableEvent(
                    player_seated=common_pb2.TableEvent.PlayerSeated(
                        seat=2, player_id="p-bob", display_name="bob"
                    )
                ),
            ),
            envelope(2, game_started=RE.GameStarted(players=["ann", "p-bob"])),
            envelope(3, ready_opened=RE.ReadyOpened(at=1, board=1, deadline=30_001)),
            envelope(4, countdown_started=RE.CountdownStarted(at=2, board=1, starts_at=3_002)),
            envelope(5, board_started=RE.BoardStarted(at=3_002, board=1)),
        ]
    )
    return t


def test_own_turn_and_a_rival_as_text() -> None:
    t = tracker()
    turned = envelope(
        6, tile_turned=RE.TileTurned(board=1, player="ann", tile=7, symbol=12, turn=1)
    )
    lines = race_play.events_lines(t, [turned])
    assert lines[0] == "you turned 7: bell (turn 1)"
    assert "7:bell" in "\n".join(lines)  # the board follows an own turn
    moved = envelope(7, opponent_moved=RE.OpponentMoved(board=1, player="p-bob", turns=14, pairs=3))
    assert race_play.events_lines(t, [moved], quiet_opponents=False) == ["bob: 3 pairs, 14 turns"]


def test_a_rival_is_told_only_when_their_pairs_change() -> None:
    t = tracker()
    seen: dict[tuple[str, int], int] = {}
    lines = []
    for n, (turns, pairs) in enumerate([(1, 0), (2, 1), (3, 1), (4, 2)], start=6):
        moved = envelope(
            n, opponent_moved=RE.OpponentMoved(board=1, player="p-bob", turns=turns, pairs=pairs)
        )
        lines += race_play.events_lines(t, [moved], pairs_seen=seen)
    assert lines == ["bob: 1 pair, 2 turns", "bob: 2 pairs, 4 turns"]


def test_an_event_is_told_once() -> None:
    t = tracker()
    ended = envelope(6, board_ended=RE.BoardEnded(board=1, reason=RE.END_REASON_TIME_CAP))
    assert race_play.events_lines(t, [ended]) == ["board 1 ended: the two minutes are up"]
    assert race_play.events_lines(t, [ended]) == []


def test_reveal_standings_and_seed_as_text() -> None:
    t = tracker()
    result = RE.BoardResult(
        player="p-bob", outcome=RE.OUTCOME_CLEARED, pairs=10, found=10, turns=30, time_ms=41_500
    )
    lines = race_play.events_lines(
        t,
        [
            envelope(
                6,
                board_revealed=RE.BoardRevealed(
                    board=1, layout=[s // 2 for s in range(20)], results=[result]
                ),
            )
        ],
    )
    assert lines[0] == "board 1 revealed, the whole layout:"
    assert lines[1].split() == ["1:sun", "2:sun", "3:moon", "4:moon"]
    assert lines[6] == "bob: cleared, 10 pairs, 30 turns, 41.5 s"
    assert lines[7:] == [  # between boards: the game's standings so far
        "standings after board 1 of 3:",
        "1. bob: 10 pairs, 41.5 s",
        "2. you: 0 pairs, 0.0 s",
    ]
    standing = RE.Standing(player="ann", place=1, pairs=25, time_ms=95_300, turns=80, hints=1)
    lines = race_play.events_lines(t, [envelope(7, game_ended=RE.GameEnded(standings=[standing]))])
    assert lines == [
        "the game is over",
        "final standings:",
        "1. you: 25 pairs, 95.3 s, 80 turns, 1 hint",
    ]
    seed = common_pb2.EventEnvelope(
        event_number=8,
        table=common_pb2.TableEvent(
            seed_revealed=common_pb2.TableEvent.SeedRevealed(seed=b"\xab" * 32, deal_version="v1")
        ),
    )
    assert race_play.events_lines(t, [seed]) == [f"seed published: {'ab' * 32} (v1)"]
    assert t.seed == b"\xab" * 32


def test_table_line() -> None:
    table = lobby_pb2.Table(
        table_id="0123456789abcdef",
        seats=3,
        created_at_ms=0,
        game_kind=common_pb2.GAME_KIND_CONCENTRATION,
    )
    table.taken.add(seat=1, player_id="p", display_name="Ann")
    line = terminal.table_line(table)
    assert line.startswith("0123456789abcdef  concentration  1/3 seats  created ")
    assert line.endswith("players: Ann")
    table.game_kind = 99  # a kind from a newer contract
    assert "  kind 99  " in terminal.table_line(table)


class FakeError(Exception):
    def __init__(self, trailing: list[tuple[str, str | bytes]]) -> None:
        self._trailing = trailing

    def trailing_metadata(self) -> list[tuple[str, str | bytes]]:
        return self._trailing


def test_refusal_code_from_trailing_metadata() -> None:
    assert refusal_code(FakeError([("match-refusal-code", "tile_face_up")])) == "tile_face_up"
    assert refusal_code(FakeError([("other", "x"), ("match-refusal-code", b"paused")])) == "paused"
    assert refusal_code(FakeError([])) is None
    assert refusal_code(ValueError("not a call")) is None


def test_ca_and_tls_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATCH_CA", raising=False)
    plain = args("tables")
    assert (cli.ca_file(plain), plain.tls) == (None, False)  # type: ignore[arg-type, attr-defined]
    assert cli.ca_file(args("tables", "--ca", "a.pem")) == "a.pem"  # type: ignore[arg-type]
    assert cli.ca_file(args("--ca", "b.pem", "tables")) == "b.pem"  # type: ignore[arg-type]
    assert args("--tls", "play", "--new").tls is True  # type: ignore[attr-defined]
    assert args("watch", "--table", "t", "--token", "x", "--tls").tls is True  # type: ignore[attr-defined]
    monkeypatch.setenv("MATCH_CA", "env.pem")
    assert cli.ca_file(args("tables")) == "env.pem"  # type: ignore[arg-type]
    assert cli.ca_file(args("tables", "--ca", "c.pem")) == "c.pem"  # type: ignore[arg-type]


def test_an_unreadable_ca_file_is_an_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["--ca", "/no/such/ca.pem", "tables"]) == 1
    assert "error: cannot read the CA file /no/such/ca.pem" in capsys.readouterr().out
