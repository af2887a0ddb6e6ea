"""Number Match's terminal client: ``CLIENT`` (match_client.registry)."""

from __future__ import annotations

import argparse

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import number_match_pb2
from match_client import number_match
from match_client.game import GameClient, Seated
from match_client.number_match import demo
from match_client.terminal import audit_line


def options(play: argparse.ArgumentParser) -> None:
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


def given(args: argparse.Namespace) -> dict[str, bool]:
    return {
        "--level": args.level is not None,
        "--daily": args.daily,
        "--replay-seed": args.replay_seed is not None,
    }


def problem(args: argparse.Namespace) -> str | None:
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


def new_settings(args: argparse.Namespace) -> number_match_pb2.NumberMatchSettings:
    return number_match.settings_from(args.level, args.daily, args.replay_seed)


async def play(s: Seated) -> int:
    """The one seat of a Number Match table: the game is under way already."""
    play = number_match.NumberMatchPlay(
        s.client,
        s.seat,
        s.note,
        s.settings.server_clock(),
        audit=audit_line(s.seat.table_id, s.settings),
        show_board=s.args.plain,
        resumed=s.resumed,
    )
    if s.table is not None:
        play.tracker.note_table(s.table)
    if s.args.plain:
        return await play.run_lines()
    from match_client.number_match.screen import NumberMatchApp

    code = await NumberMatchApp(play, s.early).run_game()
    if play.ended:  # the screen is gone: keep the end on the terminal
        for line in number_match.end_lines(play.tracker, play.audit, play.match):
            print(line, flush=True)
    return code


async def play_demo(args: argparse.Namespace, key: Ed25519PrivateKey | None) -> int:
    return await demo.demo_number_match(args.addr, args.ca, args.tls, player_key=key)


CLIENT = GameClient(
    slug="number_match",
    name="number-match",
    title="Number Match",
    seats_help="",
    options=options,
    own_section=True,
    given=given,
    new_settings=new_settings,
    play=play,
    demo=play_demo,
    problem=problem,
)
