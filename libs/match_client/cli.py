"""``match``: list tables, play a game in a terminal, or follow a table's stream.

    match tables
    match play --new [--seats N] [--private] [--ready-window S] [--hints N] [--fill-now]
    match play --game concentration --new [--seats N] [--fill-now] [--cards N]
               [--playing-cards] [--jokers] [--matching M] [--turn-limit S]
    match play --game match-cards --new [--seats N [--fill-now]] [--cards N] [--triples]
               [--difficulty D] [--pictures SET] [--code CODE]
    match play --game number-match --new [--level L | --daily | --level L --replay-seed HEX]
    match play --game match-5 --new [--seats 2..8] [--private] [--writing-seconds S]
               [--vote-seconds S]
    match play --table ID | --invite CODE
    match play --resume [ID]            # back to your seat (the newest game in progress without ID)
    match watch [--table ID] [--token TOKEN]
    match seats                         # the seats this user's client kept
    match profile [PLAYER_ID]           # your ratings, statistics and streak; another's profile
    match leaderboard --game KIND [--board NAME] [--page N]
    match key show | match key export [--out FILE]

``play`` and ``watch`` sign in with the player's key (``match_client.identity``: made on first
use and kept in the config directory; nothing to sign up for), so the seat is the player's and
``--resume`` finds it from any terminal that has the key; ``--anonymous`` plays without it.

Every subcommand takes ``--addr HOST:PORT`` (default: $MATCH_ADDR, else 127.0.0.1:50051) and,
for a lobby that serves TLS, ``--ca FILE`` (default: $MATCH_CA) or ``--tls`` (the system's
trusted roots). ``play`` shows a full-screen view (``match_client.screen``) on a terminal, and
lines (``--plain``, and whenever input or output is not a terminal) that read well with a
screen reader: tiles are numbers, symbols are words; see docs/client.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from match.v1 import common_pb2, lobby_pb2, race_service_pb2
from match_bus.clock import Clock
from match_client import (
    concentration,
    identity,
    match_cards,
    match_five,
    number_match,
    players,
    text,
    timing,
)
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
from match_client.clock import ServerClock
from match_client.seats import KeyedSeats, SeatStore, resume_finders, state_dir
from match_client.tracker import RaceView, ViewTracker
from match_rules import registry

GAMES = ("race", "concentration", "match-cards", "number-match", "match-5")
BOARD_DELAY_S = 0.1
TICK_S = 0.25  # how often the line mode looks at the clock for a milestone to say
PERMANENT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "INVALID_ARGUMENT"}
# A Watch from beyond the table's last event starts with a snapshot (docs/api.md, "Watch"):
# a resumed seat gets its view as it is now, not the whole game told again.
SNAPSHOT = 2**63 - 1
Out = Callable[[str], None]
CONCENTRATION = common_pb2.GAME_KIND_CONCENTRATION
MATCH_CARDS = common_pb2.GAME_KIND_MATCH_CARDS
NUMBER_MATCH = common_pb2.GAME_KIND_NUMBER_MATCH
MATCH_FIVE = common_pb2.GAME_KIND_MATCH_FIVE


@dataclass(frozen=True, slots=True)
class Settings:
    """What the environment says, read once at start."""

    state_dir: Path
    config_dir: Path  # where the player's key is kept (match_client.identity)
    ledger_key: str  # the ledger's verifier key file, for the audit command at the end
    ledger_addr: str | None  # only when not the default
    plain: bool  # $MATCH_PLAIN: always the line mode
    clock: Clock  # the system clock (tests run it faster: REFEREE_CLOCK_RATE)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        var = env.get("MATCH_VAR") or "var"
        return cls(
            state_dir=state_dir(env),
            config_dir=identity.config_dir(env),
            # Where `make run` keeps the ledger's verifier key; the operator's copy elsewhere.
            ledger_key=env.get("MATCH_LEDGER_KEY") or str(Path(var) / "ledger.vkey"),
            ledger_addr=env.get("LEDGER_ADDR") or None,
            plain=env.get("MATCH_PLAIN", "") not in ("", "0"),
            clock=Clock(
                float(env.get("REFEREE_CLOCK_RATE", "1")),
                int(env.get("REFEREE_CLOCK_ANCHOR_MS", "0")),
            ),
        )

    def server_clock(self) -> ServerClock:
        return ServerClock(self.clock.now_ms, self.clock.rate)


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
        prog="match",
        description="Play Match (the race), Concentration, Match Cards, Number Match or MATCH 5 "
        "from a terminal.",
    )
    _connection_options(parser, None)
    # The same options after the subcommand; SUPPRESS keeps one given before it.
    addr = argparse.ArgumentParser(add_help=False)
    _connection_options(addr, argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("tables", parents=[addr], help="list the open tables with a free seat")

    anonymous = argparse.ArgumentParser(add_help=False)
    anonymous.add_argument(
        "--anonymous",
        action="store_true",
        help="without your player key: the seat is nobody's (no rating, no statistics), and "
        "only this computer's kept seats find it again",
    )
    play = sub.add_parser(
        "play", parents=[addr, anonymous], help="make or join a table and play it"
    )
    play.add_argument(
        "--game",
        choices=GAMES,
        default="race",
        help="the game at a new table (default: race; a joined table plays its own game)",
    )
    where = play.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", metavar="ID", help="join this open table")
    where.add_argument("--invite", metavar="CODE", help="join a private table by invite code")
    where.add_argument("--new", action="store_true", help="make a new table (you are its host)")
    where.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="go back to your seat at table ID, or at the newest game in progress: the one "
        "your key has, else one this client kept",
    )
    play.add_argument(
        "--seats",
        type=int,
        default=None,
        help="seats at a new table: 2..4 for the race, 1..6 for Concentration, 1..4 for Match "
        "Cards (2 or more: a challenge table, each player on their own copy of one deal), 2..8 "
        "for MATCH 5 (default 2; it starts when every seat is taken)",
    )
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
    play.add_argument(
        "--name",
        default=None,
        help="the name the others see (1..32 characters); asked for when not given on a "
        "terminal, else a neutral one like 'Guest 417'",
    )
    play.add_argument(
        "--plain",
        action="store_true",
        default=None,
        help="lines, not the full-screen view: for screen readers (also $MATCH_PLAIN=1, and "
        "always when input or output is not a terminal)",
    )
    play.add_argument(
        "--fill-now",
        action="store_true",
        help="at a new open table: let the bot fill the empty seats now (Concentration: CPU "
        "players take them and the game starts)",
    )
    conc = play.add_argument_group("a new Concentration table")
    conc.add_argument(
        "--cards",
        type=int,
        default=None,
        help="the deck: 52, 36 or 24 cards (default 52); Match Cards: 12, 20, 30 or 60 in "
        "pairs, 12, 18, 30 or 60 in triples (default 12)",
    )
    conc.add_argument(
        "--playing-cards", action="store_true", help="playing cards instead of emoji pictures"
    )
    conc.add_argument(
        "--jokers", action="store_true", help="two jokers that pair (playing cards only)"
    )
    conc.add_argument(
        "--matching",
        choices=("identical", "rank-and-colour", "rank"),
        default=None,
        help="what pairs with what (playing cards only; default identical)",
    )
    conc.add_argument(
        "--turn-limit",
        type=int,
        default=None,
        metavar="S",
        help="seconds to flip each card of a turn: 0 (none, the default), 30 or 60",
    )

    cards = play.add_argument_group("a new Match Cards table")
    cards.add_argument(
        "--triples", action="store_true", help="find triples (3 cards an attempt), not pairs"
    )
    cards.add_argument(
        "--difficulty",
        choices=match_cards.DIFFICULTIES,
        default=None,
        help="the limit of failed attempts; hard adds look-alikes and the Same/Different "
        "pictures notice (default easy)",
    )
    cards.add_argument(
        "--pictures", choices=match_cards.PICTURE_SETS, default=None, help="default animals"
    )
    cards.add_argument(
        "--code",
        default=None,
        help="replay a published game code (the same cards in the same places; not ranked)",
    )

    numbers = play.add_argument_group("a new Number Match table (solo: the game starts at once)")
    numbers.add_argument(
        "--level",
        choices=number_match.LEVELS,
        default=None,
        help="how many numbers and additions: easy 27 and 5, medium 36 and 5, hard 45 and 4, "
        "expert 54 and 3, classic the paper game without a limit (default easy)",
    )
    numbers.add_argument(
        "--daily",
        action="store_true",
        help="today's daily puzzle (a hard board, the same for everybody; today in your time zone)",
    )
    numbers.add_argument(
        "--replay-seed",
        metavar="HEX",
        default=None,
        help="play a finished game's board again: the seed it revealed (64 hex digits), with "
        "its --level; never ranked",
    )

    five = play.add_argument_group("a new MATCH 5 table (it starts when every seat is taken)")
    five.add_argument(
        "--writing-seconds",
        type=int,
        default=None,
        metavar="S",
        help="the sand timer: seconds to write the links of a round, 30..600 (default 180)",
    )
    five.add_argument(
        "--vote-seconds",
        type=int,
        default=None,
        metavar="S",
        help="seconds to read and vote on one combination's links, 10..300 (default 45)",
    )

    watch = sub.add_parser("watch", parents=[addr, anonymous], help="print a table's stream")
    watch.add_argument(
        "--table",
        metavar="ID",
        help="default: your newest game in progress at --addr, else the latest seat this "
        "client kept there",
    )
    watch.add_argument(
        "--token", help="a player token for that table (default: your seat's, found as --resume)"
    )
    watch.add_argument("--after", type=int, default=0, metavar="N", help="resume after event N")
    sub.add_parser("seats", parents=[addr], help="the seats this client kept, newest last")

    profile = sub.add_parser(
        "profile",
        parents=[addr],
        help="your ratings, statistics and daily puzzle streak; or another player's profile",
    )
    profile.add_argument(
        "player_id",
        nargs="?",
        default=None,
        metavar="PLAYER_ID",
        help="another player's id (k and 23 hex digits): their name and ratings",
    )
    board = sub.add_parser("leaderboard", parents=[addr], help="one page of a game's leaderboard")
    board.add_argument("--game", choices=GAMES, required=True, help="the game")
    board.add_argument(
        "--board",
        default="",
        metavar="NAME",
        help="one of the game's boards (the page lists them); default: its main board, the "
        "rating (a solo game's: its best score)",
    )
    board.add_argument("--page", type=int, default=1, metavar="N", help="default 1")
    key = sub.add_parser(
        "key", help="your player key: you are this key, and losing it is losing the player"
    )
    key_sub = key.add_subparsers(dest="key_command", required=True)
    key_sub.add_parser("show", help="your player id and where your key is kept")
    export = key_sub.add_parser(
        "export", help="the key, to keep safe or to play as you on another computer"
    )
    export.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="a new file (written owner-only; an existing one is not replaced); default: stdout",
    )
    return parser


def play_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a ``play`` command line, or None."""
    if args.resume is not None and args.name:
        return "--name goes with a new seat, not with --resume"
    game_only = {
        "race": {
            "--ready-window": args.ready_window is not None,
            "--hints": args.hints is not None,
        },
        "concentration": {
            "--cards": args.cards is not None,
            "--playing-cards": args.playing_cards,
            "--jokers": args.jokers,
            "--matching": args.matching is not None,
            "--turn-limit": args.turn_limit is not None,
        },
        "match-cards": {
            "--triples": args.triples,
            "--difficulty": args.difficulty is not None,
            "--pictures": args.pictures is not None,
            "--code": args.code is not None,
        },
        "number-match": {
            "--level": args.level is not None,
            "--daily": args.daily,
            "--replay-seed": args.replay_seed is not None,
        },
        "match-5": {
            "--writing-seconds": args.writing_seconds is not None,
            "--vote-seconds": args.vote_seconds is not None,
        },
    }
    shared = {"--cards": ("concentration", "match-cards")}
    for game, flags in game_only.items():
        used = [f for f, on in flags.items() if on and args.game not in shared.get(f, (game,))]
        if used:
            games = " or ".join(f"--game {g}" for g in shared.get(used[0], (game,)))
            return f"{', '.join(used)} only go with {games}"
    new_only = {
        "--seats": args.seats is not None,
        "--private": args.private,
        "--fill-now": args.fill_now,
        "--cards": args.cards is not None,
        **game_only[args.game],
    }
    if not args.new:
        used = [flag for flag, on in new_only.items() if on]
        if used:
            return f"{', '.join(used)} only go with --new"
    if args.fill_now and args.game == "match-cards" and (args.seats or 1) < 2:
        return "--fill-now: a solo Match Cards table has no empty seat; add --seats 2 (up to 4)"
    if args.fill_now and args.game == "match-5":
        return (
            "--fill-now: no bot plays MATCH 5; the game starts when every seat is taken "
            "(the others join with --table ID, or --invite CODE at a --private table)"
        )
    if args.game == "number-match":
        problem = number_match_problem(args)
        if problem:
            return problem
    if args.fill_now and args.private:
        return "--fill-now is for open tables: a private table gets no bot"
    return None


