import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EventEnvelopeSchema, GameKind, TableEventSchema, type EventEnvelope } from "../src/gen/match/v1/common_pb";
import {
  ConcentrationEventSchema,
  ConcentrationSettings_Pictures,
  ConcentrationView_CardState,
  ConcentrationView_Phase,
  ConcentrationViewSchema,
} from "../src/gen/match/v1/concentration_pb";
import { cardLabel, cardShows, clockLine, describeEvent, faceGlyph, faceName, resultText, statusText } from "../src/concentration/describe";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConcentrationView } from "../src/gen/match/v1/concentration_pb";
import { fitColumns, moveFocus } from "../src/play/card-grid";
import { follow, InOrder, SNAPSHOT_AFTER } from "../src/play/follow";
import { columnsFor, ConcentrationTracker, deckSize } from "../src/concentration/tracker";

const ME = "ann";
const CPU = "cpu-1";
const T0 = 1_000_000;

type GameInit = MessageInitShape<typeof ConcentrationEventSchema>["event"];
type TableInit = MessageInitShape<typeof TableEventSchema>["event"];

function env(n: number, event: GameInit, at = T0): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: "t1", gameId: "t1", gameKind: GameKind.CONCENTRATION, eventNumber: BigInt(n), serverTimeMs: BigInt(at),
    body: { case: "concentration", value: create(ConcentrationEventSchema, { event }) },
  });
}

function tableEnv(n: number, event: TableInit): EventEnvelope {
  return create(EventEnvelopeSchema, { tableId: "t1", eventNumber: BigInt(n), body: { case: "table", value: create(TableEventSchema, { event }) } });
}

const at = BigInt(T0);

/** A table of two (Ann, then the CPU), 24 emoji cards, started; Ann to play. */
function started(): ConcentrationTracker {
  const t = new ConcentrationTracker(ME, "t1");
  const applied = t.applyEvents([
    tableEnv(1, { case: "tableCreated", value: { seats: 2, settings: { case: "concentration", value: { cards: 24 } } } }),
    tableEnv(2, { case: "seedCommitted", value: { commitment: "ab".repeat(32), dealVersion: "concentration-deal-v1" } }),
    tableEnv(3, { case: "playerSeated", value: { seat: 1, playerId: ME, displayName: "Ann" } }),
    tableEnv(4, { case: "playerSeated", value: { seat: 2, playerId: CPU, displayName: "CPU 2", isBot: true } }),
    env(5, { case: "gameStarted", value: { at, players: [ME, CPU], cpus: [CPU], settings: { cards: 24 }, dealVersion: "concentration-deal-v1" } }),
    env(6, { case: "turnBegan", value: { at, player: ME } }),
  ]);
  expect(applied.map((e) => Number(e.eventNumber))).toEqual([1, 2, 3, 4, 5, 6]);
  return t;
}

