"""``match``: list tables, play the race in a terminal, or follow a table's stream.

    match tables
    match play --new [--seats N] [--private] [--ready-window S] [--hints N] [--fill-now]
    match play --table ID | --invite CODE
    match watch --table ID --token TOKEN

Every subcommand takes ``--addr HOST:PORT`` (default: $MATCH_ADDR, else 127.0.0.1:50051) and,
for a lobby that serves TLS, ``--ca FILE`` (default: $MATCH_CA) or ``--tls`` (the system's
trusted roots). The board is printed as tile numbers, so it reads well with a screen reader;
see docs/client.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence

from match.v1 import common_pb2, race_service_pb2
from match_client import text
from match_client.client import (
    CommandReply,
    MatchClient,
    PlayerSession,
    Seat,
    default_address,
    default_ca,
    error_details,
    is_rpc_error,
    refusal_code,
    status_name,
)
from match_client.tracker import RaceView, ViewTracker

BOARD_DELAY_S = 0.1
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
Out = Callable[[str], None]


def say(line: str) -> None:
    print(line, flush=True)


# --- arguments ---------------------------------------------------------------------------


def _connection_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--addr",
        default=default,
        help="the lobby's gRPC address (default: $MATCH_ADDR, else 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--ca",
        metavar="FILE",
        default=default,
        help="speak TLS and verify the lobby with this CA certificate (PEM; default: $MATCH_CA)",
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        default=default if default is argparse.SUPPRESS else False,
        help="speak TLS and verify the lobby with the system's trusted roots",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="match", description="Play Match, the race, from a terminal."
    )
    _connection_options(parser, None)
    # The same options after the subcommand; SUPPRESS keeps one given before it.
    addr = argparse.ArgumentParser(add_help=False)
    _connection_options(addr, argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("tables", parents=[addr], help="list the open tables with a free seat")

    play = sub.add_parser("play", parents=[addr], help="make or join a table and play it")
    where = play.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", metavar="ID", help="join this open table")
    where.add_argument("--invite", metavar="CODE", help="join a private table by invite code")
    where.add_argument("--new", action="store_true", help="make a new table (you are its host)")
    play.add_argument("--seats", type=int, default=None, help="seats at a new table, 2..4")
    play.add_argument(
        "--private", action="store_true", help="a new private table (invite code, no bot)"
    )
    play.add_argument(
        "--ready-window",
        type=float,
        default=None,
        metavar="S",
        help="seconds each board's Ready stays open at a new table, 10..120 (default 30)",
    )
    play.add_argument(
        "--hints", type=int, default=None, metavar="N", help="hints per board, 0..10 (default 3)"
    )
    play.add_argument("--name", default=None, help="the name the others see (1..32 characters)")
    play.add_argument(
        "--fill-now",
        action="store_true",
        help="at a new open table: let the bot fill the empty seats now",
    )

    watch = sub.add_parser("watch", parents=[addr], help="print a table's stream")
    watch.add_argument("--table", required=True, metavar="ID")
    watch.add_argument("--token", required=True, help="your player token for that table")
    watch.add_argument("--after", type=int, default=0, metavar="N", help="resume after event N")
    return parser


def play_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a ``play`` command line, or None."""
    new_only = {
        "--seats": args.seats is not None,
        "--private": args.private,
        "--ready-window": args.ready_window is not None,
        "--hints": args.hints is not None,
        "--fill-now": args.fill_now,
    }
    if not args.new:
        used = [flag for flag, on in new_only.items() if on]
        if used:
            return f"{', '.join(used)} only go with --new"
    if args.fill_now and args.private:
        return "--fill-now is for open tables: a private table gets no bot"
    return None


def address(args: argparse.Namespace) -> str:
    return str(args.addr) if args.addr else default_address()


def ca_file(args: argparse.Namespace) -> str | None:
    """``--ca``, else $MATCH_CA, else None (with ``--tls``: the system's roots; else plain)."""
    return str(args.ca) if args.ca else default_ca()


def display_name(args: argparse.Namespace) -> str:
    if args.name:
        return str(args.name)
    with contextlib.suppress(Exception):
        return getpass.getuser()[:32] or "Player"
    return "Player"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "play":
        problem = play_problem(args)
        if problem:
            parser.error(problem)
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        return 130