def number_match_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a new Number Match table's options, or None."""
    if args.seats not in (None, 1) or args.fill_now:
        return "a Number Match table has one seat: leave out --seats and --fill-now"
    if args.daily and args.replay_seed is not None:
        return "--daily plays today's puzzle; --replay-seed another board: choose one"
    if args.daily and args.level not in (None, "hard"):
        return "the daily puzzle is a hard board: leave out --level"
    if args.replay_seed is not None:
        if args.level == "classic":
            return "classic always deals the same board: leave out --replay-seed"
        try:
            number_match.parse_seed(args.replay_seed)
        except ValueError as error:
            return str(error)
    return None


def address(args: argparse.Namespace) -> str:
    return str(args.addr) if args.addr else default_address()


def ca_file(args: argparse.Namespace) -> str | None:
    """``--ca``, else $MATCH_CA, else None (with ``--tls``: the system's roots; else plain)."""
    return str(args.ca) if args.ca else default_ca()


def neutral_name(rng: random.Random | None = None) -> str:
    """A name that says nothing about the person or their computer: ``Guest 417``."""
    return f"Guest {(rng or random.SystemRandom()).randint(100, 999)}"


def display_name(args: argparse.Namespace, ask: Callable[[str], str] | None = None) -> str:
    """``--name``; else what the person types when asked (on a terminal); else a neutral
    name. Never the computer's login name."""
    if args.name:
        return str(args.name)
    default = neutral_name()
    if ask is not None:
        with contextlib.suppress(EOFError, OSError):
            typed = ask(f"Your name at the table, as the others will see it [{default}]: ")
            if typed.strip():
                return typed.strip()[:32]
    return default


