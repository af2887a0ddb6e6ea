"""MATCH 5's terminal client: ``CLIENT`` (match_client.registry)."""

from __future__ import annotations

import argparse

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import lobby_pb2, match_five_pb2
from match_client import match_five
from match_client.game import GameClient, MadeFrom, Seated
from match_client.match_five import demo
from match_client.terminal import audit_line, say


def options(play: argparse.ArgumentParser) -> None:
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


def given(args: argparse.Namespace) -> dict[str, bool]:
    return {
        "--writing-seconds": args.writing_seconds is not None,
        "--vote-seconds": args.vote_seconds is not None,
    }


def problem(args: argparse.Namespace) -> str | None:
    if args.fill_now:
        return (
            "--fill-now: no bot plays MATCH 5; the game starts when every seat is taken "
            "(the others join with --table ID, or --invite CODE at a --private table)"
        )
    return None


def new_settings(args: argparse.Namespace) -> match_five_pb2.MatchFiveSettings:
    return match_five.settings_from(args.writing_seconds, args.vote_seconds)


# What new_settings makes of each option (a refusal of the field is told by the option).
MADE_FROM = (
    MadeFrom("writing_seconds", ("--writing-seconds",)),
    MadeFrom("vote_seconds", ("--vote-seconds",)),
)


async def play(s: Seated) -> int:
    """A seat at a MATCH 5 table: it starts when every seat is taken. Always the line mode
    (MATCH 5 is words typed and read; there is no full-screen view)."""
    note, seat, table = s.note, s.seat, s.table
    if not s.args.plain:  # what was kept for a full-screen log goes on the terminal now
        for line in s.early:
            say(line)
        s.early.clear()
        note = say
    play = match_five.MatchFivePlay(
        s.client,
        seat,
        note,
        s.settings.server_clock(),
        audit=audit_line(seat.table_id, s.settings),
        resumed=s.resumed,
    )
    if table is not None:
        play.tracker.note_table(table)
        waiting = table.status == lobby_pb2.Table.STATUS_WAITING
        if not s.resumed and waiting and len(table.taken) < table.seats:
            how = f"--invite {seat.invite_code}" if seat.invite_code else f"--table {seat.table_id}"
            note(f"the others join with: {s.client.command('play ' + how)}")
            note(match_five.waiting_line(play.tracker))
    return await play.run_lines()


async def play_demo(args: argparse.Namespace, key: Ed25519PrivateKey | None) -> int:
    return await demo.demo_match_five(
        args.addr,
        args.ca,
        args.tls,
        writing_seconds=args.writing_seconds,
        vote_seconds=args.vote_seconds,
        player_key=key,
    )


CLIENT = GameClient(
    slug="match_five",
    name="match-5",
    title="MATCH 5",
    seats_help="2..8 for MATCH 5 (default 2; it starts when every seat is taken)",
    options=options,
    own_section=True,
    given=given,
    new_settings=new_settings,
    play=play,
    demo=play_demo,
    problem=problem,
    made_from=MADE_FROM,
)