async def _run(args: argparse.Namespace) -> int:
    try:
        client = MatchClient(address(args), ca_file=ca_file(args), tls=args.tls)
    except OSError as error:
        say(f"error: cannot read the CA file {ca_file(args)}: {error.strerror}")
        return 1
    async with client:
        try:
            if args.command == "tables":
                return await tables(client, say)
            if args.command == "watch":
                return await watch(client, args.table, args.token, args.after, say)
            return await play(client, args, say)
        except Exception as err:
            if not is_rpc_error(err):
                raise
            say(f"error: {describe_error(err)}")
            return 1


def describe_error(err: BaseException) -> str:
    """A failed call as the server put it: its message, and the refusal code if any."""
    code = refusal_code(err)
    status = status_name(err)
    if status == "UNAVAILABLE":
        return f"cannot reach the server ({error_details(err)})"
    return f"{error_details(err)} ({code or status.lower()})"


# --- tables ------------------------------------------------------------------------------


async def tables(client: MatchClient, out: Out) -> int:
    found = await client.list_tables()
    if not found:
        out("no open tables with a free seat")
    for table in found:
        out(text.table_line(table))
    return 0


# --- watch -------------------------------------------------------------------------------


async def watch(client: MatchClient, table_id: str, token: str, after: int, out: Out) -> int:
    tracker = ViewTracker(table_id=table_id)
    session = PlayerSession(client, table_id, token)
    if after:
        tracker.event_number = after
    async for item in session.watch(after):
        for line in print_item(tracker, item, quiet_opponents=False):
            out(line)
    return 0


