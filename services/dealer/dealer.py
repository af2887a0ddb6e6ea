"""The dealer's three answers, request bytes in and reply bytes out, over two small ports.

* commit: draw the game's seed the first time (a CSPRNG, 32 bytes), store it so that no second
  seed can ever be stored for that game, and answer SHA-256 of it with the deal version of the
  game kind asked for (the registry's ``deal_version``);
* deal: ``GAME.deal(seed, settings)`` of the game kind asked for, from the stored seed, in the
  ``Deal.game`` member named after the game's slug (internal: it holds every face);
* reveal: the seed itself, only once the table's log shows its game over.

A malformed request, an invalid id or a request out of turn gets a Refusal, never a crash.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

import structlog
from google.protobuf.message import DecodeError, Message
from prometheus_client import Counter

from match.v1 import common_pb2, dealer_pb2
from match_bus import subjects
from match_rules import deal as dealing
from match_rules import registry
from match_rules.errors import RuleError
from match_rules.game import Game

Category = common_pb2.Refusal.Category

SEEDS_COMMITTED = Counter(
    "match_dealer_seeds_committed_total", "Seeds drawn and stored (one per game)"
)
DEALS = Counter("match_dealer_deals_total", "Deals answered")
REVEALS = Counter("match_dealer_reveals_total", "Seeds revealed")
REFUSALS = Counter("match_dealer_refusals_total", "Requests refused, by code", ["code"])

log = structlog.get_logger()


class SeedLost(Exception):
    """The store holds a deleted or damaged seed for the game: it can't be dealt or checked."""


class SeedStore(Protocol):
    async def get(self, game_id: str) -> bytes | None:
        """The game's seed, or None when no seed was ever stored for it."""
        ...

    async def create(self, game_id: str, seed: bytes) -> bytes:
        """Store ``seed`` unless the game has one: return the game's one seed either way."""
        ...


class GameLog(Protocol):
    async def ended(self, game_id: str) -> Game | None:
        """The game played at the table, when its log shows it over (None before)."""
        ...


