import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EventEnvelopeSchema, GameKind, Visibility, type EventEnvelope } from "../src/gen/match/v1/common_pb";
import { MatchFiveEventSchema, MatchFiveView_Phase, MatchFiveViewSchema } from "../src/gen/match/v1/match_five_pb";
import { ballotText, closedLines, combinationText, eventLines, timerText } from "../src/match-5/describe";
import { ACCEPT, COMBINATIONS, CONTEST, MatchFiveTracker, Phase } from "../src/match-5/tracker";

const TABLE = "t5";
const ANN = "ann";
const BOB = "bob";
const CATS = ["Job", "Carnivore", "Fruit", "Lives in water", "Book"];

function game(n: number, event: NonNullable<MessageInitShape<typeof MatchFiveEventSchema>["event"]>): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: TABLE, gameId: TABLE, gameKind: GameKind.MATCH_FIVE, eventNumber: BigInt(n), serverTimeMs: BigInt(10_000 + n),
    body: { case: "matchFive", value: { event } },
  });
}

function table(n: number, event: Record<string, unknown>): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: TABLE, eventNumber: BigInt(n), serverTimeMs: BigInt(10_000 + n),
    body: { case: "table", value: { event: event as never } },
  });
}

/** Ann's view of a table for two, up to the writing of round 1. */
function writing(): MatchFiveTracker {
  const t = new MatchFiveTracker(ANN, TABLE);
  const events = [
    table(1, { case: "tableCreated", value: { seats: 2, visibility: Visibility.PRIVATE, creator: ANN, inviteCode: "K7QM4XRA", settings: { case: "matchFive", value: { writingSeconds: 30, voteSeconds: 20 } } } }),
    table(2, { case: "seedCommitted", value: { commitment: "ab".repeat(32), dealVersion: "match-five-deal-v1" } }),
    table(3, { case: "playerSeated", value: { seat: 1, playerId: ANN, displayName: "Ann" } }),
    table(4, { case: "playerSeated", value: { seat: 2, playerId: BOB, displayName: "Bob" } }),
    game(5, { case: "gameStarted", value: { at: 10_005n, players: [ANN, BOB], settings: { writingSeconds: 30, voteSeconds: 20 }, dealVersion: "match-five-deal-v1", dice: [1, 1, 1, 2, 1] } }),
    game(6, { case: "roundStarted", value: { at: 10_006n, round: 1, faces: [1, 1, 1, 2, 1], categories: CATS, writingEndsAt: 40_006n } }),
  ];
  for (const e of events) expect(t.applyEvent(e)).toBe(true);
  return t;
}

