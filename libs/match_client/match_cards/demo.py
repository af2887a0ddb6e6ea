"""Match Cards' scripted demo player (``make demo GAME=match-cards``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import match_cards_pb2
from match_client.client import (
    MatchClient,
)
from match_client.scripted import audit_command, players_lines, say, sign_in
from match_client.session import GameSession


async def demo_match_cards(
    addr: str,
    ca_file: str | None = None,
    tls: bool = False,
    out: Callable[[str], None] = say,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """One solo Match Cards game with a perfect memory; prints id, result, counters, code."""
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, out)
        seat = await client.create_table(match_cards_pb2.MatchCardsSettings(), display_name="Demo")
        session = GameSession.of(client, "match_cards", seat)
        out(f"game {seat.table_id}")
        seen: dict[int, str] = {}
        found: set[int] = set()
        state: dict[str, object] = {}
        changed = asyncio.Event()

        async def follow() -> None:
            async for item in session.watch():
                if item.WhichOneof("item") == "snapshot":
                    state["view"] = item.snapshot
                elif item.event.HasField("match_cards"):
                    event = item.event.match_cards
                    kind = event.WhichOneof("event")
                    body = getattr(event, kind)
                    if kind == "game_started":
                        state["cards"], state["limit"] = body.settings.cards, body.limit
                    elif kind == "card_turned":
                        seen[body.card] = body.picture
                    elif kind in ("group_found", "attempt_failed"):
                        if kind == "group_found":
                            found.update(body.cards)
                        state["outcomes"] = int(str(state.get("outcomes", 0))) + 1
                    elif kind == "player_finished":
                        state["finished"] = body
                    elif kind == "game_ended":
                        state["ended"] = body
                changed.set()

        async def until(condition: Callable[[], bool]) -> None:
            while not condition():
                changed.clear()
                await asyncio.wait_for(changed.wait(), 60)

        watcher = asyncio.create_task(follow())
        try:
            await until(lambda: "cards" in state)
            size = int(str(state["cards"]))
            while "finished" not in state:
                loose: dict[str, list[int]] = {}
                for card, picture in sorted(seen.items()):
                    if card not in found:
                        loose.setdefault(picture, []).append(card)
                pair = next((c for c in loose.values() if len(c) >= 2), None)
                hidden = [c for c in range(1, size + 1) if c not in found]
                if not hidden:  # every group found: the end is on its way
                    await until(lambda: "finished" in state)
                    break
                if pair is None:
                    first = next((c for c in hidden if c not in seen), hidden[0])
                    outcomes = int(str(state.get("outcomes", 0)))
                    await session.send("TurnCard", card=first)
                    await until(lambda c=first: c in seen)  # type: ignore[misc]
                    partner = next(
                        (c for c in loose.get(seen[first], []) if c != first),
                        next((c for c in hidden if c not in seen and c != first), None),
                    )
                    if partner is None:
                        partner = next(c for c in hidden if c != first)
                    await session.send("TurnCard", card=partner)
                else:
                    outcomes = int(str(state.get("outcomes", 0)))
                    for card in pair[:2]:
                        await session.send("TurnCard", card=card)
                await until(
                    lambda o=outcomes: (
                        int(str(state.get("outcomes", 0))) > o  # type: ignore[misc]
                        or "finished" in state
                    )
                )
            await until(lambda: "ended" in state)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
        done: Any = state["finished"]
        ended: Any = state["ended"]
        out(f"result: {'won' if done.won else 'lost'}")
        out(
            f"counters: {done.groups} of {size // 2} groups found, "
            f"{done.time_ms / 1000:.1f} s, {done.failed} of {state['limit']} failed attempts"
        )
        out(f"game code: {ended.code}")
        replay = client.command(f"play --game match-cards --new --code {ended.code}")
        out(f"replay it (same cards, same places; not ranked): {replay}")
        out(f"check this game against the ledger: {audit_command(seat.table_id)}")
        for line in players_lines("match-cards", False, client.command()) if signed else []:
            out(line)
        return 0
