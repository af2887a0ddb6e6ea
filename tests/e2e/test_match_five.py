"""MATCH 5 through the real stack, three players with raw gRPC stubs of MatchFiveService: the
sand timer ending the writing, a reused link, an accepted, a refused and a tied vote (with and
without its author's vote), a matching link scoring 2, a called "Match!", a drop and a return,
the tie-break on matching links, bad input, the leak check and the audit re-running every vote.

The scores are worked out by hand from docs/rules-match-5.md, not from the code under test. The
system clock runs ten times faster here: the 90 s sand timer is 9 s of wall time.
"""

from __future__ import annotations

import asyncio
import io

import grpc
import pytest

from match_audit.cli import main as audit_main
from tests.e2e.players_concentration import refusal_code
from tests.e2e.players_match_five import M5Player, Settings, View, ballot_of, check_no_leaks

# The sand timer ends round 1's writing and round 2's (9 s of the wall); the players' Done
# closes every combination long before its vote timer (30 s of the wall): room for a loaded
# machine either way.
SETTINGS = Settings(writing_seconds=90, vote_seconds=300)


async def refused(call: object) -> tuple[grpc.StatusCode, str | None, str]:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await call  # type: ignore[misc]
    details = error.value.details() or ""
    assert details, "a message a person can act on"
    return error.value.code(), refusal_code(error.value), details


async def verified(stack: object, table_id: str) -> str:
    addr = stack.ledger_addr  # type: ignore[attr-defined]
    vkey = str(stack.workdir / "ledger.vkey")  # type: ignore[attr-defined]
    out = ""
    for _ in range(100):
        o = io.StringIO()
        code = await asyncio.to_thread(
            audit_main, ["verify", table_id, "--addr", addr, "--key", vkey], o, o
        )
        out = o.getvalue()
        if "FAILED_PRECONDITION" not in out and "never revealed" not in out:
            break
        await asyncio.sleep(0.1)
    assert code == 0, out
    return out


async def everybody(players: list[M5Player], what: str) -> None:
    await asyncio.gather(*(getattr(p, what)() for p in players))