def use_plain(args: argparse.Namespace, settings: Settings) -> bool:
    """The line mode with ``--plain`` or $MATCH_PLAIN, and whenever input or output is not a
    terminal (a pipe, a script, a screen reader's log): the full-screen view only on a TTY."""
    if args.plain or settings.plain:
        return True
    return not (sys.stdin.isatty() and sys.stdout.isatty())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    if args.command == "play":
        problem = play_problem(args)
        if problem:
            parser.error(problem)
        args.plain = use_plain(args, settings)
        if args.resume is None:
            args.name = display_name(args, input if sys.stdin.isatty() else None)
    try:
        return asyncio.run(_run(args, settings))
    except KeyboardInterrupt:
        return 130


async def _run(args: argparse.Namespace, settings: Settings | None = None) -> int:
    settings = settings or Settings.from_env()
    if args.command == "seats":
        return seats(SeatStore(settings.state_dir), say)
    if args.command == "key":
        return key_command(args, settings, say)
    try:
        client = MatchClient(address(args), ca_file=ca_file(args), tls=args.tls)
    except OSError as error:
        say(f"error: cannot read the CA file {ca_file(args)}: {error.strerror}")
        return 1
    async with client:
        try:
            if args.command == "tables":
                return await tables(client, say)
            if args.command == "leaderboard":
                return await leaderboard(client, args, settings, say)
            if args.command == "profile":
                return await profile(client, args, settings, say)
            if not args.anonymous and not await sign_in(client, settings, say):
                return 1
            if args.command == "watch":
                return await watch_kept(client, args, settings, say)
            return await play(client, args, settings, say)
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