describe("ConcentrationTracker", () => {
  it("seats the players in turn order and lays the cards face down", () => {
    const t = started();
    expect(t.phase).toBe("playing");
    expect(t.size).toBe(24);
    expect(t.cards.every((c) => c.state === "down" && c.face === undefined)).toBe(true);
    expect(t.seats.map((s) => [s.player, s.cpu])).toEqual([[ME, false], [CPU, true]]);
    expect(t.name(CPU)).toBe("CPU 2");
    expect(t.commitment).toBe("ab".repeat(32));
    expect(t.myTurn).toBe(true);
    expect(statusText(t)).toBe("Your turn: flip a card");
    expect(t.eventNumber).toBe(6);
  });

  it("shows a face while up, forgets it once the card turns back down", () => {
    const t = started();
    t.applyEvents([
      env(7, { case: "cardFlipped", value: { at, player: ME, card: 3, face: "apple" } }),
      env(8, { case: "secondCardDue", value: { at, player: ME, deadline: BigInt(T0 + 30_000) } }),
    ]);
    expect(cardLabel(t.cards[2]!, t)).toBe("Card 3, apple");
    expect(statusText(t)).toBe("Your turn: flip a second card");
    expect(clockLine(t, T0 + 12_000)).toBe("You have 18 s to flip");
    t.applyEvents([
      env(9, { case: "cardFlipped", value: { at, player: ME, card: 9, face: "pear" } }),
      env(10, { case: "attemptMissed", value: { at, player: ME, cards: [3, 9], tries: 1, turnDownAt: BigInt(T0 + 1_500) } }),
    ]);
    expect(t.up).toEqual([3, 9]);
    expect(t.myTurn).toBe(false); // a miss is showing
    expect(statusText(t)).toBe("Your miss is showing");
    expect(t.seat(ME)!.tries).toBe(1);
    t.applyEvents([
      env(11, { case: "cardsTurnedDown", value: { at, cards: [3, 9] } }),
      env(12, { case: "turnBegan", value: { at, player: CPU } }),
    ]);
    expect(t.cards[2]).toEqual({ number: 3, state: "down" });
    for (const c of t.cards) expect(cardLabel(c, t)).toMatch(/^Card \d+, face down$/);
    expect(cardShows(t).every((s) => s.face === undefined && !s.playable)).toBe(true);
    expect(statusText(t)).toBe("CPU 2's turn (CPU)");
  });

  it("takes pairs, counts tries, and ends with standings and the seed", () => {
    const t = started();
    t.applyEvents([
      env(7, { case: "cardFlipped", value: { at, player: ME, card: 1, face: "AS" } }),
      env(8, { case: "cardFlipped", value: { at, player: ME, card: 2, face: "AS" } }),
      env(9, { case: "pairTaken", value: { at, player: ME, cards: [1, 2], pairs: 1, tries: 1 } }),
    ]);
    expect(t.cards[0]).toEqual({ number: 1, state: "taken", face: "AS", takenBy: ME });
    expect(cardLabel(t.cards[1]!, t)).toBe("Card 2, taken by you: ace of spades");
    expect(cardShows(t)[0]).toMatchObject({ state: "found", face: "A♠", gap: true });
    expect([t.seat(ME)!.pairs, t.seat(ME)!.tries]).toEqual([1, 1]);
    t.applyEvents([
      env(10, { case: "gameEnded", value: { at, standings: [{ player: ME, place: 1, pairs: 12, tries: 20 }, { player: CPU, place: 2, pairs: 0, tries: 3 }], winners: [ME] } }),
    ]);
    expect(t.gameOver).toBe(true);
    expect(resultText(t)).toBe("You won with 12 pairs.");
    expect(t.seed).toBeNull();
    t.applyEvents([tableEnv(11, { case: "seedRevealed", value: { seed: new Uint8Array(32).fill(7), dealVersion: "concentration-deal-v1" } })]);
    expect(t.seed?.length).toBe(32);
  });

  it("applies each event once and in order, whichever way it comes", () => {
    const t = started();
    const flip = env(7, { case: "cardFlipped", value: { at, player: ME, card: 5, face: "fox" } });
    const down = env(8, { case: "cardsTurnedDown", value: { at, cards: [5] } });
    expect(t.applyEvents([down])).toEqual([]); // waits for 7
    expect(t.cards[4]!.state).toBe("down");
    expect(t.applyEvents([flip, flip]).map((e) => Number(e.eventNumber))).toEqual([7, 8]);
    expect(t.cards[4]!.state).toBe("down");
    expect(t.applyEvents([flip, down])).toEqual([]);
    expect(t.eventNumber).toBe(8);
  });

  it("follows a drop, a return and the CPU's takeover", () => {
    const t = started();
    t.applyEvents([env(7, { case: "playerDropped", value: { at, player: ME, takeoverAt: BigInt(T0 + 30_000) } })]);
    expect(t.seat(ME)!.takeoverAtMs).toBe(T0 + 30_000);
    t.applyEvents([env(8, { case: "playerReturned", value: { at, player: ME } })]);
    expect(t.seat(ME)!.takeoverAtMs).toBe(0);
    t.applyEvents([env(9, { case: "seatHandedToCpu", value: { at, player: ME } })]);
    expect(t.iAmCpu).toBe(true);
    expect(t.myTurn).toBe(false);
    expect(describeEvent(env(10, { case: "seatHandedToCpu", value: { at, player: ME } }), t)).toEqual(["The CPU plays your seat from now on"]);
  });

  it("takes a snapshot whole: faces only of cards up or taken", () => {
    const t = new ConcentrationTracker(ME, "t1");
    t.applySnapshot(create(ConcentrationViewSchema, {
      tableId: "t1", eventNumber: 40n, serverTimeMs: BigInt(T0), phase: ConcentrationView_Phase.PLAYING, you: ME,
      settings: { cards: 24, pictures: ConcentrationSettings_Pictures.EMOJI },
      cards: Array.from({ length: 24 }, (_, i) => (i === 0
        ? { card: 1, state: ConcentrationView_CardState.UP, face: "cat" }
        : i < 3 ? { card: i + 1, state: ConcentrationView_CardState.TAKEN, face: "dog", takenBy: CPU }
          : { card: i + 1, state: ConcentrationView_CardState.DOWN })),
      seats: [{ player: ME, displayName: "Ann", pairs: 0, tries: 2 }, { player: CPU, displayName: "CPU 2", pairs: 1, tries: 2, cpu: true }],
      turn: ME, commitment: "cd".repeat(32),
    }));
    expect(t.eventNumber).toBe(40);
    expect(t.up).toEqual([1]);
    expect(cardLabel(t.cards[1]!, t)).toBe("Card 2, taken by CPU 2: dog");
    expect(t.cards.slice(3).every((c) => c.face === undefined)).toBe(true);
    expect(statusText(t)).toBe("Your turn: flip a second card");
    // Later events continue from the snapshot's number.
    expect(t.applyEvents([env(40, { case: "turnBegan", value: { at, player: CPU } })])).toEqual([]);
    expect(t.applyEvents([env(41, { case: "cardFlipped", value: { at, player: ME, card: 4, face: "cat" } })])).toHaveLength(1);
  });
});

