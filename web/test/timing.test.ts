import { describe, expect, it } from "vitest";
import { announcements, clockLine, deadline, fractionLeft, leftText, pausedMs } from "../src/race/timing";
import { RaceTracker } from "../src/race/tracker";
import { BOB, env, ME, T0, trackerFromSnapshot } from "./helpers";

function readyTracker(): RaceTracker {
  const t = new RaceTracker(ME);
  t.applyEvents([
    env(1, T0, { case: "gameStarted", value: { at: BigInt(T0), players: [ME, BOB], bots: [BOB], readyWindowMs: 30_000n, hintsPerBoard: 3 } }),
    env(2, T0, { case: "readyOpened", value: { at: BigInt(T0), board: 1, deadline: BigInt(T0 + 30_000) } }),
  ]);
  return t;
}

describe("the clock's maths", () => {
  it("words time left as the terminal client does", () => {
    expect(leftText(102_000)).toBe("1:42");
    expect(leftText(60_000)).toBe("1:00");
    expect(leftText(9_000)).toBe("9 s");
    expect(leftText(200)).toBe("1 s");
    expect(leftText(0)).toBe("0 s");
    expect(leftText(-5_000)).toBe("0 s");
  });

  it("counts down Ready, with what missing it costs", () => {
    const t = readyTracker();
    expect(deadline(t)).toEqual({ kind: "ready", board: 1, atMs: T0 + 30_000 });
    expect(clockLine(t, T0 + 5_000)).toBe("Board 1: Ready closes in 25 s. Miss it and you are out of the game");
    expect(fractionLeft(deadline(t)!, t, T0 + 15_000)).toBeCloseTo(0.5);
    t.applyEvents([env(3, T0 + 6_000, { case: "playerReady", value: { at: BigInt(T0 + 6_000), board: 1, player: ME } })]);
    expect(clockLine(t, T0 + 6_000)).toBe("Board 1: you are ready; Ready closes in 24 s");
  });

  it("counts down the 3 s, the two minutes, then the 20 s after the first clear", () => {
    const t = readyTracker();
    t.applyEvents([env(3, T0 + 6_000, { case: "countdownStarted", value: { at: BigInt(T0 + 6_000), board: 1, startsAt: BigInt(T0 + 9_000) } })]);
    expect(clockLine(t, T0 + 6_500)).toBe("Board 1 starts in 3 s");
    t.applyEvents([env(4, T0 + 9_000, { case: "boardStarted", value: { at: BigInt(T0 + 9_000), board: 1 } })]);
    expect(deadline(t)).toEqual({ kind: "board", board: 1, atMs: T0 + 129_000 });
    expect(clockLine(t, T0 + 9_000)).toBe("Board 1 ends in 2:00 (two minutes a board)");
    t.applyEvents([env(5, T0 + 40_000, { case: "boardTaken", value: { at: BigInt(T0 + 40_000), board: 1, player: BOB, graceUntil: BigInt(T0 + 60_000) } })]);
    expect(deadline(t)?.kind).toBe("finish");
    expect(clockLine(t, T0 + 45_000)).toBe("Board 1 ends in 15 s (20 s to finish after the first clear)");
  });

  it("shows the 1 s pause after a miss", () => {
    const t = trackerFromSnapshot();
    t.applyEvents([env(11, T0 + 7_000, { case: "attemptMissed", value: { at: BigInt(T0 + 7_000), board: 1, player: ME, tiles: [7, 8], pausedUntil: BigInt(T0 + 8_000) } })]);
    expect(pausedMs(t, T0 + 7_400)).toBe(600);
    expect(clockLine(t, T0 + 7_400)).toBe("Board 1 ends in 1:53 (two minutes a board); paused 0.6 s after the miss");
    expect(pausedMs(t, T0 + 8_000)).toBe(0);
  });

  it("says each milestone once", () => {
    const t = readyTracker();
    const said = new Set<string>();
    expect(announcements(t, T0 + 10_000, said)).toEqual([]);
    expect(announcements(t, T0 + 20_500, said)).toEqual(["Ready closes in 10 s: press r now, or you are out of the game"]);
    expect(announcements(t, T0 + 21_000, said)).toEqual([]);
    const playing = trackerFromSnapshot(); // ends at T0 + 120 000
    expect(announcements(playing, T0 + 50_000, said)).toEqual([]);
    expect(announcements(playing, T0 + 61_000, said)).toEqual(["Board 1: 59 s left"]);
    // Far behind (a reload): only the latest mark is said, the earlier ones are skipped.
    expect(announcements(playing, T0 + 111_000, said)).toEqual(["Board 1: 9 s left"]);
    expect(announcements(playing, T0 + 112_000, said)).toEqual([]);
  });

  it("does not warn a player who pressed Ready or is out", () => {
    const t = readyTracker();
    t.applyEvents([env(3, T0 + 1_000, { case: "playerReady", value: { at: BigInt(T0 + 1_000), board: 1, player: ME } })]);
    expect(announcements(t, T0 + 25_000, new Set())).toEqual([]);
  });
});
