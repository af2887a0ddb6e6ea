import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EventEnvelopeSchema, GameKind, type EventEnvelope } from "../src/gen/match/v1/common_pb";
import {
  NumberMatchEvent_HintKind,
  NumberMatchEvent_Outcome,
  NumberMatchEvent_Undone,
  NumberMatchSettings_Level,
  NumberMatchView_Phase,
  NumberMatchViewSchema,
  NumberMatchEventSchema,
} from "../src/gen/match/v1/number_match_pb";
import { addNumbers, cellLabel, moveFocus, pairsWith, removePair, sees } from "../src/number-match/board";
import { clockText } from "../src/play/words";
import { setLocale, t as say } from "../src/i18n";
import "../src/i18n/languages";
import { eventText, hintText, settingsText, witnessText } from "../src/number-match/describe";
import { levelName, NumberMatchTracker } from "../src/number-match/tracker";

const TABLE = "t1";
const ME = "p1";

function game(n: number, event: NonNullable<MessageInitShape<typeof NumberMatchEventSchema>["event"]>, at = 1_000 + n): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: TABLE, gameId: TABLE, gameKind: GameKind.NUMBER_MATCH, eventNumber: BigInt(n), serverTimeMs: BigInt(at),
    body: { case: "numberMatch", value: { event } },
  });
}

function table(n: number, event: Record<string, unknown>): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: TABLE, eventNumber: BigInt(n), serverTimeMs: BigInt(1_000 + n),
    body: { case: "table", value: { event: event as never } },
  });
}

// Row 1: 1 9 . .  → a small board: 1 2 3 4 5 6 7 8 9 / 1 9 5
const BOARD = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 9, 5];

function started(): NumberMatchTracker {
  const t = new NumberMatchTracker(ME, TABLE);
  t.applyEvent(table(1, { case: "seedCommitted", value: { commitment: "ab".repeat(32), dealVersion: "number-match-deal-v1" } }));
  t.applyEvent(game(2, {
    case: "gameStarted",
    value: { at: 1_002n, player: ME, settings: { level: NumberMatchSettings_Level.EASY }, board: BOARD, additions: 5, hints: 3, witnessCommitment: "cd".repeat(32) },
  }));
  return t;
}

describe("the Number Match board", () => {
  it("pairs equal numbers and numbers adding up to 10, never an empty cell", () => {
    expect(pairsWith(3, 7)).toBe(true);
    expect(pairsWith(4, 4)).toBe(true);
    expect(pairsWith(5, 5)).toBe(true);
    expect(pairsWith(5, 6)).toBe(false);
    expect(pairsWith(0, 0)).toBe(false);
  });

  it("sees along a row, a column, a diagonal and from a row's end to the next start, empty cells between", () => {
    const b = [1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6];
    expect(sees(b, 0, 3)).toBe(true); // the row, across empties
    expect(sees(b, 0, 9)).toBe(true); // the column
    expect(sees(b, 0, 10)).toBe(true); // the diagonal, touching
    expect(sees(b, 4, 13)).toBe(true);
    expect(sees(b, 8, 9)).toBe(true); // row end to next start
    expect(sees(b, 0, 4)).toBe(false); // the 1 in cell 4 is between
  });

  it("removes a pair, and a row left empty, and adds the numbers after the last", () => {
    const { board, rowsRemoved } = removePair([1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 9], 9, 10);
    expect(board).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rowsRemoved).toBe(1);
    expect(() => removePair([1, 2, 1], 0, 2)).toThrow();
    expect(addNumbers([1, 0, 2, 0, 0])).toEqual([1, 0, 2, 1, 2]);
  });

  it("names a cell for a screen reader and moves the focus with the arrow keys", () => {
    expect(cellLabel(BOARD, 14)).toBe("Row 2, column 5: empty");
    expect(cellLabel(BOARD, 11)).toBe("Row 2, column 2: 9");
    expect(moveFocus(1, "ArrowDown", 12)).toBe(10);
    expect(moveFocus(10, "ArrowDown", 12)).toBe(10);
    expect(moveFocus(9, "ArrowRight", 12)).toBe(10);
    expect(moveFocus(5, "End", 12)).toBe(9);
    expect(moveFocus(5, "x", 12)).toBeNull();
  });
});

