"""Match Cards' terminal client: ``CLIENT`` (match_client.registry)."""

from __future__ import annotations

import argparse

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import match_cards_pb2
from match_client import match_cards
from match_client.client import is_rpc_error
from match_client.game import GameClient, MadeFrom, Seated
from match_client.match_cards import demo
from match_client.terminal import audit_line, describe_error


def options(play: argparse.ArgumentParser) -> None:
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


def given(args: argparse.Namespace) -> dict[str, bool]:
    return {
        "--triples": args.triples,
        "--difficulty": args.difficulty is not None,
        "--pictures": args.pictures is not None,
        "--code": args.code is not None,
    }


def problem(args: argparse.Namespace) -> str | None:
    if args.fill_now and (args.seats or 1) < 2:
        return "--fill-now: a solo Match Cards table has no empty seat; add --seats 2 (up to 4)"
    return None


def new_settings(args: argparse.Namespace) -> match_cards_pb2.MatchCardsSettings:
    return match_cards.settings_from(
        args.cards, args.triples, args.difficulty, args.pictures, args.code
    )


# What new_settings makes of each option (a refusal of the field is told by the option; the
# board's size is refused for pairs or triples, so by either).
MADE_FROM = (
    MadeFrom("mode", ("--triples",), ("invalid_mode", "invalid_deck_size")),
    MadeFrom("cards", ("--cards",), ("invalid_deck_size",)),
    MadeFrom("difficulty", ("--difficulty",), ("invalid_difficulty",)),
    MadeFrom("pictures", ("--pictures",), ("invalid_pictures",)),
    MadeFrom(
        "code",
        ("--code",),
        (
            "code_malformed",
            "code_version_unknown",
            "code_check_failed",
            "code_size_unknown",
            "code_setting_unknown",
            "code_conflict",
        ),
    ),
)


async def play(s: Seated) -> int:
    """A seat at a Match Cards table: solo, it is playing already; at a challenge table it
    starts when the last seat is taken, and ``--fill-now`` lets the bot take the empty ones."""
    client, seat, args, note = s.client, s.seat, s.args, s.note
    play = match_cards.MatchCardsPlay(
        client,
        seat,
        note,
        s.settings.server_clock(),
        audit=audit_line(seat.table_id, s.settings),
        show_board=args.plain,
        resumed=s.resumed,
    )
    if s.table is not None:
        play.tracker.note_table(s.table)
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
    from match_client.match_cards.screen import MatchCardsApp

    code = await MatchCardsApp(play, s.early).run_game()
    if play.ended:  # the screen is gone: keep the end on the terminal
        for line in match_cards.end_lines(play.tracker, play.audit, play.match):
            print(line, flush=True)
    return code


async def play_demo(args: argparse.Namespace, key: Ed25519PrivateKey | None) -> int:
    return await demo.demo_match_cards(args.addr, args.ca, args.tls, player_key=key)


CLIENT = GameClient(
    slug="match_cards",
    name="match-cards",
    title="Match Cards",
    seats_help="1..4 for Match Cards (2 or more: a challenge table, each player on their own "
    "copy of one deal)",
    options=options,
    own_section=True,
    given=given,
    new_settings=new_settings,
    play=play,
    demo=play_demo,
    problem=problem,
    made_from=MADE_FROM,
)
