import { describe, expect, it } from "vitest";
import { Visibility } from "../src/gen/match/v1/common_pb";
import { RaceEvent_EndReason, RaceEvent_Outcome } from "../src/gen/match/v1/race_pb";
import { Phase, RaceTracker, Status, TileState } from "../src/race/tracker";
import { BOB, env, faces, ME, playingSnapshot, T0, tableEnv, trackerFromSnapshot } from "./helpers";

describe("RaceTracker: a snapshot, then events", () => {
  it("takes a snapshot whole", () => {
    const t = trackerFromSnapshot();
    expect(t.eventNumber).toBe(10);
    expect([t.phase, t.board, t.status]).toEqual([Phase.PLAYING, 1, Status.PLAYING]);
    expect(faces(t)).toEqual({ 4: [TileState.FOUND, 3], 9: [TileState.FOUND, 3] });
    expect([t.turns, t.pairs, t.hintsLeft]).toEqual([2, 1, 3]);
    expect([t.startsAtMs, t.endsAtMs]).toEqual([T0, T0 + 120_000]);
    expect(t.opponents.map((o) => o.player)).toEqual([BOB]);
    expect(t.name(BOB)).toBe("Bob");
    expect(t.commitment).toBe("ab".repeat(32));
    expect(t.seed).toBeNull();
    expect(t.serverTimeMs).toBe(T0 + 5_000);
  });

  it("shows own faces, then puts them back down for good", () => {
    const t = trackerFromSnapshot();
    t.applyEvents([env(11, T0 + 6_000, { case: "tileTurned", value: { at: BigInt(T0 + 6_000), board: 1, player: ME, tile: 7, symbol: 12, turn: 3 } })]);
    expect(faces(t)[7]).toEqual([TileState.SHOWING, 12]);
    expect(t.showing).toEqual([7]);
    t.applyEvents([
      env(12, T0 + 7_000, { case: "tileTurned", value: { at: BigInt(T0 + 7_000), board: 1, player: ME, tile: 8, symbol: 5, turn: 4 } }),
      env(13, T0 + 7_000, { case: "attemptMissed", value: { at: BigInt(T0 + 7_000), board: 1, player: ME, tiles: [7, 8], pausedUntil: BigInt(T0 + 8_000) } }),
    ]);
    expect(faces(t)[8]).toEqual([TileState.SHOWING, 5]);
    expect(t.pausedUntilMs).toBe(T0 + 8_000);
    expect(t.turns).toBe(4);
    t.applyEvents([
      env(14, T0 + 9_000, { case: "tilesTurnedDown", value: { at: BigInt(T0 + 9_000), board: 1, player: ME, tiles: [7, 8] } }),
      env(15, T0 + 9_000, { case: "tileTurned", value: { at: BigInt(T0 + 9_000), board: 1, player: ME, tile: 1, symbol: 12, turn: 5 } }),
    ]);
    expect(t.tiles.get(7)).toEqual({ number: 7, state: TileState.DOWN });
    expect(t.tiles.get(8)?.symbol).toBeUndefined();
    expect(faces(t)[1]).toEqual([TileState.SHOWING, 12]);
    t.applyEvents([
      env(16, T0 + 10_000, { case: "tileTurned", value: { at: BigInt(T0 + 10_000), board: 1, player: ME, tile: 7, symbol: 12, turn: 6 } }),
      env(17, T0 + 10_000, { case: "pairFound", value: { at: BigInt(T0 + 10_000), board: 1, player: ME, tiles: [1, 7], symbol: 12, pairs: 2 } }),
    ]);
    expect(faces(t)[1]).toEqual([TileState.FOUND, 12]);
    expect(faces(t)[7]).toEqual([TileState.FOUND, 12]);
    expect(t.found.sort((a, b) => a - b)).toEqual([1, 4, 7, 9]);
    expect(t.showing).toEqual([]);
    expect([t.turns, t.pairs, t.eventNumber]).toEqual([6, 2, 17]);
  });

  it("changes only the counts of another player's move", () => {
    const t = trackerFromSnapshot();
    const before = JSON.stringify([[...t.tiles], t.turns, t.pairs, t.pausedUntilMs, t.hintsLeft, t.status]);
    t.applyEvents([env(11, T0 + 6_000, { case: "opponentMoved", value: { at: BigInt(T0 + 6_000), board: 1, player: BOB, turns: 14, pairs: 3, hints: 1 } })]);
    expect(JSON.stringify([[...t.tiles], t.turns, t.pairs, t.pausedUntilMs, t.hintsLeft, t.status])).toBe(before);
    expect(t.players.get(BOB)?.boards.get(1)).toEqual({ board: 1, pairs: 3, turns: 14, hints: 1 });
    expect(t.statusOf(BOB)).toBe(Status.PLAYING);
  });

  it("applies each event once, in whatever order replies and the stream bring them", () => {
    const t = trackerFromSnapshot();
    const reply = [env(12, T0 + 6_000, { case: "tileTurned", value: { at: BigInt(T0 + 6_000), board: 1, player: ME, tile: 2, symbol: 8, turn: 3 } })];
    expect(t.applyEvents(reply)).toEqual(reply);
    expect(t.eventNumber).toBe(10); // 11 is still missing: a Watch resumes after 10
    const moved = env(11, T0 + 5_500, { case: "opponentMoved", value: { at: BigInt(T0 + 5_500), board: 1, player: BOB, turns: 5 } });
    expect(t.applyEvents([moved, ...reply])).toEqual([moved]);
    expect(t.eventNumber).toBe(12);
    expect(t.turns).toBe(3);
    expect(t.players.get(BOB)?.boards.get(1)?.turns).toBe(5);
    expect(t.applyEvents([env(5, T0, { case: "boardStarted", value: { at: BigInt(T0), board: 1 } })])).toEqual([]);
  });

  it("starts again from a new snapshot", () => {
    const t = trackerFromSnapshot();
    t.applyEvents([env(11, T0 + 6_000, { case: "tileTurned", value: { at: BigInt(T0 + 6_000), board: 1, player: ME, tile: 2, symbol: 8, turn: 3 } })]);
    t.applySnapshot(playingSnapshot(20));
    expect(t.eventNumber).toBe(20);
    expect(faces(t)[2]).toBeUndefined(); // the snapshot holds only what is up now
    expect(t.turns).toBe(2);
  });

  it("follows a board from Ready to the reveal, and the game to its seed", () => {
    const t = new RaceTracker(ME);
    const layout = Array.from({ length: 20 }, (_, s) => Math.floor(s / 2));
    const opened = T0 - 10_000;
    t.applyEvents([
      tableEnv(1, { case: "playerSeated", value: { seat: 1, playerId: ME, displayName: "Ann" } }),
      tableEnv(2, { case: "playerSeated", value: { seat: 2, playerId: BOB, displayName: "Bot 1", isBot: true } }),
      env(3, opened, { case: "gameStarted", value: { at: BigInt(opened), players: [ME, BOB], bots: [BOB], readyWindowMs: 30_000n, hintsPerBoard: 2 } }),
      env(4, opened, { case: "readyOpened", value: { at: BigInt(opened), board: 1, deadline: BigInt(opened + 30_000) } }),
    ]);
    expect([t.phase, t.status]).toEqual([Phase.READY, Status.WAITING]);
    expect([t.readyDeadlineMs, t.hintsLeft, t.readyWindowMs]).toEqual([opened + 30_000, 2, 30_000]);
    expect(t.hasBot && t.players.get(BOB)?.isBot).toBe(true);
    expect(t.name(BOB)).toBe("Bot 1");
    t.applyEvents([env(5, T0 - 3_000, { case: "playerReady", value: { at: BigInt(T0 - 3_000), board: 1, player: ME } })]);
    expect([t.status, t.statusOf(BOB)]).toEqual([Status.READY, Status.WAITING]);
    t.applyEvents([
      env(6, T0 - 3_000, { case: "playerReady", value: { at: BigInt(T0 - 3_000), board: 1, player: BOB } }),
      env(7, T0 - 3_000, { case: "countdownStarted", value: { at: BigInt(T0 - 3_000), board: 1, startsAt: BigInt(T0) } }),
    ]);
    expect([t.phase, t.startsAtMs, t.endsAtMs]).toEqual([Phase.COUNTDOWN, T0, T0 + 120_000]);
    t.applyEvents([env(8, T0, { case: "boardStarted", value: { at: BigInt(T0), board: 1 } })]);
    expect([t.phase, t.status]).toEqual([Phase.PLAYING, Status.PLAYING]);
    t.applyEvents([
      env(9, T0 + 1, { case: "tileTurned", value: { at: BigInt(T0 + 1), board: 1, player: ME, tile: 1, symbol: 0, turn: 1 } }),
      env(10, T0 + 2, { case: "hintGiven", value: { at: BigInt(T0 + 2), board: 1, player: ME, tile: 1, partner: 2, hintsUsed: 1 } }),
    ]);
    expect(t.lastHint).toEqual({ tile: 1, partner: 2 });
    expect(t.hintsLeft).toBe(1);
    t.applyEvents([
      env(11, T0 + 30_000, { case: "boardCleared", value: { at: BigInt(T0 + 30_000), board: 1, player: ME, elapsedMs: 30_000n } }),
      env(12, T0 + 30_000, { case: "boardTaken", value: { at: BigInt(T0 + 30_000), board: 1, player: ME, graceUntil: BigInt(T0 + 50_000) } }),
    ]);
    expect([t.status, t.outcome, t.endsAtMs, t.takenBy]).toEqual([Status.DONE, RaceEvent_Outcome.CLEARED, T0 + 50_000, ME]);
    t.applyEvents([
      env(13, T0 + 50_000, { case: "boardEnded", value: { at: BigInt(T0 + 50_000), board: 1, reason: RaceEvent_EndReason.GRACE_OVER } }),
      env(14, T0 + 50_000, {
        case: "boardRevealed",
        value: {
          at: BigInt(T0 + 50_000), board: 1, layout,
          results: [
            { player: ME, outcome: RaceEvent_Outcome.CLEARED, pairs: 10, found: 10, turns: 24, timeMs: 30_000n },
            { player: BOB, outcome: RaceEvent_Outcome.BOARD_ENDED, pairs: 4, found: 4, turns: 30, timeMs: 50_000n },
          ],
        },
      }),
      env(15, T0 + 50_000, { case: "readyOpened", value: { at: BigInt(T0 + 50_000), board: 2, deadline: BigInt(T0 + 80_000) } }),
    ]);
    expect(t.revealed.map((r) => r.board)).toEqual([1]);
    expect(t.revealed[0]?.layout).toEqual(layout);
    expect(t.players.get(BOB)?.boards.get(1)?.pairs).toBe(4);
    expect([t.phase, t.board]).toEqual([Phase.READY, 2]);
    expect(faces(t)).toEqual({});
    expect([t.turns, t.pairs, t.hintsLeft, t.outcome]).toEqual([0, 0, 2, RaceEvent_Outcome.UNSPECIFIED]);
    t.applyEvents([
      env(16, T0 + 51_000, { case: "playerResigned", value: { at: BigInt(T0 + 51_000), board: 2, player: BOB } }),
      env(17, T0 + 51_000, { case: "gameEnded", value: { at: BigInt(T0 + 51_000), standings: [{ player: ME, place: 1, pairs: 10, timeMs: 30_000n, turns: 24 }] } }),
      tableEnv(18, { case: "seedRevealed", value: { seed: new Uint8Array(32).fill(1), dealVersion: "match-deal-v1" } }),
    ]);
    expect(t.statusOf(BOB)).toBe(Status.OUT);
    expect(t.gameOver).toBe(true);
    expect(t.standings.map((s) => s.player)).toEqual([ME]);
    expect(t.seed).toEqual(new Uint8Array(32).fill(1));
    expect(t.eventNumber).toBe(18);
  });

  it("learns whose view it is from the first private event", () => {
    const t = new RaceTracker();
    t.applyEvents([
      env(1, T0, { case: "gameStarted", value: { at: BigInt(T0), players: [ME, BOB] } }),
      env(2, T0, { case: "opponentMoved", value: { at: BigInt(T0), board: 1, player: BOB, turns: 1 } }),
      env(3, T0, { case: "tileTurned", value: { at: BigInt(T0), board: 1, player: ME, tile: 1, symbol: 4 } }),
    ]);
    expect(t.player).toBe(ME);
    expect(t.opponents.map((o) => o.player)).toEqual([BOB]);
  });

  it("puts a player who missed Ready out of the game", () => {
    const t = new RaceTracker(ME);
    t.applyEvents([
      env(1, T0, { case: "gameStarted", value: { at: BigInt(T0), players: [ME, BOB], readyWindowMs: 10_000n } }),
      env(2, T0, { case: "readyOpened", value: { at: BigInt(T0), board: 1, deadline: BigInt(T0 + 10_000) } }),
      env(3, T0 + 10_000, { case: "playerMissedReady", value: { at: BigInt(T0 + 10_000), board: 1, player: ME } }),
    ]);
    expect([t.status, t.outcome, t.hintsLeft]).toEqual([Status.OUT, RaceEvent_Outcome.OUT, 0]);
  });

  it("keeps table facts: the fill, the bot's strength, an expiry", () => {
    const t = new RaceTracker(ME);
    t.applyEvents([
      tableEnv(1, { case: "tableCreated", value: { seats: 2, fillAtMs: 5n, settings: { case: "race", value: { readyWindowMs: 20_000n } } } }),
      tableEnv(2, { case: "fillRequested", value: { fillAtMs: 7n } }),
      tableEnv(3, { case: "botsAssigned", value: { strength: "weak" } }),
      tableEnv(4, { case: "seedCommitted", value: { commitment: "cd".repeat(32), dealVersion: "v" } }),
    ]);
    expect([t.fillAtMs, t.botStrength, t.hintsPerBoard, t.readyWindowMs, t.commitment]).toEqual([7, "weak", 3, 20_000, "cd".repeat(32)]);
    expect(t.isPrivate).toBe(false);
    t.applyEvents([tableEnv(5, { case: "tableExpired", value: {} })]);
    expect(t.expired).toBe(true);
  });

  it("knows a private table (no bot takes its empty seats there)", () => {
    const t = new RaceTracker(ME);
    t.applyEvents([tableEnv(1, { case: "tableCreated", value: { seats: 2, visibility: Visibility.PRIVATE } })]);
    expect(t.isPrivate).toBe(true);
  });
});
