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
    match play --rematch ID             # the finished game at table ID again, same players
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
trusted roots). ``play`` shows a full-screen view (the game's ``match_client.<slug>.screen``) on
a terminal, and lines (``--plain``, and whenever input or output is not a terminal) that read
well with a screen reader: tiles are numbers, symbols are words; see docs/client.md.

Each game's options, checks, new table and play are its ``CLIENT`` (match_client.registry).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, cast

from match.v1 import common_pb2, lobby_pb2
from match_client import identity, players, registry
from match_client.client import (
    MatchClient,
    Seat,
    default_address,
    default_ca,
    is_rpc_error,
    refusal_code,
    status_name,
)
from match_client.game import GameClient, Seated
from match_client.programs import runnable
from match_client.seats import KeyedSeats, SeatStore, resume_finders
from match_client.terminal import (
    Out,
    Settings,
    clock_time,
    describe_error,
    say,
    table_line,
)
from match_rules import registry as rules

GAMES = registry.names()


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


def _titles() -> str:
    """ "A, B or C": the games' titles."""
    titles = [c.title for c in registry.clients()]
    return ", ".join(titles[:-1]) + " or " + titles[-1] if len(titles) > 1 else titles[0]


class _Command(argparse.ArgumentParser):
    """A subcommand's parser. argparse hands the options a subcommand does not know back to
    the top parser, whose error shows ``match``'s usage, which lists none of the subcommand's
    options; here the subcommand refuses them itself, with its own usage."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


class _Match(argparse.ArgumentParser):
    """``match``'s parser, which keeps each subcommand's parser by its name (``commands``), as
    ``build_parser`` made it: argparse itself gives them back only through private names."""

    def __init__(self, prog: str, description: str) -> None:
        super().__init__(prog=prog, description=description)
        self.commands: dict[str, argparse.ArgumentParser] = {}


def command_parser(parser: _Match, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name``: a problem with its options shows its usage."""
    return parser.commands[name]


def build_parser() -> _Match:
    parser = _Match(prog="match", description=f"Play {_titles()} from a terminal.")
    _connection_options(parser, None)
    # The same options after the subcommand; SUPPRESS keeps one given before it.
    addr = argparse.ArgumentParser(add_help=False)
    _connection_options(addr, argparse.SUPPRESS)
    # As a plain parser's class: the subcommands' parents (addr, anonymous) are plain parsers.
    command_class: type[argparse.ArgumentParser] = _Command
    sub = parser.add_subparsers(dest="command", required=True, parser_class=command_class)

    def command(name: str, help: str, *parents: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.commands[name] = sub.add_parser(name, parents=list(parents), help=help)
        return parser.commands[name]

    command("tables", "list the open tables with a free seat", addr)

    anonymous = argparse.ArgumentParser(add_help=False)
    anonymous.add_argument(
        "--anonymous",
        action="store_true",
        help="without your player key: the seat is nobody's (no rating, no statistics), and "
        "only this computer's kept seats find it again",
    )
    play = command("play", "make or join a table and play it", addr, anonymous)
    play.add_argument(
        "--game",
        choices=GAMES,
        default=registry.default().name,
        help=f"the game at a new table (default: {registry.default().name}; a joined table "
        "plays its own game)",
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
    where.add_argument(
        "--rematch",
        metavar="ID",
        help="play the finished game at table ID again with the same players, same settings "
        "and a new deal (your seat there, kept by this client): the first to ask makes the "
        "table, each other player takes their seat with the same command",
    )
    play.add_argument(
        "--seats",
        type=int,
        default=None,
        help="seats at a new table: "
        + ", ".join(c.seats_help for c in registry.clients() if c.seats_help),
    )
    play.add_argument(
        "--private", action="store_true", help="a new private table (invite code, no bot)"
    )
    for game in registry.clients():
        if not game.own_section:
            game.options(play)
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
    for game in registry.clients():
        if game.own_section:
            game.options(play)

    watch = command("watch", "print a table's stream", addr, anonymous)
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
    command("seats", "the seats this client kept, newest last", addr)

    profile = command(
        "profile",
        "your ratings, statistics and daily puzzle streak; or another player's profile",
        addr,
    )
    profile.add_argument(
        "player_id",
        nargs="?",
        default=None,
        metavar="PLAYER_ID",
        help="another player's id (k and 23 hex digits): their name and ratings",
    )
    board = command("leaderboard", "one page of a game's leaderboard", addr)
    board.add_argument("--game", choices=GAMES, required=True, help="the game")
    board.add_argument(
        "--board",
        default="",
        metavar="NAME",
        help="one of the game's boards (the page lists them); default: its main board, the "
        "rating (a solo game's: its best score)",
    )
    board.add_argument("--page", type=int, default=1, metavar="N", help="default 1")
    key = command("key", "your player key: you are this key, and losing it is losing the player")
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


def only_with(flags: Sequence[str], what: str) -> str:
    """``--level only goes with X``, ``--seats and --fill-now only go with X``: one sentence
    for one option or several, as the checks below find one or several."""
    if len(flags) == 1:
        return f"{flags[0]} only goes with {what}"
    return f"{', '.join(flags[:-1])} and {flags[-1]} only go with {what}"


def play_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a ``play`` command line, or None."""
    if args.resume is not None and args.name:
        return "--name goes with a new seat, not with --resume"
    if args.rematch is not None and args.name:
        return "--name goes with a new seat: a rematch keeps your name from the game before"
    game_only = {c.name: c.given(args) for c in registry.clients()}
    shared = {flag: names for c in registry.clients() for flag, names in c.shared.items()}
    for game, flags in game_only.items():
        used = [f for f, on in flags.items() if on and args.game not in shared.get(f, (game,))]
        if used:
            games = " or ".join(f"--game {g}" for g in shared.get(used[0], (game,)))
            return only_with(used, games)
    taken_too = {  # another game's options this game takes as well
        flag: on
        for flags in game_only.values()
        for flag, on in flags.items()
        if args.game in shared.get(flag, ())
    }
    new_only = {
        "--seats": args.seats is not None,
        "--private": args.private,
        "--fill-now": args.fill_now,
        **taken_too,
        **game_only[args.game],
    }
    if not args.new:
        used = [flag for flag, on in new_only.items() if on]
        if used:
            return only_with(used, "--new")
    problem = registry.by_name(args.game).problem(args)
    if problem:
        return problem
    if args.fill_now and args.private:
        return "--fill-now is for open tables: a private table gets no bot"
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
    try:
        settings = Settings.from_env()
    except ValueError as error:  # a setting it cannot use, named: no usage, it is not an argument
        print(f"match: error: {error}", file=sys.stderr)
        return 2
    if args.command == "play":
        problem = play_problem(args)
        if problem:
            command_parser(parser, "play").error(problem)
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
            if refusal_code(err) == "already_seated":
                say(second_seat_line(args, settings, client))
            return 1


# --- the player's key ------------------------------------------------------------------------


def second_seat_line(args: argparse.Namespace, settings: Settings, client: MatchClient) -> str:
    """How to take a second seat at a table from this machine, after the lobby refused one
    (``already_seated``): a key has one seat a table, and every terminal of this user signs in
    with the same key, so a second player here needs no key, or one of their own."""
    where = f"--table {args.table}" if args.table else f"--invite {args.invite}"
    other = shlex.quote(f"{settings.config_dir}-2")
    return (
        "your player key already has a seat there (one seat a key). To play a second seat "
        f"from this machine: `{client.command(f'play {where} --anonymous')}` (no key), or "
        f"with a key of its own: `MATCH_CONFIG_DIR={other} {client.command(f'play {where}')}`"
    )


def user_key(settings: Settings, out: Out, create: bool = True) -> identity.PlayerKey | None:
    """The user's key, made (with a note where it is kept) when ``create`` and there is none;
    None, with the reason said, when it cannot be used."""
    path = identity.key_path(settings.config_dir)
    try:
        if create:
            key, made = identity.load_or_create(settings.config_dir)
        elif not (path.exists() or path.is_symlink()):
            play = f"{runnable('match')} play"
            out(f"no player key yet (in {path}): `{play}` makes one the first time")
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
            f"keep a copy ({runnable('match')} key export)"
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
        out(f"key: {key.path} (keep a copy: {runnable('match')} key export --out FILE)")
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
    try:
        page = await client.leaderboard(players.kind_of(args.game), board, args.page)
    except Exception as err:
        # The server names the game's boards; the command line names them differently.
        if not is_rpc_error(err) or refusal_code(err) != "unknown_board":
            raise
        out(f"error: {describe_error(err)}")
        out(players.unknown_board_line(args.game, client.command()))
        return 1
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
        for game in rules.games()
        for table in await client.list_tables(cast(common_pb2.GameKind, game.kind))
    ]
    if not found:
        out("no open tables with a free seat")
    for table in found:
        out(table_line(table))
    return 0


# --- kept seats --------------------------------------------------------------------------


def seats(store: SeatStore, out: Out) -> int:
    kept = store.all()
    if not kept:
        out(f"no seats kept (in {store.path})")
    for k in kept:
        out(
            f"{k.table_id}  seat {k.seat}  as {k.name}  at {k.addr}  "
            f"kept {clock_time(k.kept_at_ms)}"
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
        return await _watch(client, seat.table_id, seat.token, args.after, out, seat.player_id)
    if not table:
        out("--token needs --table")
        return 1
    return await _watch(client, table, token, args.after, out)


async def _watch(
    client: MatchClient, table_id: str, token: str, after: int, out: Out, player: str = ""
) -> int:
    """The printed stream of the table's game (the lobby's GetTable says which). A table
    GetTable does not answer for (a game long over, the listing behind) is followed as the
    default game's: Watch itself refuses it if it plays another. The game id is the table id."""
    game = registry.default()
    try:
        table: lobby_pb2.Table | None = await client.get_table(table_id, token)
    except Exception as err:  # the listing behind, the table let go of, ...: Watch decides
        if not is_rpc_error(err):
            raise
        table = None
    if table is not None:
        game = _game_of(table)
    only = f"`match watch` prints the race's stream only, and table {table_id} plays"
    resume = f"play on from your seat with `{runnable('match')} play --resume {table_id}`"
    replay = f"replay it move by move with `{runnable('match-audit')} replay {table_id}`"
    if game.watch is None:
        if table is not None and table.status == lobby_pb2.Table.STATUS_FINISHED:
            out(f"{only} {game.title}: {replay}")
        else:
            out(f"{only} {game.title}: {resume}, or open the table in the web client")
        return 1
    try:
        return await game.watch(client, table_id, token, after, out, player)
    except Exception as err:
        if table is not None or refusal_code(err) != "wrong_game":
            raise
        out(f"{only} another game: {resume} while it is on, or {replay} once it is over")
        return 1


# --- play --------------------------------------------------------------------------------


async def play(client: MatchClient, args: argparse.Namespace, settings: Settings, out: Out) -> int:
    store = SeatStore(settings.state_dir)
    early: list[str] = []  # the full-screen view shows these in its log
    note = out if args.plain else early.append
    if args.resume is not None:
        return await resume(client, args, settings, store, note, early, out)
    if args.rematch is not None:
        return await rematch(client, args, settings, store, out, note, early)
    name = args.name or display_name(args)
    if args.new:
        visibility = common_pb2.VISIBILITY_PRIVATE if args.private else common_pb2.VISIBILITY_OPEN
        made = registry.by_name(args.game)
        new_settings = made.new_settings(args)
        try:
            seat = await client.create_table(
                new_settings,
                seats=args.seats or None,  # 0 or unset: the game's fewest
                visibility=visibility,
                display_name=name,
            )
        except Exception as err:  # a bad setting: told by the options typed, not the API's field
            told = made.refused_settings(args, new_settings, err)
            if told is None:
                raise
            out(f"error: {told}")
            return 1
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
    if table is not None:
        game = _game_of(table)
    else:
        game = registry.by_name(args.game) if args.new else registry.default()
    code = await game.play(Seated(client, seat, table, args, settings, note, early, name, store))
    await offer_rematch(client, seat, out)
    return code


async def offer_rematch(client: MatchClient, seat: Seat, out: Out) -> None:
    """Once a game of two or more people is over, the command that plays it again."""
    with contextlib.suppress(Exception):  # the game goes on, or the lobby is gone: nothing
        table = await client.get_table(seat.table_id, seat.token)
        people = [s for s in table.taken if not s.is_bot]
        if table.status == lobby_pb2.Table.STATUS_FINISHED and len(people) >= 2:
            out(
                "to play again with the same players: "
                f"`{client.command(f'play --rematch {seat.table_id}')}`"
            )


async def rematch(
    client: MatchClient,
    args: argparse.Namespace,
    settings: Settings,
    store: SeatStore,
    out: Out,
    note: Out,
    early: list[str],
) -> int:
    """``--rematch ID``: a seat at the rematch of the finished table ID (made by the first
    player to ask), played as a new seat."""
    kept = store.get(args.rematch, client.address, client.player_id)
    if kept is None:
        out(
            f"no seat of yours at table {args.rematch} is kept in {store.path} (match seats): "
            "a rematch is asked for with the seat you played there"
        )
        return 1
    try:
        seat, offered = await client.rematch(args.rematch, kept.token)
    except Exception as err:
        if not is_rpc_error(err):
            raise
        out(f"no rematch of table {args.rematch}: {describe_error(err)}")
        return 1
    if offered:
        note(
            f"rematch table {seat.table_id}, your seat {seat.seat}: the game starts when each "
            f"other player has typed `{client.command(f'play --rematch {args.rematch}')}`"
        )
    else:
        note(f"rematch table {seat.table_id}, your seat {seat.seat}")
    with contextlib.suppress(OSError):
        store.keep(seat, client.address, kept.name)
    table = await client.get_table(seat.table_id, seat.token)
    seated = Seated(client, seat, table, args, settings, note, early, kept.name, store)
    code = await _game_of(table).play(seated)
    await offer_rematch(client, seat, out)
    return code


def _game_of(table: lobby_pb2.Table) -> GameClient:
    """The terminal client of the table's game (an unknown kind: the default game's)."""
    try:
        return registry.by_kind(table.game_kind)
    except rules.UnknownGame:
        return registry.default()


async def resume(
    client: MatchClient,
    args: argparse.Namespace,
    settings: Settings,
    store: SeatStore,
    out: Out,
    early: list[str],
    after: Out,
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
            store.forget(seat.table_id, seat.player_id)
            out(
                "that seat is forgotten: it can no longer be played (a seat given up, a token "
                "older than 6 hours, or a game long over)"
            )
        return 1
    out(f"back at table {seat.table_id}, your seat {seat.seat}")
    name = next((s.display_name for s in table.taken if s.player_id == seat.player_id), "")
    with contextlib.suppress(OSError):  # the fresh token, for `match watch` and the next time
        store.keep(seat, client.address, name)
    seated = Seated(client, seat, table, args, settings, out, early, name, store, resumed=True)
    code = await _game_of(table).play(seated)
    await offer_rematch(client, seat, after)
    return code


if __name__ == "__main__":
    sys.exit(main())