# --- the player's key ------------------------------------------------------------------------


def user_key(settings: Settings, out: Out, create: bool = True) -> identity.PlayerKey | None:
    """The user's key, made (with a note where it is kept) when ``create`` and there is none;
    None, with the reason said, when it cannot be used."""
    path = identity.key_path(settings.config_dir)
    try:
        if create:
            key, made = identity.load_or_create(settings.config_dir)
        elif not (path.exists() or path.is_symlink()):
            out(f"no player key yet (in {path}): `match play` makes one the first time")
            return None
        else:
            key, made = identity.load(path), False
    except identity.KeyFileError as error:
        out(f"error: {error}")
        return None
    except OSError as error:
        out(f"error: cannot make your player key in {settings.config_dir}: {error.strerror}")
        return None
    if made:
        out(
            f"you are player {key.player_id}: your key is {key.path}; it is the only proof, "
            "keep a copy (match key export)"
        )
    return key


async def sign_in(client: MatchClient, settings: Settings, out: Out) -> bool:
    """Sign in with the user's key (made if missing). False, said, when the key cannot be
    used; a lobby without player keys is played anonymously, with a note."""
    key = user_key(settings, out)
    if key is None:
        return False
    try:
        await client.sign_in(key.private)
    except Exception as err:
        if not is_rpc_error(err) or status_name(err) != "UNIMPLEMENTED":
            raise
        out("this lobby does not know player keys: playing without yours")
    return True


def key_command(
    args: argparse.Namespace, settings: Settings, out: Out, stdout: IO[bytes] | None = None
) -> int:
    """``match key show`` and ``match key export``."""
    key = user_key(settings, out, create=False)
    if key is None:
        return 1
    if args.key_command == "show":
        out(f"player {key.player_id}")
        out(f"key: {key.path} (keep a copy: match key export --out FILE)")
        return 0
    target = Path(args.out).expanduser() if args.out else None
    try:
        identity.export(key, target, stdout or sys.stdout.buffer)
    except identity.KeyFileError as error:
        out(f"error: {error}")
        return 1
    if target is not None:
        out(
            f"your key is in {target} (owner-only). Keep it safe: whoever has it plays as you. "
            f"To play as {key.player_id} on another computer, put it there as "
            f"{identity.KEY_FILE} in match's config directory (chmod 600)"
        )
    return 0


# --- profiles and leaderboards ---------------------------------------------------------------


