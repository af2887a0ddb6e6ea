import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EventEnvelopeSchema, GameKind, TableEventSchema, Visibility, type EventEnvelope } from "../src/gen/match/v1/common_pb";
import {
  MatchCardsEventSchema,
  MatchCardsSettings_Difficulty,
  MatchCardsSettings_Mode,
  MatchCardsView_CardState,
  MatchCardsView_Phase,
  MatchCardsViewSchema,
} from "../src/gen/match/v1/match_cards_pb";
import { cardLabel, cardShows, countersText, describeEvent, resultText, statusText } from "../src/match-cards/describe";
import { MatchCardsTracker, pictureName } from "../src/match-cards/tracker";

const ME = "mia";
const BOT = "bot-1";
const T0 = 2_000_000;
const at = BigInt(T0);

type GameInit = MessageInitShape<typeof MatchCardsEventSchema>["event"];
type TableInit = MessageInitShape<typeof TableEventSchema>["event"];

function env(n: number, event: GameInit, ms = T0): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: "t1", gameId: "t1", gameKind: GameKind.MATCH_CARDS, eventNumber: BigInt(n), serverTimeMs: BigInt(ms),
    body: { case: "matchCards", value: create(MatchCardsEventSchema, { event }) },
  });
}

function tableEnv(n: number, event: TableInit): EventEnvelope {
  return create(EventEnvelopeSchema, { tableId: "t1", eventNumber: BigInt(n), body: { case: "table", value: create(TableEventSchema, { event }) } });
}

/** A solo game of 12 cards in pairs, easy (limit 20), started at T0. */
function solo(): MatchCardsTracker {
  const t = new MatchCardsTracker(ME, "t1");
  t.applyEvents([
    tableEnv(1, { case: "tableCreated", value: { seats: 1, settings: { case: "matchCards", value: { cards: 12 } } } }),
    tableEnv(2, { case: "seedCommitted", value: { commitment: "ef".repeat(32), dealVersion: "match-cards-deal-v2" } }),
    tableEnv(3, { case: "playerSeated", value: { seat: 1, playerId: ME, displayName: "Mia" } }),
    env(4, { case: "gameStarted", value: { at, players: [ME], settings: { cards: 12, mode: MatchCardsSettings_Mode.PAIRS }, limit: 20, endsAt: BigInt(T0 + 3_600_000) } }),
  ]);
  return t;
}

