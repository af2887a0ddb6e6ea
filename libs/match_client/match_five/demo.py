"""MATCH 5's scripted demo players (``make demo GAME=match-5``)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from match_bus.clock import Clock
from match_client import match_five
from match_client.client import (
    MatchClient,
    Seat,
)
from match_client.clock import ServerClock
from match_client.scripted import GAME_TIMEOUT_S, audit_command, players_lines, say, sign_in

FIVE_PLAYERS = ("Ann", "Bob", "Cid")
# LINKS[round][combination]: what Ann, Bob and Cid write. Equal links (after normalising case
# and punctuation) match; "Doughnut" and "Donut" are one word spelt two ways, which the server
# does not group: Ann calls "Match!" on Bob's.
FIVE_LINKS: dict[int, dict[int, tuple[str, str, str]]] = {
    1: {
        1: ("Shark", "Shark", "Whale"),
        2: ("Doughnut", "Donut", "Pancake"),
        3: ("Lion", "Tiger", "lion"),
        4: ("Violin", "Guitar", "Drum"),
        5: ("Rose", "Tulip", "Daisy"),
        6: ("Paris", "paris!", "Rome"),
        7: ("Pirate", "Knight", "Wizard"),
        8: ("Teapot", "Kettle", "Teapot"),
        9: ("Rocket", "Comet", "Meteor"),
        10: ("Snowman", "Igloo", "Penguin"),
    },
    2: {
        1: ("Banana", "Mango", "Banana"),
        2: ("Castle", "Tower", "Palace"),
        3: ("Dragon", "dragon", "Unicorn"),
        4: ("Piano", "Trumpet", "Flute"),
        5: ("Owl", "Eagle", "Parrot"),
        6: ("London", "Berlin", "Madrid"),
        7: ("Robot", "Robot", "Robot"),
        8: ("Candle", "Lantern", "Torch"),
        9: ("Volcano", "Geyser", "Glacier"),
        10: ("Umbrella", "Raincoat", "Wellies"),
    },
}
FIVE_CALLS = {(1, 2): (0, 1)}  # (round, combination): the caller's seat index, the target's
# Round 2, combination 1: Cid (index 2) first tries "Whale", his link of round 1: refused.
FIVE_REUSE = (2, 1, 2, "Whale")
# (round, combination): the voters (seat indexes) who contest the link of Ann (index 0).
FIVE_CONTESTS = {(1, 4): (1, 2), (1, 9): (1,), (2, 5): (2,)}
CALL_WAIT_S = 5.0  # how long the others wait for an expected "Match!" before voting
FIVE_PACE_S = 0.06  # between two commands of one player: well inside the lobby's rate limit


class ScriptedFive:
    """One MATCH 5 seat played by script through ``MatchFivePlay``: writes its word list's
    links, says Done, and in the reading calls "Match!" where the script says, votes on every
    ballot (accepting most) and says Done again."""

    def __init__(
        self,
        client: MatchClient,
        seat: Seat,
        index: int,
        out: Callable[[str], None],
        seats: list[Seat],
    ) -> None:
        system = Clock.from_env()
        self.index = index
        self.name = FIVE_PLAYERS[index]
        self.out = out
        self.seats = seats  # everybody's, to know whose link a ballot is
        self.play = match_five.MatchFivePlay(
            client, seat, self.note, ServerClock(system.now_ms, system.rate), retries=3
        )
        self.written: set[int] = set()
        self.handled: set[tuple[int, int]] = set()

    def note(self, line: str) -> None:
        if line.startswith(("refused", "error", "cannot", "connection")):
            self.out(f"  {self.name}: {line}")

    def seat_of(self, player: str) -> int:
        return next((i for i, s in enumerate(self.seats) if s.player_id == player), -1)

    async def write_round(self, round_: int) -> None:
        reuse_round, reuse_combination, reuse_index, reuse_text = FIVE_REUSE
        if round_ == reuse_round and self.index == reuse_index:
            await self.play.write(reuse_combination, reuse_text)  # refused: used in round 1
        for combination, links in FIVE_LINKS[round_].items():
            await asyncio.sleep(FIVE_PACE_S)
            if self.play.tracker.phase != match_five.WRITING:
                return  # the sand timer ran out
            await self.play.write(combination, links[self.index])
        await asyncio.sleep(FIVE_PACE_S)
        await self.play.done()

    async def read_combination(self, round_: int, combination: int) -> None:
        t = self.play.tracker
        key = (round_, combination)
        call = FIVE_CALLS.get(key)
        if call is not None and call[0] == self.index:
            target = next(
                (b.ballot for b in t.ballots.values() if self.seat_of(b.player) == call[1]), None
            )
            if target is not None and t.my_links():
                await self.play.call_match(target)
        elif call is not None:  # wait for the call, to vote on it too
            deadline = asyncio.get_running_loop().time() + CALL_WAIT_S
            while t.combination == combination and not any(b.is_call for b in t.ballots.values()):
                if asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.05)
        contest = self.index in FIVE_CONTESTS.get(key, ())
        for ballot in t.to_vote():
            if t.combination != combination:
                return  # closed meanwhile (its timer)
            b = t.ballots.get(ballot)
            refuse = contest and b is not None and not b.is_call and self.seat_of(b.player) == 0
            await asyncio.sleep(FIVE_PACE_S)
            await self.play.vote(ballot, not refuse)
        await asyncio.sleep(FIVE_PACE_S)
        if t.combination == combination:
            await self.play.done()

    async def run(self) -> None:
        t = self.play.tracker
        watcher = asyncio.create_task(self.play.watch())
        try:
            while not t.game_over:
                if watcher.done():
                    await watcher  # its error, or the stream ended
                    return
                if t.phase == match_five.WRITING and t.round not in self.written:
                    self.written.add(t.round)
                    await self.write_round(t.round)
                elif t.phase == match_five.READING and t.combination:
                    key = (t.round, t.combination)
                    if key not in self.handled:
                        self.handled.add(key)
                        await self.read_combination(*key)
                        continue
                await asyncio.sleep(0.05)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watcher), 15)  # until the seed is out
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)


async def demo_match_five(
    addr: str,
    ca_file: str | None = None,
    tls: bool = False,
    out: Callable[[str], None] = say,
    writing_seconds: int = 30,
    vote_seconds: int = 10,
    player_key: Ed25519PrivateKey | None = None,
) -> int:
    """Three scripted players through one MATCH 5 game; prints the game id, each round's
    scores, the winner(s) and the audit command. With ``player_key``, Ann is that player (Bob and
    Cid sit anonymously)."""
    async with MatchClient(addr, ca_file=ca_file, tls=tls) as client:
        signed = await sign_in(client, player_key, out)
        settings = match_five.settings_from(writing_seconds, vote_seconds)
        host = await client.create_table(
            settings, seats=len(FIVE_PLAYERS), display_name=FIVE_PLAYERS[0]
        )
        out(f"game {host.table_id}")
        seats = [host]
        for name in FIVE_PLAYERS[1:]:
            seats.append(
                await client.join_table(table_id=host.table_id, display_name=name, anonymous=True)
            )
        out(
            f"players: {', '.join(FIVE_PLAYERS)}; the sand timer {writing_seconds} s, "
            f"each combination's vote {vote_seconds} s"
        )
        players = [ScriptedFive(client, s, i, out, seats) for i, s in enumerate(seats)]
        for p in players:
            p.play.tracker.names.update(
                {s.player_id: n for s, n in zip(seats, FIVE_PLAYERS, strict=True)}
            )
        ann = players[0].play.tracker
        told: set[int] = set()  # the rounds told
        calls: set[int] = set()  # the "Match!" ballots told

        def tell() -> None:
            """Each round's scores and each "Match!"'s result, as Ann's stream brings them."""
            for scored in ann.rounds:
                if scored.round not in told:
                    told.add(scored.round)
                    scores = ", ".join(
                        f"{ann.names.get(s.player, s.player)} {s.points} "
                        f"({s.matching} matching, total {s.total})"
                        for s in scored.scores
                    )
                    out(f"round {scored.round} scores: {scores}")
            for closed in ann.closed:
                for r in closed.results:
                    b = ann.every_ballot.get(r.ballot)
                    if b is not None and b.is_call and r.ballot not in calls:
                        calls.add(r.ballot)
                        target = ann.every_ballot.get(b.target)
                        word = target.text if target is not None else f"ballot {b.target}"
                        verdict = "agreed" if r.accepted else "not agreed"
                        out(
                            f"{ann.names.get(b.player, b.player)} called Match! on "
                            f'"{word}": {verdict}, {r.accepts} to {r.contests}'
                        )

        players[0].play.changed = tell
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), GAME_TIMEOUT_S)
        if not ann.game_over:
            out("the game did not end")
            return 1
        ann.player = ""  # the lines name every player, Ann too
        for line in match_five.standings_lines(ann):
            out(line)
        if ann.seed is not None and ann.commitment:
            ok = hashlib.sha256(ann.seed).hexdigest() == ann.commitment
            out(
                f"published seed: {ann.seed.hex()} ({'matches' if ok else 'DOES NOT match'} "
                "the commitment)"
            )
        out(f"check this game against the ledger: {audit_command(host.table_id)}")
        for line in players_lines("match-5", True, client.command()) if signed else []:
            out(line)
        return 0