async def profile(
    client: MatchClient, args: argparse.Namespace, settings: Settings, out: Out
) -> int:
    """``match profile``: the caller's profile, statistics and streak (signed in with the key);
    with a player id, that player's public profile."""
    if args.player_id:
        for line in players.profile_lines(await client.profile(args.player_id)):
            out(line)
        return 0
    key = user_key(settings, out, create=False)
    if key is None:
        return 1
    await client.sign_in(key.private)
    lines = players.profile_lines(await client.my_profile(), own=True)
    lines += players.statistics_lines(await client.my_statistics())
    lines += players.streak_lines(await client.my_streak(), client.command())
    for line in lines:
        out(line)
    return 0


async def leaderboard(
    client: MatchClient, args: argparse.Namespace, settings: Settings, out: Out
) -> int:
    """``match leaderboard``: one page of a game's board, the caller's row marked."""
    if args.page < 1:
        out("--page counts from 1")
        return 1
    board = "" if args.board == "main" else args.board  # "main" as the footer names it
    page = await client.leaderboard(players.KINDS[args.game], board, args.page)
    me = None
    with contextlib.suppress(identity.KeyFileError, OSError):  # only to mark the caller's row
        me = identity.load(identity.key_path(settings.config_dir)).player_id
    for line in players.leaderboard_lines(args.game, board, page, me, client.command()):
        out(line)
    return 0


# --- tables ------------------------------------------------------------------------------


async def tables(client: MatchClient, out: Out) -> int:
    """The open tables with a free seat, of every game, each game's newest first."""
    found = [
        table
        for game in registry.games()
        for table in await client.list_tables(cast(common_pb2.GameKind, game.kind))
    ]
    if not found:
        out("no open tables with a free seat")
    for table in found:
        out(text.table_line(table))
    return 0


# --- kept seats --------------------------------------------------------------------------


def seats(store: SeatStore, out: Out) -> int:
    kept = store.all()
    if not kept:
        out(f"no seats kept (in {store.path})")
    for k in kept:
        out(
            f"{k.table_id}  seat {k.seat}  as {k.name}  at {k.addr}  "
            f"kept {text.clock_time(k.kept_at_ms)}"
        )
    return 0


# --- watch -------------------------------------------------------------------------------


async def find_seat(
    client: MatchClient, store: SeatStore, table_id: str | None
) -> tuple[Seat, str] | None:
    """The caller's seat at ``table_id`` (or the newest one) from the first finder that has
    one, and how it was found."""
    for finder in resume_finders(store):
        seat = await finder.find(client, client.address, table_id)
        if seat is not None:
            how = "found by your key" if isinstance(finder, KeyedSeats) else "kept by this client"
            return seat, how
    return None


async def watch_kept(
    client: MatchClient, args: argparse.Namespace, settings: Settings, out: Out
) -> int:
    """``match watch``: with ``--token``, as given; else with the seat ``--resume`` would find
    (the key's, else the one this client kept)."""
    table, token = args.table, args.token
    if not token:
        store = SeatStore(settings.state_dir)
        found = await find_seat(client, store, table)
        if found is None:
            where = f"table {table}" if table else f"any table at {client.address}"
            out(
                f"no seat of yours at {where} (none kept in {store.path}): give --table and --token"
            )
            return 1
        seat, how = found
        out(f"watching table {seat.table_id} with your seat {seat.seat} ({how})")
        return await watch(client, seat.table_id, seat.token, args.after, out, seat.player_id)
    if not table:
        out("--token needs --table")
        return 1
    return await watch(client, table, token, args.after, out)


async def watch(
    client: MatchClient, table_id: str, token: str, after: int, out: Out, player: str = ""
) -> int:
    tracker = ViewTracker(player=player, table_id=table_id)
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
    # One at a time: each is told as things stood right after it.
    for env in (e for one in envelopes for e in tracker.apply_events([one])):
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
        if kind == "board_started" and tracker.status == RaceView.STATUS_PLAYING:
            own_change = True  # a fresh board to play: show it
        lines += text.event_lines(env, tracker)
    return [line for line in lines if line], own_change


# --- play --------------------------------------------------------------------------------