async def test_a_whole_game_of_three_with_every_rule_of_the_reading(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob, cy = M5Player("Ann", channel), M5Player("Bob", channel), M5Player("Cy", channel)
    players = [ann, bob, cy]
    await ann.create(3, SETTINGS)
    await bob.join(ann.table_id)
    await cy.join(ann.table_id)
    for p in players:
        p.watch()
    started = await ann.wait_for("round_started", round=1)
    assert len(started.categories) == 5 and started.faces

    # --- round 1: the writing ---------------------------------------------------------------
    written = {
        (ann, 1): "Shark",
        (bob, 1): "shark!",  # equal to Ann's once normalised: the server pairs them
        (cy, 1): "Whale",
        (ann, 2): "Actor",
        (bob, 2): "Aktor",  # another spelling: Ann calls "Match!"
        (cy, 3): "Banana",  # refused by the table
        (bob, 4): "Tie",  # 1 to 1, its author abstaining: accepted
        (cy, 5): "Zebra crossing",  # 1 to 1 with its author's vote: refused without it
    }
    for (player, combination), text in written.items():
        await player.write(combination, text)
    status, code, details = await refused(ann.write(3, "SHARK"))
    assert (status, code) == (grpc.StatusCode.FAILED_PRECONDITION, "link_reused")
    assert "Shark" in details  # which earlier link it repeats
    for bad, want in [
        (ann.write(11, "x"), "combination_out_of_range"),
        (ann.write(3, "  ?! "), "link_empty"),
        (ann.write(3, "a" * 61), "link_too_long"),
        (ann.write(3, "new\nline"), "link_invalid_characters"),
        (ann.erase(9), "no_link"),
        (ann.vote(1, True), "not_reading"),
    ]:
        _, got, _ = await refused(bad)
        assert got == want
    assert len((await ann.write(3, "a" * 60)).view.combinations) == 10  # 60 characters: fine
    await ann.erase(3)
    # Nobody says Done: the sand timer ends the writing.
    one = await ann.opened(1, 1)
    assert one.at == started.writing_ends_at
    by = {link.player: link for link in one.links}
    assert by[ann.player_id].group == by[bob.player_id].group > 0 and by[cy.player_id].group == 0
    for p in players:
        for link in one.links:
            await p.vote(link.ballot, True)
    _, code, _ = await refused(ann.vote(by[bob.player_id].ballot, False))
    assert code == "already_voted"
    await ann.done()
    _, code, _ = await refused(ann.done())
    assert code == "already_done"
    await everybody([bob, cy], "done")

    two = await ann.opened(1, 2)
    ann_link, bob_link = ballot_of(two, ann.player_id), ballot_of(two, bob.player_id)
    _, code, _ = await refused(ann.call_match(ann_link))
    assert code == "own_link"
    _, code, _ = await refused(cy.call_match(ann_link))
    assert code == "no_link"
    called = (await ann.call_match(bob_link)).view
    call = next(b for b in called.ballots if b.target == bob_link)
    _, code, _ = await refused(ann.vote(call.ballot, True))
    assert code == "own_call"
    for p in players:
        await p.vote(ann_link, True)
        await p.vote(bob_link, True)
    await bob.vote(call.ballot, True)
    await cy.vote(call.ballot, True)
    await everybody(players, "done")

    three = await ann.opened(1, 3)
    banana = ballot_of(three, cy.player_id)
    await ann.vote(banana, False)
    await bob.vote(banana, False)
    await cy.vote(banana, True)
    await everybody(players, "done")

    four = await ann.opened(1, 4)
    tie = ballot_of(four, bob.player_id)
    await ann.vote(tie, True)
    await cy.vote(tie, False)
    await everybody(players, "done")

    five = await ann.opened(1, 5)
    zebra = ballot_of(five, cy.player_id)
    await cy.vote(zebra, True)
    await ann.vote(zebra, False)
    await everybody(players, "done")

    scored = await ann.wait_for("round_scored", round=1)
    # By hand: Ann 2 (Shark, matching) + 2 (Actor, matched by the call) = 4, 2 matching;
    # Bob 2 + 2 + 1 (Tie) = 5, 2 matching; Cy 1 (Whale) + 0 + 0 = 1.
    points = {s.player: (s.points, s.matching, s.total) for s in scored.scores}
    assert points == {
        ann.player_id: (4, 2, 4),
        bob.player_id: (5, 2, 5),
        cy.player_id: (1, 0, 1),
    }
    results = {r.ballot: r for c in ann.found("combination_closed", round=1) for r in c.results}
    assert results[banana].accepted is False and (
        results[banana].accepts,
        results[banana].contests,
    ) == (1, 2)
    assert results[tie].accepted and not results[tie].author_ignored
    assert not results[zebra].accepted and results[zebra].author_ignored
    assert results[call.ballot].accepted

    # --- round 2: Bob drops while writing and comes back for the reading -----------------------
    second = await ann.wait_for("round_started", round=2)
    assert second.categories != started.categories or second.faces != started.faces
    await cy.write(1, "Moon")
    await ann.write(2, "Sun")
    await cy.write(2, "sun")
    await bob.write(3, "Star")
    _, code, _ = await refused(bob.write(4, "Tie"))  # used in round 1
    assert code == "link_reused"
    await bob.drop()
    await ann.done()
    await cy.done()
    r2c1 = await ann.opened(2, 1)
    assert r2c1.at == second.writing_ends_at  # Bob never said Done: the timer ended it
    bob.watch()  # back: the stream resumes after the last event he had
    await bob.opened(2, 1)
    for ballot in (ballot_of(r2c1, cy.player_id),):
        for p in players:
            await p.vote(ballot, True)
    await everybody(players, "done")
    r2c2 = await ann.opened(2, 2)
    for link in r2c2.links:
        for p in players:
            await p.vote(link.ballot, True)
    await everybody(players, "done")
    r2c3 = await ann.opened(2, 3)
    for p in players:
        await p.vote(ballot_of(r2c3, bob.player_id), True)
    await everybody(players, "done")

    ended = await ann.wait_for("game_ended")
    # By hand: round 2 Ann 2 (Sun, matching), Bob 1 (Star), Cy 1 (Moon) + 2 (sun, matching).
    # Totals Ann 6 (3 matching), Bob 6 (2 matching), Cy 4 (1 matching): Ann wins the tie.
    standings = [(s.player, s.place, s.points, s.matching) for s in ended.standings]
    assert standings == [
        (ann.player_id, 1, 6, 3),
        (bob.player_id, 2, 6, 2),
        (cy.player_id, 3, 4, 1),
    ]
    status, code, _ = await refused(cy.write(1, "late"))
    assert status == grpc.StatusCode.FAILED_PRECONDITION

    # Nobody saw another's link before its reading.
    texts = {}
    for (player, combination), text in written.items():
        texts[(1, combination, player.player_id)] = text
    texts |= {
        (2, 1, cy.player_id): "Moon",
        (2, 2, ann.player_id): "Sun",
        (2, 2, cy.player_id): "sun",
        (2, 3, bob.player_id): "Star",
    }
    for p in players:
        check_no_leaks(p, texts)
    report = await verified(stack, ann.table_id)
    assert "ok   rerun:" in report
    for p in players:
        await p.drop()


async def test_a_snapshot_while_writing_shows_only_your_own_links(
    stack: object, channel: grpc.aio.Channel
) -> None:
    ann, bob = M5Player("Ann", channel), M5Player("Bob", channel)
    await ann.create(2, Settings(writing_seconds=600))
    await bob.join(ann.table_id)
    await ann.write(1, "Secret")
    await bob.write(2, "Mine")
    bob.watch()
    await bob.wait_for("round_started", round=1)
    await asyncio.sleep(0.3)
    (snapshot,) = [i.snapshot for i in bob.stream if i.WhichOneof("item") == "snapshot"]
    assert snapshot.phase == View.PHASE_WRITING
    assert [c.your_link for c in snapshot.combinations][:2] == ["", "Mine"]
    assert {p.player: p.links for p in snapshot.players} == {ann.player_id: 1, bob.player_id: 1}
    assert "Secret" not in str(snapshot) and "Secret" not in str(bob.received)
    await bob.drop()
