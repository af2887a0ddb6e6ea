"""``python -m match_chaos``: see match_chaos (``--help`` for the knobs)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from match_chaos.run import KINDS, Options, run


def kinds(text: str) -> tuple[str, ...]:
    """``race,match-5``: the games played, in turn (each a name of KINDS)."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in KINDS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"not a game: {', '.join(unknown) or 'none named'}; the games are {', '.join(KINDS)}"
        )
    return names


def main(argv: list[str] | None = None) -> int:
    defaults = Options()
    parser = argparse.ArgumentParser(
        prog="python -m match_chaos",
        description="Play games on the local cluster while killing replicas; check and audit.",
    )
    parser.add_argument("--out", type=Path, default=defaults.out, help="runs go to OUT/chaos/")
    parser.add_argument("--games", type=int, default=defaults.games)
    parser.add_argument(
        "--kinds",
        type=kinds,
        default=defaults.kinds,
        help=f"the games played, in turn, comma-separated (default: {','.join(KINDS)})",
    )
    parser.add_argument("--concurrency", type=int, default=defaults.concurrency)
    parser.add_argument("--kills", type=int, default=defaults.min_kills, help="at least this many")
    parser.add_argument("--rate", type=float, default=defaults.rate, help="the system clock's rate")
    parser.add_argument("--replicas", type=int, default=defaults.replicas, help="per service")
    parser.add_argument("--seed", type=int, default=None, help="the chaos and the players' choices")
    args = parser.parse_args(argv)
    options = Options(
        out=args.out,
        games=args.games,
        kinds=args.kinds,
        concurrency=args.concurrency,
        min_kills=args.kills,
        rate=args.rate,
        replicas=args.replicas,
        seed=args.seed,
    )
    try:
        return asyncio.run(run(options))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