async def play(client: MatchClient, args: argparse.Namespace, settings: Settings, out: Out) -> int:
    store = SeatStore(settings.state_dir)
    early: list[str] = []  # the full-screen view shows these in its log
    note = out if args.plain else early.append
    if args.resume is not None:
        return await resume(client, args, settings, store, note, early)
    name = args.name or display_name(args)
    if args.new and args.game == "concentration":
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        seat = await client.create_concentration_table(
            seats=args.seats or 1,
            visibility=visibility,
            display_name=name,
            settings=concentration.settings_from(
                args.cards, args.playing_cards, args.jokers, args.matching, args.turn_limit or 0
            ),
        )
    elif args.new and args.game == "match-cards":
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        seat = await client.create_match_cards_table(
            seats=args.seats or 1,
            visibility=visibility,
            display_name=name,
            settings=match_cards.settings_from(
                args.cards, args.triples, args.difficulty, args.pictures, args.code
            ),
        )
    elif args.new and args.game == "number-match":
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        seat = await client.create_number_match_table(
            visibility=visibility,
            display_name=name,
            settings=number_match.settings_from(args.level, args.daily, args.replay_seed),
        )
    elif args.new and args.game == "match-5":
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        seat = await client.create_match_five_table(
            seats=args.seats or 2,
            visibility=visibility,
            display_name=name,
            settings=match_five.settings_from(args.writing_seconds, args.vote_seconds),
        )
    elif args.new:
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
    note(f"table {seat.table_id}, your seat {seat.seat}, as {name}")
    if seat.invite_code:
        note(f"invite code {seat.invite_code}")
    try:
        store.keep(seat, client.address, name)
        note(
            f"your seat is kept in {store.path}: if this terminal closes, "
            f"`{client.command('play --resume')}` takes you back to it"
        )
    except OSError as error:
        note(f"could not keep your seat in {store.path} ({error.strerror}): --resume cannot")
    table = None
    with contextlib.suppress(Exception):
        table = await client.get_table(seat.table_id, seat.token)
    if (table is not None and table.game_kind == CONCENTRATION) or (
        table is None and args.new and args.game == "concentration"
    ):
        return await play_concentration(client, seat, table, args, settings, note, early)
    if (table is not None and table.game_kind == MATCH_CARDS) or (
        table is None and args.new and args.game == "match-cards"
    ):
        return await play_match_cards(client, seat, table, args, settings, note, early)
    if (table is not None and table.game_kind == NUMBER_MATCH) or (
        table is None and args.new and args.game == "number-match"
    ):
        return await play_number_match(client, seat, table, args, settings, note, early)
    if (table is not None and table.game_kind == MATCH_FIVE) or (
        table is None and args.new and args.game == "match-5"
    ):
        return await play_match_five(client, seat, table, args, settings, note, early)
    game = Game(client, seat, note, settings=settings, show_boards=args.plain)
    if table is not None:
        game.tracker.note_table(table)
    if args.fill_now:
        try:
            game.tracker.note_table(await client.start_table(seat.table_id, seat.token))
            note("the bot is filling the empty seats")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            note(f"could not start the table: {describe_error(err)}")
    return await run_game(game, args.plain, early, name)


async def play_concentration(
    client: MatchClient,
    seat: Seat,
    table: lobby_pb2.Table | None,
    args: argparse.Namespace,
    settings: Settings,
    note: Out,
    early: list[str],
    resumed: bool = False,
) -> int:
    """A seat at a Concentration table: ``--fill-now`` seats CPU players and starts the game."""
    play = concentration.ConcentrationPlay(
        client,
        seat,
        note,
        settings.server_clock(),
        show_board=args.plain,
        resumed=resumed,
    )
    if table is not None:
        play.tracker.note_table(table)
    if getattr(args, "fill_now", False):
        try:
            play.tracker.note_table(await client.start_table(seat.table_id, seat.token))
            note("CPU players take the empty seats; the game starts")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            note(f"could not start the table: {describe_error(err)}")
    if args.plain:
        return await play.run_lines()
    from match_client.concentration_screen import ConcentrationApp

    code = await ConcentrationApp(play, early).run_game()
    for line in concentration.standings_lines(play.tracker) + concentration.seed_lines(
        play.tracker
    ):
        print(line, flush=True)  # the screen is gone: keep the end on the terminal
    return code


def audit_line(game_id: str, settings: Settings) -> str:
    command = text.audit_command(game_id, settings.ledger_key, settings.ledger_addr)
    return f"check this game against the ledger: {command}"


async def play_match_cards(
    client: MatchClient,
    seat: Seat,
    table: lobby_pb2.Table | None,
    args: argparse.Namespace,
    settings: Settings,
    note: Out,
    early: list[str],
    resumed: bool = False,
) -> int:
    """A seat at a Match Cards table: solo, it is playing already; at a challenge table it
    starts when the last seat is taken, and ``--fill-now`` lets the bot take the empty ones."""
    play = match_cards.MatchCardsPlay(
        client,
        seat,
        note,
        settings.server_clock(),
        audit=audit_line(seat.table_id, settings),
        show_board=args.plain,
        resumed=resumed,
    )
    if table is not None:
        play.tracker.note_table(table)
    if getattr(args, "fill_now", False):
        try:
            play.tracker.note_table(await client.start_table(seat.table_id, seat.token))
            note("the bot takes the empty seats; the game starts")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            note(f"could not start the table: {describe_error(err)}")
    if args.plain:
        return await play.run_lines()
    from match_client.match_cards_screen import MatchCardsApp

    code = await MatchCardsApp(play, early).run_game()
    if play.ended:  # the screen is gone: keep the end on the terminal
        for line in match_cards.end_lines(play.tracker, play.audit, play.match):
            print(line, flush=True)
    return code