def print_item(
    tracker: ViewTracker,
    item: race_service_pb2.WatchResponse,
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> list[str]:
    """Apply one Watch item to the tracker and return what to print for it."""
    if item.HasField("snapshot"):
        tracker.apply_watch(item)
        return text.snapshot_lines(tracker)
    return events_lines(tracker, [item.event], quiet_opponents, pairs_seen)


def events_lines(
    tracker: ViewTracker,
    envelopes: Sequence[common_pb2.EventEnvelope],
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> list[str]:
    """Apply events (each once) and return their lines, then the board after a change to the
    player's own tiles."""
    lines, own_change = tell(tracker, envelopes, quiet_opponents, pairs_seen)
    if own_change and not tracker.board_ended:
        lines += text.board_lines(tracker)
    return lines


def tell(
    tracker: ViewTracker,
    envelopes: Sequence[common_pb2.EventEnvelope],
    quiet_opponents: bool = True,
    pairs_seen: dict[tuple[str, int], int] | None = None,
) -> tuple[list[str], bool]:
    """Apply events (each once); their lines, and whether the player's own tiles changed.
    With ``quiet_opponents``, another player's move is told only when their pairs change (a
    line per turn of everybody is too much to listen to)."""
    lines: list[str] = []
    own_change = False
    seen = pairs_seen if pairs_seen is not None else {}
    for env in tracker.apply_events(envelopes):
        race = env.race if env.HasField("race") else None
        kind = race.WhichOneof("event") if race is not None else None
        if race is not None and kind == "opponent_moved" and quiet_opponents:
            m = race.opponent_moved
            key = (m.player, m.board)
            if seen.get(key, 0) == m.pairs:
                continue
            seen[key] = m.pairs
        if kind in ("tile_turned", "pair_found", "tiles_turned_down"):
            own_change = True
        lines += text.event_lines(env, tracker)
    return [line for line in lines if line], own_change


# --- play --------------------------------------------------------------------------------


async def play(client: MatchClient, args: argparse.Namespace, out: Out) -> int:
    name = display_name(args)
    if args.new:
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        seat = await client.create_table(
            seats=args.seats or 2,
            visibility=visibility,
            display_name=name,
            ready_window_ms=round((args.ready_window or 30) * 1000),
            hints_per_board=args.hints,
        )
    elif args.table:
        seat = await client.join_table(table_id=args.table, display_name=name)
    else:
        seat = await client.join_table(invite_code=args.invite, display_name=name)
    out(f"table {seat.table_id}, your seat {seat.seat}")
    if seat.invite_code:
        out(f"invite code {seat.invite_code}")
    game = Game(client, seat, out)
    with contextlib.suppress(Exception):
        game.tracker.note_table(await client.get_table(seat.table_id, seat.token))
    if args.fill_now:
        try:
            game.tracker.note_table(await client.start_table(seat.table_id, seat.token))
            out("the bot is filling the empty seats")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            out(f"could not start the table: {describe_error(err)}")
    out("type ? for help")
    return await game.run()


def start_stdin_reader(queue: asyncio.Queue[str | None]) -> None:
    """Read stdin lines in a daemon thread (it never holds up the exit) into ``queue``;
    None marks the end of input."""
    loop = asyncio.get_running_loop()

    def put(item: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: we are exiting
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def reader() -> None:
        for line in sys.stdin:
            put(line)
        put(None)

    threading.Thread(target=reader, name="stdin", daemon=True).start()


class Game:
    """One seat played from the terminal: prints what the server sends, sends what is typed."""

    def __init__(self, client: MatchClient, seat: Seat, out: Out) -> None:
        self.session = PlayerSession(client, seat.table_id, seat.token)
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        self.out = out
        self.pairs_seen: dict[tuple[str, int], int] = {}
        self.confirm_resign = False
        self._board_soon: asyncio.TimerHandle | None = None

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    async def run(self) -> int:
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        start_stdin_reader(queue)
        watcher = asyncio.create_task(self.watch())
        reader = asyncio.create_task(self.read_commands(queue))
        try:
            await asyncio.wait({watcher, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watcher, reader):
                task.cancel()
            await asyncio.gather(watcher, reader, return_exceptions=True)
        t = self.tracker
        if t.game_over:
            if t.seed is not None:
                self.out("anybody can deal the three boards again from the seed and check them")
            return 0
        return 0 if reader.done() else 1

    async def watch(self) -> None:
        failures = 0
        while True:
            try:
                async for item in self.session.watch(self.tracker.event_number):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.tracker.apply_watch(item)
                        self.show(text.snapshot_lines(self.tracker))
                    else:
                        self.take([item.event])
                    if self.tracker.game_over and self.tracker.seed is not None:
                        return
                if self.tracker.game_over:
                    return
            except Exception as err:
                if not is_rpc_error(err):
                    raise
                if status_name(err) in PERMANENT:
                    self.out(f"cannot follow the table: {describe_error(err)}")
                    return
                failures += 1
                if failures == 1:
                    self.out("connection lost; reconnecting")
            await asyncio.sleep(min(0.5 * 2 ** min(failures, 4), 5.0))

    async def read_commands(self, queue: asyncio.Queue[str | None]) -> None:
        while True:
            line = await queue.get()
            if line is None:
                self.out("input closed; bye")
                return
            await self.handle(text.parse_command(line))

    async def handle(self, command: text.Command) -> None:
        if command is None:
            return
        resign = isinstance(command, text.Simple) and command.name == "resign"
        if not resign:
            self.confirm_resign = False
        if isinstance(command, text.Unknown):
            self.out(f"not a command: {command.text!r}. Type ? for help")
        elif isinstance(command, text.Turn):
            tile = command.tile
            await self.call(lambda: self.session.turn(tile))
        elif command.name == "help":
            self.out(text.HELP)
        elif command.name == "board":
            self.show(text.board_lines(self.tracker))
        elif command.name == "scores":
            self.show(text.scores_lines(self.tracker))
        elif command.name == "ready":
            await self.call(self.session.press_ready)
        elif command.name == "hint":
            await self.call(self.session.hint)
        elif resign and not self.confirm_resign:
            self.confirm_resign = True
            self.out("type q again to resign: you will be out of the game")
        elif resign:
            self.confirm_resign = False
            await self.call(self.session.resign)

    async def call(self, send: Callable[[], Awaitable[CommandReply]]) -> None:
        """Send a command; print the events of its reply, or the server's refusal."""
        try:
            reply = await send()
        except Exception as err:
            if not is_rpc_error(err):
                raise
            failed = status_name(err) in ("UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL", "UNKNOWN")
            self.out(f"{'error' if failed else 'refused'}: {describe_error(err)}")
            return
        self.take(reply.events)
        self.tracker.apply_counters(reply.counters)

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope]) -> None:
        """Tell new events now; the board a moment later, once for a whole turn (the reply and
        the Watch stream each bring a turn's events, in one piece or several)."""
        lines, own_change = tell(self.tracker, envelopes, True, self.pairs_seen)
        self.show(lines)
        if own_change and self._board_soon is None:
            self._board_soon = asyncio.get_running_loop().call_later(BOARD_DELAY_S, self.board_now)

    def board_now(self) -> None:
        self._board_soon = None
        if not self.tracker.board_ended and self.tracker.status == RaceView.STATUS_PLAYING:
            self.show(text.board_lines(self.tracker))


if __name__ == "__main__":
    sys.exit(main())
