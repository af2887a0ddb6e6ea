"""The race's terminal client: ``CLIENT`` (match_client.registry)."""

from __future__ import annotations

import argparse

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import race_pb2
from match_client.client import is_rpc_error
from match_client.game import GameClient, MadeFrom, Seated
from match_client.race import demo
from match_client.race.play import Game, watch
from match_client.terminal import describe_error


def options(play: argparse.ArgumentParser) -> None:
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


def given(args: argparse.Namespace) -> dict[str, bool]:
    return {"--ready-window": args.ready_window is not None, "--hints": args.hints is not None}


def new_settings(args: argparse.Namespace) -> race_pb2.RaceSettings:
    settings = race_pb2.RaceSettings(ready_window_ms=round((args.ready_window or 30) * 1000))
    if args.hints is not None:
        settings.hints_per_board = args.hints
    return settings


# What new_settings makes of each option (a refusal of the field is told by the option).
MADE_FROM = (
    MadeFrom("ready_window_ms", ("--ready-window",), ("invalid_ready_window",)),
    MadeFrom("hints_per_board", ("--hints",), ("invalid_hints",)),
)


async def run_game(game: Game, plain: bool, early: list[str], name: str) -> int:
    if plain:
        game.out("type ? for help")
        return await game.run()
    from match_client.race.screen import MatchApp

    code = await MatchApp(game, early, name).run_game()
    if game.ended:  # the screen is gone: keep the way to check the game on the terminal
        print(game.audit_line, flush=True)
    if game.left_line:  # the screen is gone: say on the terminal that the seat was given back
        print(game.left_line, flush=True)
    return code


async def play(s: Seated) -> int:
    """A seat at a race table: ``--fill-now`` lets the bot fill the empty seats."""
    game = Game(
        s.client,
        s.seat,
        s.note,
        settings=s.settings,
        show_boards=s.args.plain,
        resumed=s.resumed,
        store=s.store,
    )
    if s.table is not None:
        game.tracker.note_table(s.table)
    if getattr(s.args, "fill_now", False):
        try:
            game.tracker.note_table(await s.client.start_table(s.seat.table_id, s.seat.token))
            s.note("the bot is filling the empty seats")
        except Exception as err:
            if not is_rpc_error(err):
                raise
            s.note(f"could not start the table: {describe_error(err)}")
    return await run_game(game, s.args.plain, s.early, s.name)


async def play_demo(args: argparse.Namespace, key: Ed25519PrivateKey | None) -> int:
    return await demo.demo(args.addr, args.pace, args.rng_seed, args.ca, args.tls, player_key=key)


CLIENT = GameClient(
    slug="race",
    name="race",
    title="Match (the race)",
    seats_help="2..4 for the race",
    options=options,
    own_section=False,
    given=given,
    new_settings=new_settings,
    play=play,
    demo=play_demo,
    watch=watch,
    made_from=MADE_FROM,
)
