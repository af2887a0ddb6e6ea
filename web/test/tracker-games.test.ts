/// <reference types="node" />
/**
 * Over random games played by the Python rules core (fixtures/make_race_games.py), the tracker
 * fed each player's redacted events always says what the server's snapshot says; and a tracker
 * that starts from a snapshot midway goes on saying it.
 */

import { create, fromBinary } from "@bufbuild/protobuf";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { EventEnvelopeSchema } from "../src/gen/match/v1/common_pb";
import { TableSchema } from "../src/gen/match/v1/lobby_pb";
import { RaceViewSchema, type RaceView } from "../src/gen/match/v1/views_pb";
import { Phase, RaceTracker } from "../src/race/tracker";

interface Step { events: string[]; view: string }
interface Game { seed: number; players: string[]; bots: string[]; steps: Record<string, Step>[] }

const games: Game[] = JSON.parse(gunzipSync(readFileSync(new URL("./fixtures/race-games.json.gz", import.meta.url))).toString("utf8"));
const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

function expected(v: RaceView): unknown {
  return {
    phase: v.phase,
    board: v.board,
    readyDeadline: v.phase === Phase.READY ? Number(v.readyDeadlineMs) : null,
    startsAt: Number(v.startsAtMs),
    endsAt: Number(v.endsAtMs),
    status: v.status,
    tiles: v.tiles.map((t) => [t.tile, t.state, t.symbol ?? null]),
    counts: [v.turns, v.pairs, v.hintsLeft, Number(v.pausedUntilMs)],
    outcome: v.outcome,
    opponents: v.opponents.map((o) => [o.player, o.status, o.boards.map((p) => [p.board, p.pairs, p.turns, p.hints])]),
    revealed: v.revealed.map((r) => [...r.layout]),
    standings: v.standings.map((s) => [s.player, s.place, s.pairs, Number(s.timeMs)]),
  };
}

function actual(t: RaceTracker): unknown {
  return {
    phase: t.phase,
    board: t.board,
    readyDeadline: t.phase === Phase.READY ? t.readyDeadlineMs : null,
    startsAt: t.startsAtMs,
    endsAt: t.endsAtMs,
    status: t.status,
    tiles: [...t.tiles.values()].sort((a, b) => a.number - b.number).map((x) => [x.number, x.state, x.symbol ?? null]),
    counts: [t.turns, t.pairs, t.hintsLeft, t.pausedUntilMs],
    outcome: t.outcome,
    opponents: t.opponents.map((o) => [o.player, t.statusOf(o.player), [...o.boards.values()].sort((a, b) => a.board - b.board).map((p) => [p.board, p.pairs, p.turns, p.hints])]),
    revealed: t.revealed.map((r) => [...r.layout]),
    standings: t.standings.map((s) => [s.player, s.place, s.pairs, s.timeMs]),
  };
}

describe("the tracker says what the server's snapshot says", () => {
  it("has games to check", () => {
    expect(games.length).toBeGreaterThanOrEqual(8);
  });

  for (const game of games) {
    it(`game ${game.seed}: ${game.players.length} players, ${game.steps.length} commands`, () => {
      for (const player of game.players) {
        const tracker = new RaceTracker(player);
        let rejoined: RaceTracker | null = null;
        const rejoinAt = Math.floor(game.steps.length / 3);
        game.steps.forEach((step, i) => {
          const mine = step[player]!;
          const events = mine.events.map((e) => fromBinary(EventEnvelopeSchema, b64(e)));
          for (const e of events) {
            expect(tracker.applyEvent(e)).toBe(true);
            expect(tracker.applyEvent(e)).toBe(false); // a repeat changes nothing
            rejoined?.applyEvent(e);
          }
          const view = fromBinary(RaceViewSchema, b64(mine.view));
          const want = expected(view);
          expect(actual(tracker), `${player} after command ${i}`).toEqual(want);
          if (rejoined !== null) expect(actual(rejoined), `${player} (rejoined) after command ${i}`).toEqual(want);
          if (i === rejoinAt) {
            // As the page does: the table's settings (GetTable) first, since a snapshot taken
            // during a board does not say how many hints each board gives.
            rejoined = new RaceTracker();
            rejoined.noteTable(create(TableSchema, {
              tableId: "t1",
              taken: game.players.map((p, i) => ({ seat: i + 1, playerId: p, displayName: p.toUpperCase(), isBot: game.bots.includes(p) })),
              settings: { case: "race", value: { readyWindowMs: 10_000n, hintsPerBoard: 3 } } }));
            rejoined.applySnapshot(view);
            expect(actual(rejoined)).toEqual(want);
            expect(rejoined.eventNumber).toBe(tracker.eventNumber);
          }
        });
        expect(tracker.gameOver).toBe(true);
        expect(tracker.standings.length).toBe(game.players.length);
      }
    });
  }
});
