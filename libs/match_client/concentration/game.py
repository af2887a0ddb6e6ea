"""Concentration's terminal client: ``CLIENT`` (match_client.registry)."""

from __future__ import annotations

import argparse

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import concentration_pb2
from match_client import concentration
from match_client.client import is_rpc_error
from match_client.concentration import demo
from match_client.game import GameClient, MadeFrom, Seated
from match_client.terminal import audit_line, describe_error


def options(play: argparse.ArgumentParser) -> None:
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


def given(args: argparse.Namespace) -> dict[str, bool]:
    return {
        "--cards": args.cards is not None,
        "--playing-cards": args.playing_cards,
        "--jokers": args.jokers,
        "--matching": args.matching is not None,
        "--turn-limit": args.turn_limit is not None,
    }


def new_settings(args: argparse.Namespace) -> concentration_pb2.ConcentrationSettings:
    return concentration.settings_from(
        args.cards, args.playing_cards, args.jokers, args.matching, args.turn_limit or 0
    )


# What new_settings makes of each option (a refusal of the field is told by the option).
MADE_FROM = (
    MadeFrom("cards", ("--cards",), ("invalid_deck_size",)),
    MadeFrom("pictures", ("--playing-cards",)),
    MadeFrom("jokers", ("--jokers",), ("invalid_jokers",)),
    MadeFrom("matching", ("--matching",), ("invalid_matching",)),
    MadeFrom("turn_limit_ms", ("--turn-limit",), ("invalid_turn_limit",)),
)


async def play(s: Seated) -> int:
    """A seat at a Concentration table: ``--fill-now`` seats CPU players and starts the game."""
    client, seat, args, note = s.client, s.seat, s.args, s.note
    play = concentration.ConcentrationPlay(
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
            note("CPU players take the empty seats; the game starts")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            note(f"could not start the table: {describe_error(err)}")
    if args.plain:
        return await play.run_lines()
    from match_client.concentration.screen import ConcentrationApp

    code = await ConcentrationApp(play, s.early).run_game()
    t = play.tracker
    ending = concentration.standings_lines(t) + concentration.seed_lines(t)
    if play.ended:
        ending.append(play.audit)
    for line in ending:
        print(line, flush=True)  # the screen is gone: keep the end on the terminal
    return code


async def play_demo(args: argparse.Namespace, key: Ed25519PrivateKey | None) -> int:
    return await demo.demo_concentration(
        args.addr, args.pace, args.rng_seed, args.seats, args.ca, args.tls, player_key=key
    )


CLIENT = GameClient(
    slug="concentration",
    name="concentration",
    title="Concentration",
    seats_help="1..6 for Concentration",
    options=options,
    own_section=True,
    given=given,
    new_settings=new_settings,
    play=play,
    demo=play_demo,
    shared={"--cards": ("concentration", "match-cards")},
    made_from=MADE_FROM,
)
