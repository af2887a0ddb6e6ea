import { describe, expect, it } from "vitest";
import { RaceEvent_Outcome } from "../src/gen/match/v1/race_pb";
import { describeEvent, describeSnapshot, runningStandings, tileLabel, tileState } from "../src/race/describe";
import { symbolName, NAMES, EMOJI } from "../src/race/symbols";
import { RaceTracker, TileState } from "../src/race/tracker";
import { BOB, env, ME, T0, tableEnv, trackerFromSnapshot } from "./helpers";

describe("what the page says", () => {
  it("names tiles by number, and a symbol only while it is showing", () => {
    expect(tileLabel({ number: 7, state: TileState.DOWN })).toBe("Tile 7, face down");
    expect(tileLabel({ number: 7, state: TileState.SHOWING, symbol: 5 })).toBe("Tile 7, fish");
    expect(tileLabel({ number: 7, state: TileState.FOUND, symbol: 5 })).toBe("Tile 7, found");
    expect(tileLabel({ number: 7, state: TileState.SHOWING })).toBe("Tile 7, face down"); // no face was sent
    expect(tileState({ number: 1, state: TileState.SHOWING, symbol: 1 })).toBe("up");
    expect(tileState({ number: 1, state: TileState.FOUND, symbol: 1 })).toBe("found");
  });

  it("has the terminal client's 25 symbol names", () => {
    expect(NAMES.length).toBe(25);
    expect(EMOJI.length).toBe(25);
    expect(new Set(NAMES).size).toBe(25);
    expect(symbolName(5)).toBe("fish");
    expect(symbolName(99)).toBe("symbol 99");
  });

  it("says each event in a line", () => {
    const t = trackerFromSnapshot();
    const turned = env(11, T0 + 6_000, { case: "tileTurned", value: { at: BigInt(T0 + 6_000), board: 1, player: ME, tile: 7, symbol: 5, turn: 3 } });
    t.applyEvent(turned);
    expect(describeEvent(turned, t)).toEqual([{ text: "Tile 7: fish" }]);
    const pair = env(12, T0 + 6_500, { case: "pairFound", value: { at: BigInt(T0 + 6_500), board: 1, player: ME, tiles: [7, 2], symbol: 5, pairs: 2 } });
    t.applyEvent(pair);
    expect(describeEvent(pair, t)[0]?.text).toBe("Pair found: tiles 7 and 2, fish. 2 pairs");
    const cd = env(13, T0, { case: "countdownStarted", value: { at: BigInt(T0), board: 2, startsAt: BigInt(T0 + 3_000) } });
    expect(describeEvent(cd, t)[0]?.text).toBe("Board 2 starts in 3 s");
    const cleared = env(14, T0, { case: "boardCleared", value: { at: BigInt(T0), board: 1, player: BOB, elapsedMs: 31_400n } });
    expect(describeEvent(cleared, t)[0]?.text).toBe("Bob cleared the board in 31.4 s");
    const opened = env(15, T0, { case: "readyOpened", value: { at: BigInt(T0), board: 2, deadline: BigInt(T0 + 30_000) } });
    expect(describeEvent(opened, t)[0]?.text).toBe("Board 2 of 3: press Ready within 30 s. Miss it and you are out of the game");
    const seated = tableEnv(16, { case: "playerSeated", value: { seat: 2, playerId: "x", displayName: "Bot 1", isBot: true } });
    expect(describeEvent(seated, t)[0]?.text).toBe("Bot 1 sat down at seat 2 (bot)");
  });

  it("says where a snapshot finds the game, and what Ready left costs", () => {
    const t = trackerFromSnapshot();
    expect(describeSnapshot(t, T0 + 6_000)).toEqual([{ text: "Board 1 of 3: Under way" }, { text: "You have 1 pair in 2 turns" }]);
    const r = new RaceTracker(ME);
    r.applyEvents([
      env(1, T0, { case: "gameStarted", value: { at: BigInt(T0), players: [ME, BOB] } }),
      env(2, T0, { case: "readyOpened", value: { at: BigInt(T0), board: 2, deadline: BigInt(T0 + 30_000) } }),
    ]);
    expect(describeSnapshot(r, T0 + 8_200)).toEqual([{ text: "Board 2 of 3: press Ready within 22 s. Miss it and you are out of the game" }]);
  });

  it("keeps an opponent's turn that found nothing out of the live region", () => {
    const t = trackerFromSnapshot();
    const before = new Map([[BOB, { pairs: 0, turns: 4, hints: 0 }]]);
    const turnOnly = env(11, T0, { case: "opponentMoved", value: { at: BigInt(T0), board: 1, player: BOB, turns: 5, pairs: 0 } });
    t.applyEvent(turnOnly);
    expect(describeEvent(turnOnly, t, before)).toEqual([{ text: "Bob: 0 pairs, 5 turns", quiet: true }]);
    const found = env(12, T0, { case: "opponentMoved", value: { at: BigInt(T0), board: 1, player: BOB, turns: 6, pairs: 1 } });
    t.applyEvent(found);
    expect(describeEvent(found, t, before)).toEqual([{ text: "Bob: 1 pair, 6 turns", quiet: false }]);
    // the same counts again (their miss, their tiles going down): nothing to say
    expect(describeEvent(found, t, new Map([[BOB, { pairs: 1, turns: 6, hints: 0 }]]))).toEqual([]);
  });

  it("ranks the boards revealed so far as the game's end does", () => {
    const t = new RaceTracker(ME);
    t.applyEvents([
      env(1, T0, { case: "gameStarted", value: { at: BigInt(T0), players: [ME, BOB, "cid"] } }),
      env(2, T0, {
        case: "boardRevealed",
        value: {
          at: BigInt(T0), board: 1, layout: [],
          results: [
            { player: ME, outcome: RaceEvent_Outcome.CLEARED, pairs: 10, found: 10, turns: 30, timeMs: 40_000n },
            { player: BOB, outcome: RaceEvent_Outcome.BOARD_ENDED, pairs: 10, found: 10, turns: 22, timeMs: 40_000n },
            { player: "cid", outcome: RaceEvent_Outcome.BOARD_ENDED, pairs: 6, found: 6, turns: 40, timeMs: 60_000n },
          ],
        },
      }),
    ]);
    expect(runningStandings(t).map((r) => [r.place, r.player, r.pairs])).toEqual([[1, ME, 10], [1, BOB, 10], [3, "cid", 6]]);
    t.applyEvents([env(3, T0, { case: "playerResigned", value: { at: BigInt(T0), board: 2, player: ME } })]);
    expect(runningStandings(t).map((r) => [r.place, r.player, r.out])).toEqual([[1, BOB, false], [2, "cid", false], [3, ME, true]]);
  });
});