class Refused(Exception):
    def __init__(self, code: str, category: common_pb2.Refusal.Category, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.refusal = common_pb2.Refusal(code=code, category=category, message=message)


M = TypeVar("M", bound=Message)


def _parse(kind: type[M], data: bytes) -> M:
    try:
        return kind.FromString(data)
    except DecodeError as error:
        raise Refused(
            "malformed_request",
            Category.CATEGORY_INVALID_ARGUMENT,
            f"the request is not a valid {kind.DESCRIPTOR.name}",
        ) from error


def _checked_game_id(table_id: str, game_id: str) -> str:
    if not subjects.valid_table_id(game_id):
        raise Refused(
            "invalid_game_id",
            Category.CATEGORY_INVALID_ARGUMENT,
            f"game id {game_id[:40]!r} is not 8-32 lowercase letters and digits",
        )
    if table_id and table_id != game_id:
        raise Refused(
            "invalid_game_id",
            Category.CATEGORY_INVALID_ARGUMENT,
            "a table hosts one game: game_id must equal table_id",
        )
    return game_id


class Dealer:
    def __init__(self, seeds: SeedStore, games: GameLog) -> None:
        self._seeds = seeds
        self._games = games

    async def commit(self, data: bytes) -> bytes:
        return await _answer(dealer_pb2.CommitSeedResponse(), "commit", self._commit, data)

    async def deal(self, data: bytes) -> bytes:
        return await _answer(dealer_pb2.DealResponse(), "deal", self._deal, data)

    async def reveal(self, data: bytes) -> bytes:
        return await _answer(dealer_pb2.RevealSeedResponse(), "reveal", self._reveal, data)

    async def _commit(self, data: bytes, response: dealer_pb2.CommitSeedResponse) -> None:
        request = _parse(dealer_pb2.CommitSeedRequest, data)
        structlog.contextvars.bind_contextvars(game_id=request.game_id[:40])
        game_id = _checked_game_id(request.table_id, request.game_id)
        game = _game(request.game_kind, unset_is_first=True)
        seed = await self._seeds.get(game_id)
        if seed is None:
            drawn = secrets.token_bytes(dealing.SEED_BYTES)
            seed = await self._seeds.create(game_id, drawn)
            if seed == drawn:
                SEEDS_COMMITTED.inc()
                log.info("seed committed")
        response.commitment.game_id = game_id
        response.commitment.deal_version = game.deal_version
        response.commitment.commitment = dealing.commitment(seed)

    async def _deal(self, data: bytes, response: dealer_pb2.DealResponse) -> None:
        request = _parse(dealer_pb2.DealRequest, data)
        structlog.contextvars.bind_contextvars(game_id=request.game_id[:40])
        game_id = _checked_game_id(request.table_id, request.game_id)
        game = _game(request.game_kind)
        member = request.WhichOneof("settings")
        if member is not None and member != game.slug:
            raise Refused(
                "wrong_game",
                Category.CATEGORY_INVALID_ARGUMENT,
                f"settings of {member} for a deal of {game.slug}: set settings.{game.slug}",
            )
        try:
            settings = game.settings(getattr(request, game.slug) if member else None)
        except RuleError as error:
            raise Refused(
                error.code.slug, Category.CATEGORY_INVALID_ARGUMENT, error.message
            ) from None
        seed = await self._stored_seed(game_id)
        # A deal may search (Number Match's solver checks its board): off the event loop, so
        # that commits and reveals of other tables go on meanwhile.
        dealt = await asyncio.to_thread(_deal_message, game, game_id, seed, settings)
        response.deal.CopyFrom(dealt)
        DEALS.inc()
        log.info("dealt", deal_version=game.deal_version)

    async def _reveal(self, data: bytes, response: dealer_pb2.RevealSeedResponse) -> None:
        request = _parse(dealer_pb2.RevealSeedRequest, data)
        structlog.contextvars.bind_contextvars(game_id=request.game_id[:40])
        game_id = _checked_game_id(request.table_id, request.game_id)
        seed = await self._stored_seed(game_id)
        game = await self._games.ended(game_id)
        if game is None:
            raise Refused(
                "game_not_over",
                Category.CATEGORY_FAILED_PRECONDITION,
                f"game {game_id} has not ended: its table log does not show it over yet",
            )
        response.seed.game_id = game_id
        response.seed.seed = seed
        response.seed.deal_version = game.deal_version
        response.seed.commitment = dealing.commitment(seed)
        REVEALS.inc()
        log.info("seed revealed")

    async def _stored_seed(self, game_id: str) -> bytes:
        seed = await self._seeds.get(game_id)
        if seed is None:
            raise Refused(
                "unknown_game",
                Category.CATEGORY_FAILED_PRECONDITION,
                f"no seed was committed for game {game_id}: commit first",
            )
        return seed


async def _answer(
    response: M, request: str, work: Callable[[bytes, M], Awaitable[None]], data: bytes
) -> bytes:
    """Run ``work`` to fill ``response``; a refusal or a failure fills its ``refusal`` instead."""
    with structlog.contextvars.bound_contextvars(request=request, game_id=None):
        try:
            await work(data, response)
            return response.SerializeToString()
        except Refused as error:
            refusal = error.refusal
            log.info("refused", code=refusal.code, reason=refusal.message)
        except SeedLost as error:
            refusal = common_pb2.Refusal(
                code="seed_lost", category=Category.CATEGORY_FAILED_PRECONDITION, message=str(error)
            )
            log.error("seed lost", reason=str(error))
        except Exception as error:  # the seed store or the table log did not answer
            refusal = common_pb2.Refusal(
                code="dealer_unavailable",
                category=Category.CATEGORY_UNAVAILABLE,
                message="the dealer could not reach its seed store or the table log; try again",
            )
            log.error("request failed", exc_info=error)
    REFUSALS.labels(code=refusal.code).inc()
    response.Clear()
    getattr(response, "refusal").CopyFrom(refusal)  # noqa: B009 - every response has one
    return response.SerializeToString()


def _game(kind: int, unset_is_first: bool = False) -> Game:
    """The registered game of ``kind``. A commit with no kind (from before kinds were sent) is
    for the first registered game; a deal must name its kind."""
    if kind == common_pb2.GAME_KIND_UNSPECIFIED and unset_is_first:
        return registry.games()[0]
    try:
        return registry.by_kind(kind)
    except registry.UnknownGame:
        kinds = ", ".join(common_pb2.GameKind.Name(game.kind) for game in registry.games())
        raise Refused(
            "unsupported_game_kind",
            Category.CATEGORY_INVALID_ARGUMENT,
            f"the dealer deals {kinds}: set game_kind to one of them",
        ) from None


def _deal_message(game: Game, game_id: str, seed: bytes, settings: Message) -> dealer_pb2.Deal:
    deal = dealer_pb2.Deal(
        game_id=game_id, deal_version=game.deal_version, commitment=dealing.commitment(seed)
    )
    getattr(deal, game.slug).CopyFrom(game.deal(seed, settings))
    return deal
