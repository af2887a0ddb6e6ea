"""The deal of Number Match, version ``number-match-deal-v2`` (and v1 for the games dealt with
it: docs/dealing.md): which board a table plays, and its witness.

* Classic: always the same board (1 to 9, then the digits of 11 to 19) and its stored witness;
* the daily puzzle: the hard board of the seed ``SHA-256("number-match-daily-v1/" + date)``,
  so everybody gets the same board on the same date and anyone can re-deal it;
* a replay: the board of the finished game's revealed seed, at the same level;
* else the board of the dealer's 32-byte seed at the table's level.

The board itself comes from :func:`match_rules.number_match.generate.generate`: the first
candidate of the seed's stream that the solver proves clearable, with that clearing as witness.
"""

from __future__ import annotations

from match_rules.number_match import generate
from match_rules.number_match.board import Level
from match_rules.number_match.settings import SEED_BYTES, Settings, check

DEAL_VERSION = generate.DEAL_VERSION


def deal(seed: bytes, settings: Settings, version: str = DEAL_VERSION) -> generate.Dealt:
    check(settings)
    if settings.level is Level.CLASSIC:
        return generate.classic(version)
    if settings.daily:
        return generate.generate(generate.daily_seed(settings.daily_date), Level.HARD, version)
    if settings.replay:
        seed = settings.replay_seed
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a seed must be exactly {SEED_BYTES} bytes, got {len(seed)}")
    return generate.generate(seed, settings.level, version)