describe("MatchFiveTracker", () => {
  it("numbers the 10 combinations as the pairs of the five colours", () => {
    expect(COMBINATIONS.length).toBe(10);
    expect(COMBINATIONS[0]).toEqual(["red", "yellow"]);
    expect(COMBINATIONS[9]).toEqual(["blue", "purple"]);
  });

  it("folds the table and the writing: own links, the others' counts, Done", () => {
    const t = writing();
    expect([t.seats, t.inviteCode, t.commitment, t.writingSeconds, t.voteSeconds]).toEqual([2, "K7QM4XRA", "ab".repeat(32), 30, 20]);
    expect(t.phase).toBe(Phase.WRITING);
    expect(t.players.map((p) => p.player)).toEqual([ANN, BOB]);
    expect(combinationText(t, 1)).toBe("1, red and yellow (Job / Carnivore)");
    expect(combinationText(t, 6)).toBe("6, yellow and blue (Carnivore / Lives in water)");
    expect(timerText(t, 10_006)).toBe("Sand timer: 0:30 left");

    const written = game(7, { case: "linkWritten", value: { player: ANN, round: 1, combination: 6, text: "Shark" } });
    t.applyEvent(written);
    expect(t.combinations.get(6)!.link).toBe("Shark");
    expect(t.me.links).toBe(1);
    expect(eventLines(written, t)).toEqual(["Your link for 6, yellow and blue (Carnivore / Lives in water): “Shark”"]);
    t.applyEvent(game(8, { case: "writingProgress", value: { player: BOB, links: 2 } }));
    expect(t.line(BOB).links).toBe(2);
    t.applyEvent(game(9, { case: "linkErased", value: { player: ANN, round: 1, combination: 6 } }));
    expect([t.combinations.get(6)!.link, t.me.links]).toEqual(["", 0]);
    const done = game(10, { case: "playerDone", value: { player: BOB, round: 1, combination: 0 } });
    t.applyEvent(done);
    expect(t.line(BOB).done).toBe(true);
    expect(eventLines(done, t)).toEqual(["Bob is done writing (2 links)"]);
  });

  it("folds the reading: ballots, votes, a Match! call, the results and the points", () => {
    const t = writing();
    t.applyEvent(game(7, { case: "linkWritten", value: { player: ANN, round: 1, combination: 1, text: "Actor" } }));
    t.applyEvent(game(8, {
      case: "combinationOpened",
      value: { at: 20_000n, round: 1, combination: 1, votesEndAt: 40_000n, links: [
        { ballot: 1, player: ANN, text: "Actor", group: 0 },
        { ballot: 2, player: BOB, text: "Aktor", group: 0 },
      ] },
    }));
    expect([t.phase, t.combination, t.myLinks(), t.toVote()]).toEqual([Phase.READING, 1, [1], [1, 2]]);
    expect(ballotText(t, t.ballots.get(2)!)).toBe("Bob wrote “Aktor”");
    expect(t.canCall(t.ballots.get(2)!)).toBe(true);
    expect(t.canCall(t.ballots.get(1)!)).toBe(false); // your own link

    t.applyEvent(game(9, { case: "voteCast", value: { player: ANN, ballot: 2, accept: false } }));
    t.applyEvent(game(10, { case: "voteCast", value: { player: BOB, ballot: 2, accept: true } }));
    expect([t.ballots.get(2)!.yourVote, t.ballots.get(2)!.votes]).toEqual([CONTEST, 2]);
    const called = game(11, { case: "matchCalled", value: { player: ANN, ballot: 3, own: 1, target: 2 } });
    t.applyEvent(called);
    expect(eventLines(called, t)[0]).toBe("Ballot 3: Match! You called Bob's link “Aktor” (ballot 2) a match of your link “Actor” (ballot 1)");
    expect(t.toVote()).toEqual([1]); // not your own call
    expect(t.canCall(t.ballots.get(2)!)).toBe(false); // called already
    t.applyEvent(game(12, { case: "voteCast", value: { player: ANN, ballot: 1, accept: true } }));
    expect(t.ballots.get(1)!.yourVote).toBe(ACCEPT);

    const closed = game(13, {
      case: "combinationClosed",
      value: { at: 21_000n, round: 1, combination: 1,
        results: [
          { ballot: 1, accepted: true, accepts: 2, contests: 0 },
          { ballot: 2, accepted: true, accepts: 1, contests: 1, authorIgnored: false },
          { ballot: 3, accepted: true, accepts: 1, contests: 0 },
        ],
        scores: [{ ballot: 1, player: ANN, matching: true, points: 2 }, { ballot: 2, player: BOB, matching: true, points: 2 }] },
    });
    t.applyEvent(closed);
    expect([t.combination, t.ballots.size, t.points(ANN), t.points(BOB)]).toEqual([0, 0, 2, 2]);
    const lines = closedLines(t, t.closed[0]!);
    expect(lines[0]).toBe("Combination 1, red and yellow (Job / Carnivore) closed:");
    expect(lines).toContain("Your “Actor” accepted, 2 to 0: 2 points, a matching link");
    expect(lines).toContain("Match! of ballots 1 and 2: agreed, 1 to 0");

    t.applyEvent(game(14, { case: "roundScored", value: { at: 22_000n, round: 1, scores: [
      { player: ANN, points: 2, matching: 1, total: 2 }, { player: BOB, points: 2, matching: 1, total: 2 }] } }));
    expect([t.line(ANN).total, t.line(ANN).roundPoints, t.points(ANN)]).toEqual([2, 0, 2]);
    const ended = game(15, { case: "gameEnded", value: { at: 30_000n, standings: [
      { player: ANN, place: 1, points: 5, matching: 2 }, { player: BOB, place: 2, points: 4, matching: 1 }] } });
    t.applyEvent(ended);
    expect(t.gameOver).toBe(true);
    expect(t.winners()).toEqual([ANN]);
    expect(eventLines(ended, t)).toEqual(["The game is over. The winner: you"]);
    t.applyEvent(table(16, { case: "seedRevealed", value: { seed: new Uint8Array(32).fill(1), dealVersion: "match-five-deal-v1" } }));
    expect(t.seed?.length).toBe(32);
  });

  it("folds a reply's event after a gap once the stream fills it, each event once", () => {
    const t = writing();
    const mine = game(8, { case: "linkWritten", value: { player: ANN, round: 1, combination: 2, text: "Chef" } });
    expect(t.applyReply([mine])).toEqual([]); // event 7 (someone else's) has not come yet
    expect(t.combinations.get(2)!.link).toBe("");
    // The view leaves out what the reply carried (skip_answered): 7 comes, 8 does not again.
    const seven = game(7, { case: "writingProgress", value: { player: BOB, links: 1 } });
    const got = t.applyWatch({ item: { case: "event", value: seven } } as never);
    expect(got).toEqual([seven, mine]);
    expect(t.eventNumber).toBe(8);
    expect(t.combinations.get(2)!.link).toBe("Chef");
    expect(t.applyEvent(mine)).toBe(false); // a copy that still comes is folded once
    expect(t.applyReply([mine])).toEqual([]);
  });

  it("takes a snapshot whole (a reload in the reading)", () => {
    const t = new MatchFiveTracker(BOB, TABLE);
    t.applyWatch({ item: { case: "snapshot", value: create(MatchFiveViewSchema, {
      tableId: TABLE, eventNumber: 40n, serverTimeMs: 50_000n, phase: MatchFiveView_Phase.READING, you: BOB,
      settings: { writingSeconds: 60, voteSeconds: 30 }, round: 2, categories: CATS,
      combinations: [{ combination: 1, colours: ["red", "yellow"], categories: ["Royalty", "Fish"], yourLink: "Queen" }],
      deadlineMs: 60_000n, combination: 4,
      ballots: [{ ballot: 21, player: ANN, text: "Bible", yourVote: 1, votes: 2 }],
      players: [{ player: ANN, displayName: "Ann", links: 3, total: 5 }, { player: BOB, displayName: "Bob", links: 2, done: true, total: 4 }],
      closed: [{ round: 2, combination: 1, scores: [{ ballot: 20, player: BOB, points: 1 }] }],
      commitment: "cd".repeat(32),
    }) } } as never);
    expect([t.phase, t.round, t.combination, t.eventNumber, t.voteSeconds]).toEqual([Phase.READING, 2, 4, 40, 30]);
    expect(t.combinations.get(1)!.categories).toEqual(["Royalty", "Fish"]);
    expect(t.combinations.get(1)!.link).toBe("Queen");
    expect(t.name(ANN)).toBe("Ann");
    expect([t.points(ANN), t.points(BOB)]).toEqual([5, 5]);
    expect(t.toVote()).toEqual([]);
    expect(timerText(t, 50_000)).toBe("The vote on combination 4: 0:10 left");
  });
  it("counts the last round once in the snapshot at the end (its totals hold every round scored)", () => {
    // Issue 31: the end's snapshot (sent to every live player, and on a reload) added round 2's
    // closed combinations to totals that already held them: 10 and 9 for 7 and 6.
    const t = new MatchFiveTracker(BOB, TABLE);
    const closed = (round: number, ann: number, bob: number) => ({ round, combination: 1, scores: [{ ballot: 1, player: ANN, points: ann }, { ballot: 2, player: BOB, points: bob }] });
    const scored = (round: number, ann: [number, number], bob: [number, number]) => ({ round, scores: [
      { player: ANN, points: ann[0], total: ann[1] }, { player: BOB, points: bob[0], total: bob[1] }] });
    t.applyWatch({ item: { case: "snapshot", value: create(MatchFiveViewSchema, {
      tableId: TABLE, eventNumber: 120n, serverTimeMs: 90_000n, phase: MatchFiveView_Phase.GAME_OVER, you: BOB, round: 2, categories: CATS,
      players: [{ player: ANN, displayName: "Ann", total: 7 }, { player: BOB, displayName: "Bob", total: 6 }],
      closed: [closed(1, 4, 3), closed(2, 3, 3)],
      rounds: [scored(1, [4, 4], [3, 3]), scored(2, [3, 7], [3, 6])],
      standings: [{ player: ANN, place: 1, points: 7 }, { player: BOB, place: 2, points: 6 }],
    }) } } as never);
    expect([t.points(ANN), t.points(BOB)]).toEqual([7, 6]);
    expect(t.standings.map((s) => t.points(s.player))).toEqual(t.standings.map((s) => s.points));
  });
});