async def play_number_match(
    client: MatchClient,
    seat: Seat,
    table: lobby_pb2.Table | None,
    args: argparse.Namespace,
    settings: Settings,
    note: Out,
    early: list[str],
    resumed: bool = False,
) -> int:
    """The one seat of a Number Match table: the game is under way already."""
    play = number_match.NumberMatchPlay(
        client,
        seat,
        note,
        settings.server_clock(),
        audit=audit_line(seat.table_id, settings),
        show_board=args.plain,
        resumed=resumed,
    )
    if table is not None:
        play.tracker.note_table(table)
    if args.plain:
        return await play.run_lines()
    from match_client.number_match_screen import NumberMatchApp

    code = await NumberMatchApp(play, early).run_game()
    if play.ended:  # the screen is gone: keep the end on the terminal
        for line in number_match.end_lines(play.tracker, play.audit, play.match):
            print(line, flush=True)
    return code


async def play_match_five(
    client: MatchClient,
    seat: Seat,
    table: lobby_pb2.Table | None,
    args: argparse.Namespace,
    settings: Settings,
    note: Out,
    early: list[str],
    resumed: bool = False,
) -> int:
    """A seat at a MATCH 5 table: it starts when every seat is taken. Always the line mode
    (MATCH 5 is words typed and read; there is no full-screen view)."""
    if not args.plain:  # what was kept for a full-screen log goes on the terminal now
        for line in early:
            say(line)
        early.clear()
        note = say
    play = match_five.MatchFivePlay(
        client,
        seat,
        note,
        settings.server_clock(),
        audit=audit_line(seat.table_id, settings),
        resumed=resumed,
    )
    if table is not None:
        play.tracker.note_table(table)
        waiting = table.status == lobby_pb2.Table.STATUS_WAITING
        if not resumed and waiting and len(table.taken) < table.seats:
            how = f"--invite {seat.invite_code}" if seat.invite_code else f"--table {seat.table_id}"
            note(f"the others join with: {client.command('play ' + how)}")
            note(match_five.waiting_line(play.tracker))
    return await play.run_lines()


async def run_game(game: Game, plain: bool, early: list[str], name: str) -> int:
    if plain:
        game.out("type ? for help")
        return await game.run()
    from match_client.screen import MatchApp

    code = await MatchApp(game, early, name).run_game()
    if game.ended:  # the screen is gone: keep the way to check the game on the terminal
        print(game.audit_line, flush=True)
    return code