describe("words and the grid", () => {
  it("names faces", () => {
    expect(faceName("TD")).toBe("ten of diamonds");
    expect(faceGlyph("TD")).toBe("10♦");
    expect(faceName("JK")).toBe("joker");
    expect(faceName("apple")).toBe("apple");
    expect(faceGlyph("apple")).toBe("🍎");
  });

  it("lays out and moves over a grid, a short last row included", () => {
    expect([deckSize({ cards: 0, jokers: false }), deckSize({ cards: 24, jokers: true })]).toEqual([52, 26]);
    expect([columnsFor(52), columnsFor(36), columnsFor(24), columnsFor(54)]).toEqual([13, 9, 6, 9]);
    expect(fitColumns(13, 360)).toBe(7);
    expect(fitColumns(4, 1000)).toBe(4);
    expect(moveFocus(1, "ArrowRight", 9, 38)).toBe(2);
    expect(moveFocus(9, "ArrowRight", 9, 38)).toBe(10);
    expect(moveFocus(30, "ArrowDown", 9, 38)).toBe(30); // no card below
    expect(moveFocus(29, "ArrowDown", 9, 38)).toBe(38);
    expect(moveFocus(10, "ArrowUp", 9, 38)).toBe(1);
    expect(moveFocus(37, "End", 9, 38)).toBe(38);
    expect(moveFocus(12, "Home", 9, 38)).toBe(10);
    expect(moveFocus(12, "x", 9, 38)).toBeNull();
  });

  it("InOrder holds an early event until the gap is filled", () => {
    const o = new InOrder();
    const e = (n: number): EventEnvelope => tableEnv(n, { case: "tableExpired", value: {} });
    expect(o.take(e(2))).toEqual([]);
    expect(o.waiting).toBe(1);
    expect(o.take(e(1)).map((x) => Number(x.eventNumber))).toEqual([1, 2]);
    o.reset(10);
    expect(o.take(e(5))).toEqual([]);
    expect(o.take(e(11))).toHaveLength(1);
  });
});

describe("follow: the Watch loop", () => {
  it("resumes after a drop from the last event applied, and stops once the game is done", async () => {
    const t = new ConcentrationTracker(ME, "t1");
    const asked: bigint[] = [];
    const states: string[] = [];
    let calls = 0;
    type Item = { item: { case: "snapshot"; value: ConcentrationView } | { case: "event"; value: EventEnvelope } };
    async function* stream(after: bigint): AsyncIterable<Item> {
      asked.push(after);
      calls += 1;
      if (calls === 1) {
        yield { item: { case: "event", value: tableEnv(1, { case: "seedCommitted", value: { commitment: "ab".repeat(32) } }) } };
        throw new ConnectError("the connection dropped", Code.Unavailable);
      }
      yield { item: { case: "event", value: env(2, { case: "gameEnded", value: { at } }) } };
      yield { item: { case: "event", value: tableEnv(3, { case: "seedRevealed", value: { seed: new Uint8Array(32) } }) } };
    }
    await follow<Item>({
      signal: new AbortController().signal,
      open: () => stream(t.started ? BigInt(t.eventNumber) : SNAPSHOT_AFTER),
      item: ({ item }) => { if (item.case === "event") t.applyEvents([item.value]); },
      finished: () => t.gameOver && t.seed !== null,
      connection: (text) => states.push(text),
      fatal: () => { throw new Error("not fatal"); },
    });
    expect(asked).toEqual([SNAPSHOT_AFTER, 1n]);
    expect(states.some((s) => s.startsWith("Connection lost"))).toBe(true);
    expect(states[states.length - 1]).toBe("");
    expect([t.gameOver, t.seed?.length]).toEqual([true, 32]);
  });

  it("gives up on an error no retry mends", async () => {
    const fatal: unknown[] = [];
    const err = new ConnectError("no such table", Code.NotFound);
    await follow<never>({
      signal: new AbortController().signal,
      open: async function* () { throw err; },
      item: () => {},
      finished: () => false,
      connection: () => {},
      fatal: (e) => fatal.push(e),
    });
    expect(fatal).toEqual([err]);
  });
});