describe("MatchCardsTracker", () => {
  it("knows a private table (no bot takes its empty seats there)", () => {
    const open = new MatchCardsTracker(ME);
    open.applyEvents([tableEnv(1, { case: "tableCreated", value: { seats: 2 } })]);
    const closed = new MatchCardsTracker(ME);
    closed.applyEvents([tableEnv(1, { case: "tableCreated", value: { seats: 2, visibility: Visibility.PRIVATE } })]);
    expect([open.isPrivate, closed.isPrivate]).toEqual([false, true]);
  });

  it("lays out the copy face down with the counters at zero", () => {
    const t = solo();
    expect(t.phase).toBe("playing");
    expect([t.size, t.columns, t.groupsTotal, t.limit, t.group]).toEqual([12, 4, 6, 20, 2]);
    expect(countersText(t, T0 + 65_000)).toBe("Pairs 0 of 6 · Time 1:05 · Failed attempts 0 of 20");
    expect(statusText(t)).toBe("Turn 2 cards: find the pairs");
    expect(cardShows(t).every((s) => s.state === "down" && s.playable)).toBe(true);
  });

  it("shows a picture while turned; a failed attempt turns it down without a name", () => {
    const t = solo();
    t.applyEvents([env(5, { case: "cardTurned", value: { at, player: ME, card: 2, picture: "cat-grey" } })]);
    expect(cardLabel(t.cards[1]!)).toBe("Card 2, cat, grey");
    expect(statusText(t)).toBe("Turn 1 more card");
    t.applyEvents([env(6, { case: "cardTurned", value: { at, player: ME, card: 7, picture: "frog", compareAt: BigInt(T0 + 1_500) } })]);
    expect(t.compareAtMs).toBe(T0 + 1_500);
    expect(t.turnable(3)).toBe(false); // comparing
    expect(statusText(t)).toBe("Comparing the cards...");
    const failed = env(7, { case: "attemptFailed", value: { at, player: ME, cards: [2, 7], failed: 1 } });
    t.applyEvents([failed]);
    expect(describeEvent(failed, t)).toEqual(["No match: cards 2 and 7 turn face down. 1 of 20 failed attempts"]);
    expect(t.cards[1]).toEqual({ number: 2, state: "down" });
    for (const c of t.cards) expect(cardLabel(c)).toMatch(/^Card \d+, face down$/);
    expect([t.me.failed, t.me.turned, t.compareAtMs]).toEqual([1, 0, 0]);
  });

  it("keeps a found group up, and ends with the code and the seed", () => {
    const t = solo();
    t.applyEvents([
      env(5, { case: "cardTurned", value: { at, player: ME, card: 1, picture: "dragon-fruit" } }),
      env(6, { case: "cardTurned", value: { at, player: ME, card: 4, picture: "dragon-fruit", compareAt: BigInt(T0 + 1_500) } }),
      env(7, { case: "groupFound", value: { at, player: ME, cards: [1, 4], groups: 1 } }),
    ]);
    expect(cardLabel(t.cards[3]!)).toBe("Card 4, found: dragon fruit");
    expect(t.me.groups).toBe(1);
    t.applyEvents([
      env(8, { case: "playerFinished", value: { at, player: ME, won: true, groups: 6, failed: 3, timeMs: 42_000n } }),
      env(9, { case: "gameEnded", value: { at, standings: [{ player: ME, place: 1, won: true, groups: 6, failed: 3, timeMs: 42_000n }], code: "MM3-PAEA-ABCDE" } }),
    ]);
    expect(t.gameOver).toBe(true);
    expect(t.code).toBe("MM3-PAEA-ABCDE");
    expect(t.elapsedMs(T0 + 99_000)).toBe(42_000);
    expect(resultText(t)).toBe("You won: every group found in 0:42, with 3 failed attempts.");
    t.applyEvents([tableEnv(10, { case: "seedRevealed", value: { seed: new Uint8Array(32).fill(1) } })]);
    expect(t.seed?.length).toBe(32);
  });

  it("Hard: the notice after an attempt, until turned off", () => {
    const t = new MatchCardsTracker(ME, "t1");
    t.applyEvents([env(1, { case: "gameStarted", value: { at, players: [ME], settings: { cards: 12, difficulty: MatchCardsSettings_Difficulty.HARD }, limit: 11 } })]);
    expect(t.noticeOn).toBe(true);
    t.applyEvents([env(2, { case: "attemptFailed", value: { at, player: ME, cards: [1, 2], failed: 1, notice: true } })]);
    expect(t.notice).toEqual({ cards: [1, 2], same: false });
    t.applyEvents([env(3, { case: "noticeTurnedOff", value: { at, player: ME } })]);
    expect([t.noticeOn, t.notice]).toEqual([false, null]);
  });

  it("a challenge table: the others are counts only", () => {
    const t = new MatchCardsTracker(ME, "t1");
    t.applyEvents([
      tableEnv(1, { case: "playerSeated", value: { seat: 2, playerId: BOT, displayName: "Bot", isBot: true } }),
      env(2, { case: "gameStarted", value: { at, players: [ME, BOT], settings: { cards: 18, mode: MatchCardsSettings_Mode.TRIPLES }, limit: 32 } }),
      env(3, { case: "opponentProgress", value: { at, player: BOT, turned: 2, groups: 1, failed: 2 } }),
      env(4, { case: "cardTurned", value: { at, player: BOT, card: 5, picture: "ant" } }), // never sent to us; ignored if it were
    ]);
    expect([t.group, t.columns, t.groupsTotal]).toEqual([3, 6, 6]);
    expect(t.line(BOT)).toMatchObject({ turned: 2, groups: 1, failed: 2 });
    expect(t.cards[4]!.state).toBe("down");
  });

  it("takes a snapshot whole (a reload)", () => {
    const t = new MatchCardsTracker(ME, "t1");
    t.applySnapshot(create(MatchCardsViewSchema, {
      tableId: "t1", eventNumber: 30n, serverTimeMs: BigInt(T0 + 10_000), phase: MatchCardsView_Phase.PLAYING, you: ME,
      settings: { cards: 12 }, limit: 20, groupsTotal: 6, startedAtMs: at, columns: 4,
      cards: Array.from({ length: 12 }, (_, i) => (i < 2
        ? { card: i + 1, state: MatchCardsView_CardState.FOUND, picture: { id: "owl-snowy", name: "owl, snowy" } }
        : { card: i + 1, state: MatchCardsView_CardState.DOWN })),
      players: [{ player: ME, displayName: "Mia", groups: 1, failed: 4 }],
      commitment: "ef".repeat(32),
    }));
    expect(t.eventNumber).toBe(30);
    expect(cardLabel(t.cards[0]!)).toBe("Card 1, found: owl, snowy");
    expect(countersText(t, T0 + 10_000)).toBe("Pairs 1 of 6 · Time 0:10 · Failed attempts 4 of 20");
    expect(t.cards.slice(2).every((c) => c.picture === undefined)).toBe(true);
  });

  it("names pictures as a screen reader says them", () => {
    expect(pictureName("cat-grey")).toBe("cat, grey");
    expect(pictureName("melon-orange-flesh")).toBe("melon, orange flesh");
    expect(pictureName("passion-fruit")).toBe("passion fruit");
    expect(pictureName("zebra")).toBe("zebra");
  });
});
