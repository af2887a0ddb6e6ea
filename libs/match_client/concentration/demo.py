"""Concentration's scripted demo player (``make demo GAME=concentration``)."""

from __future__ import annotations

import asyncio
import contextlib
import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match.v1 import concentration_pb2
from match_bus.clock import Clock
from match_client.client import (
    MatchClient,
    Seat,
)
from match_client.clock import ServerClock
from match_client.concentration import (
    ConcentrationPlay,
    ConcentrationTracker,
    seed_lines,
    standings_lines,
)
from match_client.scripted import GAME_TIMEOUT_S, audit_command, players_lines, say, sign_in


class ScriptedConcentration:
    """One seat of Concentration with a perfect memory, at a person's pace: it flips a pair it
    knows, else a card it never saw (and the partner of the first, if it saw one)."""

    def __init__(self, client: MatchClient, seat: Seat, pace: float, rng: random.Random) -> None:
        system = Clock.from_env()
        self.play = ConcentrationPlay(
            client, seat, self.note, ServerClock(system.now_ms, system.rate), show_board=False
        )
        self.pace = pace
        self.rng = rng

    def note(self, line: str) -> None:
        if line.startswith(("refused", "cannot", "connection")):  # the rest is the stream's
            say(f"  ({line})")

    def next_card(self) -> int:
        t = self.play.tracker
        up = t.up
        if len(up) == 1:
            partner = t.partner_of(up[0])
            if partner is not None:
                return partner
            return self.rng.choice(t.unknown(up) or t.face_down(up))
        pair = t.known_pair()
        if pair is not None:
            return pair[0]
        return self.rng.choice(t.unknown() or t.face_down())

    async def run(self) -> None:
        t = self.play.tracker
        watcher = asyncio.create_task(self.play.watch())
        try:
            while not t.game_over:
                if watcher.done():
                    await watcher  # its error, or the stream ended
                    return
                if not t.my_turn or t.i_am_cpu:
                    await asyncio.sleep(0.05)
                    continue
                before = t.event_number
                card = self.next_card()
                await asyncio.sleep(self.rng.uniform(0.3, 0.8) * self.pace)
                if t.event_number != before or not t.my_turn:
                    continue  # the table moved on meanwhile (the timer): look again
                await self.play.flip(card)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)


def check_concentration_seed(t: ConcentrationTracker, flipped: dict[int, str]) -> list[str]:
    """The seed against the commitment, then the layout dealt again from it against every face
    the game showed."""
    out = seed_lines(t)
    if t.seed is None:
        return out
    try:
        from match_rules.registry import by_slug
    except ImportError:  # pragma: no cover - the SDK alone, without the rules
        return out
    game = by_slug("concentration")
    if t.deal_version and t.deal_version != game.deal_version:
        return [
            *out,
            f"cannot deal {t.deal_version} here (this checkout deals {game.deal_version})",
        ]
    faces = list(getattr(game.deal(t.seed, game.settings(t.settings)), "cards", []))
    same = all(0 < n <= len(faces) and faces[n - 1] == face for n, face in flipped.items())
    out.append(
        f"dealt again from the seed, the {len(flipped)} cards flipped "
        + ("show the same faces" if same else "DIFFER")
    )
    return out


async def demo_concentration(
    addr: str,
    pace: float,
    seed: int | None,
    seats: int,
    ca_file: str | None = None,
    tls: bool = False,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    rng = random.Random(seed)
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, say)
        seat = await client.create_table(
            concentration_pb2.ConcentrationSettings(), seats=seats, display_name="Demo"
        )
        say(f"game {seat.table_id}")
        player = ScriptedConcentration(client, seat, pace, rng)
        player.play.tracker.note_table(await client.start_table(seat.table_id, seat.token))
        say(f"CPU players take the other {seats - 1} seats; playing seat 1")
        await asyncio.wait_for(player.run(), GAME_TIMEOUT_S)
        t = player.play.tracker
        for line in standings_lines(t):
            say(line)
        for line in check_concentration_seed(t, t.faces):
            say(line)
        if t.game_over:
            say(f"check this game against the ledger: {audit_command(seat.table_id)}")
            if signed:
                for line in players_lines("concentration", seats > 1, client.command()):
                    say(line)
        return 0 if t.game_over else 1