describe("NumberMatchTracker", () => {
  it("folds the start, a pair, an addition, a hint and an undo", () => {
    const t = started();
    expect(t.started && !t.gameOver).toBe(true);
    expect(t.board).toEqual(BOARD);
    expect([t.additionsLeft, t.hintsLeft, t.commitment]).toEqual([5, 3, "ab".repeat(32)]);
    expect(settingsText(t)).toBe("easy, 27 numbers, 5 additions, 3 hints");

    t.applyEvent(game(3, { case: "hintGiven", value: { player: ME, kind: NumberMatchEvent_HintKind.PAIR, first: 10, second: 11, hintsLeft: 2 } }));
    expect(t.hinted()).toEqual([10, 11]);
    expect(hintText(t, NumberMatchEvent_HintKind.PAIR, 10, 11)).toContain("1 and 9, row 2, column 1 and row 2, column 2");

    const pair = game(4, { case: "cellsPaired", value: { player: ME, first: 10, second: 11, points: 1, rowsRemoved: 0, score: 1 } });
    expect(t.applyEvent(pair)).toBe(true);
    expect(t.applyEvent(pair)).toBe(false); // the stream brings it again: once only
    expect(t.board).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 5]);
    expect([t.score, t.moves, t.hint]).toEqual([1, 1, null]);
    expect(eventText(pair, t)).toBe("Pair: 1 and 9 (row 2, column 1 and row 2, column 2), +1; score 1");

    t.applyEvent(game(5, { case: "numbersAdded", value: { player: ME, count: 10, additionsLeft: 4 } }));
    expect(t.board).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 5]);
    expect(t.additionsLeft).toBe(4);

    const undo = game(6, { case: "moveUndone", value: { player: ME, undone: NumberMatchEvent_Undone.ADD, score: 1, additionsLeft: 5 } });
    t.applyEvent(undo);
    expect(t.board).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 5]);
    expect([t.additionsLeft, t.moves, t.canUndo]).toEqual([5, 1, true]);
    expect(eventText(undo, t)).toBe("Undone: the last addition (you get it back); score 1");
  });

  it("ends with the outcome, the witness and the published seed", () => {
    const t = started();
    t.applyEvent(game(3, {
      case: "gameOver",
      value: { player: ME, outcome: NumberMatchEvent_Outcome.GAVE_UP, score: 0, timeMs: 65_000n, moves: 0, hintsUsed: 0,
        witness: [{ first: 10, second: 11 }, { add: true }] },
    }));
    expect(t.gameOver && !t.canUndo).toBe(true);
    expect(witnessText(t)).toBe("10-11, +");
    expect(clockText(t.elapsedMs(999_999))).toBe("1:05");
    expect(t.seed).toBeNull();
    const seed = new Uint8Array(32).fill(7);
    t.applyEvent(table(4, { case: "seedRevealed", value: { seed, dealVersion: "number-match-deal-v1" } }));
    expect(t.seed).toEqual(seed);
    expect(t.gameId).toBe(TABLE);
  });

  it("takes a snapshot whole; an undo it has no board for waits for the next view", () => {
    const t = new NumberMatchTracker(ME, TABLE);
    const view = create(NumberMatchViewSchema, {
      tableId: TABLE, eventNumber: 7n, serverTimeMs: 5_000n, phase: NumberMatchView_Phase.PLAYING, you: ME,
      settings: { dailyDate: "2025-01-31", utcOffsetMinutes: 60 }, columns: 9, board: [0, 3, 7], additionsLeft: 2, hintsLeft: 1,
      score: 8, moves: 2, startedAtMs: 1_000n, hint: { kind: NumberMatchEvent_HintKind.ADD },
    });
    t.applyWatch({ item: { case: "snapshot", value: view } } as never);
    expect([t.eventNumber, t.level, t.dailyDate, t.score, t.hint?.kind]).toEqual([7, "hard", "2025-01-31", 8, NumberMatchEvent_HintKind.ADD]);
    expect(settingsText(t)).toContain("the daily puzzle of 2025-01-31 (hard, 45 numbers, 4 additions");
    t.applyEvent(game(8, { case: "moveUndone", value: { player: ME, undone: NumberMatchEvent_Undone.PAIR, score: 4, additionsLeft: 2 } }));
    expect(t.stale).toBe(true);
    // The reply's view (the table after the undo) puts it right; an older one is ignored.
    expect(t.applyView(create(NumberMatchViewSchema, { ...view, eventNumber: 6n }))).toBe(false);
    expect(t.applyView(create(NumberMatchViewSchema, { ...view, eventNumber: 8n, board: [4, 3, 7], score: 4, hint: undefined }))).toBe(true);
    expect([t.stale, t.board, t.score, t.hint]).toEqual([false, [4, 3, 7], 4, null]);
  });

  it("applies a reply's events once, then its view", () => {
    const t = started();
    const events = [game(3, { case: "cellsPaired", value: { player: ME, first: 10, second: 11, points: 1, score: 1 } })];
    const view = create(NumberMatchViewSchema, {
      tableId: TABLE, eventNumber: 3n, phase: NumberMatchView_Phase.PLAYING, you: ME, board: [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 5],
      additionsLeft: 5, hintsLeft: 3, score: 1, moves: 1, settings: { level: NumberMatchSettings_Level.EASY },
    });
    expect(t.applyReply({ events, view }).length).toBe(1);
    expect(t.applyReply({ events, view }).length).toBe(0);
    expect(t.score).toBe(1);
  });

  it("folds an event that comes before the one it follows only once that one is here", () => {
    const t = started();
    const hint = game(3, { case: "hintGiven", value: { player: ME, kind: NumberMatchEvent_HintKind.PAIR, first: 10, second: 11, hintsLeft: 2 } });
    const pair = game(4, { case: "cellsPaired", value: { player: ME, first: 10, second: 11, points: 1, rowsRemoved: 0, score: 1 } });
    const told: number[] = [];
    // The stream brings event 4 before the reply that carries event 3: 4 waits for it.
    expect(t.applyWatch({ item: { case: "event", value: pair } } as never, (e) => told.push(Number(e.eventNumber)))).toEqual([]);
    expect([t.eventNumber, t.board, t.score]).toEqual([2, BOARD, 0]);
    const folded = t.applyEvents([hint], (e) => told.push(Number(e.eventNumber)));
    expect(folded.map((e) => Number(e.eventNumber))).toEqual([3, 4]);
    expect(told).toEqual([3, 4]);
    expect([t.eventNumber, t.board, t.score, t.hintsLeft]).toEqual([4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 5], 1, 2]);
    expect(t.applyEvent(pair)).toBe(false); // the reply brings it again: once only
  });

  it("names the levels and counts in words", () => {
    expect(levelName(undefined)).toBe("easy");
    expect(levelName({ level: NumberMatchSettings_Level.CLASSIC, dailyDate: "" })).toBe("classic");
    expect([say("nm.hintsLeft", { n: 1 }), say("nm.hintsLeft", { n: 2 })]).toEqual(["1 hint left", "2 hints left"]);
    setLocale("de");
    expect([say("nm.hintsLeft", { n: 1 }), say("nm.additionsLeft", { n: 3 })]).toEqual(["noch 1 Tipp", "noch 3 Hinzufügungen"]);
    setLocale("el");
    expect([say("nm.numbersLeft", { n: 1 }), say("nm.numbersLeft", { n: 5 })]).toEqual(["μένει 1 αριθμός", "μένουν 5 αριθμοί"]);
    setLocale("en");
  });
});