async def resume(
    client: MatchClient,
    args: argparse.Namespace,
    settings: Settings,
    store: SeatStore,
    out: Out,
    early: list[str],
) -> int:
    """``--resume``: back to a seat, from the first finder that has one (the key's seats, then
    the ones this client kept). Every game plays on from the seat as it is now."""
    table_id = args.resume or None
    found = await find_seat(client, store, table_id)
    if found is None:
        where = f"table {table_id}" if table_id else f"a game in progress at {client.address}"
        asked = "your key has none there, and " if client.player_id else ""
        out(f"no seat of yours at {where}: {asked}none is kept in {store.path} (match seats)")
        return 1
    seat = found[0]
    try:
        table = await client.get_table(seat.table_id, seat.token)
    except Exception as err:
        if not is_rpc_error(err):
            raise
        out(f"cannot go back to table {seat.table_id}: {describe_error(err)}")
        if status_name(err) in ("UNAUTHENTICATED", "NOT_FOUND"):
            store.forget(seat.table_id)
            out("that seat is no longer usable (a token lasts 6 hours); it is forgotten")
        return 1
    out(f"back at table {seat.table_id}, your seat {seat.seat}")
    name = next((s.display_name for s in table.taken if s.player_id == seat.player_id), "")
    with contextlib.suppress(OSError):  # the fresh token, for `match watch` and the next time
        store.keep(seat, client.address, name)
    if table.game_kind == CONCENTRATION:
        return await play_concentration(
            client, seat, table, args, settings, out, early, resumed=True
        )
    if table.game_kind == MATCH_CARDS:
        return await play_match_cards(client, seat, table, args, settings, out, early, resumed=True)
    if table.game_kind == NUMBER_MATCH:
        return await play_number_match(
            client, seat, table, args, settings, out, early, resumed=True
        )
    if table.game_kind == MATCH_FIVE:
        return await play_match_five(client, seat, table, args, settings, out, early, resumed=True)
    game = Game(client, seat, out, settings=settings, show_boards=args.plain, resumed=True)
    game.tracker.note_table(table)
    return await run_game(game, args.plain, early, name)


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
    """One seat played from the terminal: tells what the server sends, sends what is typed.

    The same for both views: ``out`` takes each line (printed in the line mode, appended to the
    event log in the full-screen view), ``show_boards`` prints the board after each own turn
    (the line mode; the full-screen view draws it), and ``changed`` is called after anything
    that may change the screen."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        out: Out,
        *,
        settings: Settings | None = None,
        show_boards: bool = True,
        resumed: bool = False,
    ) -> None:
        self.settings = settings or Settings.from_env()
        self.seat = seat
        self.session = PlayerSession(client, seat.table_id, seat.token)
        self.tracker = ViewTracker(player=seat.player_id, table_id=seat.table_id)
        self.clock = self.settings.server_clock()
        self.out = out
        self.show_boards = show_boards
        self.resumed = resumed
        self.changed: Callable[[], None] = lambda: None
        self.pairs_seen: dict[tuple[str, int], int] = {}
        self.said: set[tuple[str, int, int]] = set()
        self.confirm_resign = False
        self.ended = False
        self._board_soon: asyncio.TimerHandle | None = None

    def show(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.out(line)

    def now(self) -> int:
        return self.clock.now()

    async def run(self) -> int:
        """The line mode: stdin in a thread, the stream, and the clock's milestones."""
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        start_stdin_reader(queue)
        watcher = asyncio.create_task(self.watch())
        reader = asyncio.create_task(self.read_commands(queue))
        ticker = asyncio.create_task(self.ticks())
        try:
            await asyncio.wait({watcher, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watcher, reader, ticker):
                task.cancel()
            await asyncio.gather(watcher, reader, ticker, return_exceptions=True)
        if self.tracker.game_over:
            return 0
        return 0 if reader.done() else 1

    async def ticks(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self.tick()

    def tick(self) -> None:
        """Say a clock milestone when one is due (Ready closing, the board's last minute...)."""
        self.show(timing.announcements(self.tracker, self.now(), self.said))

    def note_time(self, server_ms: int) -> None:
        self.clock.observe(server_ms)

    async def watch(self) -> None:
        failures = 0
        while True:
            start = self.tracker.event_number or (SNAPSHOT if self.resumed else 0)
            try:
                async for item in self.session.watch(start):
                    failures = 0
                    if item.HasField("snapshot"):
                        self.tracker.apply_watch(item)
                        self.note_time(item.snapshot.server_time_ms)
                        self.show(text.snapshot_lines(self.tracker))
                        self.show(text.running_lines(self.tracker))
                        clock = timing.clock_line(self.tracker, self.now())
                        self.show([clock] if clock else [])
                        self.changed()
                    else:
                        self.take([item.event])
                    if self.tracker.game_over and self.tracker.seed is not None:
                        self.finish()
                        return
                if self.tracker.game_over:
                    self.finish()
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

    def finish(self) -> None:
        """The game is over: how anybody can check it."""
        if self.ended:
            return
        self.ended = True
        t = self.tracker
        if t.seed is not None:
            self.out("anybody can deal the three boards again from the seed and check them")
        self.out(self.audit_line)
        self.changed()

    @property
    def audit_line(self) -> str:
        t = self.tracker
        game = t.game_id or t.table_id
        command = text.audit_command(game, self.settings.ledger_key, self.settings.ledger_addr)
        return f"check this game against the ledger: {command}"

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
        playing = isinstance(command, text.Turn) or (
            isinstance(command, text.Simple) and command.name in ("ready", "hint", "resign")
        )
        if playing and timing.is_out(self.tracker):
            self.out("you are out of the game: you can follow it, not play; Ctrl-D leaves")
        elif isinstance(command, text.Unknown):
            self.out(f"not a command: {command.text!r}. Type ? for help")
        elif isinstance(command, text.Turn):
            tile = command.tile
            await self.call(lambda: self.session.turn(tile))
        elif command.name == "help":
            self.out(text.HELP)
        elif command.name == "board":
            self.show(text.board_lines(self.tracker, self.now()))
        elif command.name == "scores":
            self.show(text.scores_lines(self.tracker))
        elif command.name == "time":
            self.out(timing.clock_line(self.tracker, self.now()) or "no clock is running now")
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
        self.changed()

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
        self.note_time(reply.counters.server_time_ms)

    def take(self, envelopes: Sequence[common_pb2.EventEnvelope]) -> None:
        """Tell new events now; the board a moment later, once for a whole turn (the reply and
        the Watch stream each bring a turn's events, in one piece or several)."""
        for env in envelopes:
            self.note_time(env.server_time_ms)
        lines, own_change = tell(self.tracker, envelopes, True, self.pairs_seen)
        self.show(lines)
        if own_change and self.show_boards and self._board_soon is None:
            self._board_soon = asyncio.get_running_loop().call_later(BOARD_DELAY_S, self.board_now)
        self.changed()

    def board_now(self) -> None:
        self._board_soon = None
        if not self.tracker.board_ended and self.tracker.status == RaceView.STATUS_PLAYING:
            self.show(text.board_lines(self.tracker, self.now()))


if __name__ == "__main__":
    sys.exit(main())
