/** Building the server's messages by hand, as the Python tests do. */

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { EventEnvelopeSchema, GameKind, TableEventSchema, type EventEnvelope } from "../src/gen/match/v1/common_pb";
import { RaceEventSchema } from "../src/gen/match/v1/race_pb";
import { RaceView_Phase, RaceView_Status, RaceView_TileState, RaceViewSchema, type RaceView } from "../src/gen/match/v1/views_pb";
import { RaceTracker } from "../src/race/tracker";

export const ME = "ann";
export const BOB = "bob";
export const T0 = 1_000_000;

type RaceInit = MessageInitShape<typeof RaceEventSchema>["event"];
type TableInit = MessageInitShape<typeof TableEventSchema>["event"];

export function env(n: number, at: number, event: RaceInit): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: "t1",
    gameId: "t1",
    gameKind: GameKind.MATCH_RACE,
    eventNumber: BigInt(n),
    serverTimeMs: BigInt(at),
    body: { case: "race", value: create(RaceEventSchema, { event }) },
  });
}

export function tableEnv(n: number, event: TableInit, at = 0): EventEnvelope {
  return create(EventEnvelopeSchema, {
    tableId: "t1",
    eventNumber: BigInt(n),
    serverTimeMs: BigInt(at),
    body: { case: "table", value: create(TableEventSchema, { event }) },
  });
}

/** Board 1 under way; tile 4 is already found with tile 9 (symbol 3). */
export function playingSnapshot(eventNumber = 10): RaceView {
  return create(RaceViewSchema, {
    tableId: "t1",
    gameId: "t1",
    eventNumber: BigInt(eventNumber),
    serverTimeMs: BigInt(T0 + 5_000),
    player: ME,
    phase: RaceView_Phase.PLAYING,
    board: 1,
    startsAtMs: BigInt(T0),
    endsAtMs: BigInt(T0 + 120_000),
    status: RaceView_Status.PLAYING,
    turns: 2,
    pairs: 1,
    hintsLeft: 3,
    commitment: "ab".repeat(32),
    dealVersion: "match-deal-v1",
    tiles: Array.from({ length: 20 }, (_, i) => i + 1).map((t) =>
      t === 4 || t === 9
        ? { tile: t, state: RaceView_TileState.FOUND, symbol: 3 }
        : { tile: t, state: RaceView_TileState.DOWN }),
    opponents: [{ player: BOB, status: RaceView_Status.PLAYING, displayName: "Bob", boards: [{ board: 1, pairs: 0, turns: 4, hints: 0 }] }],
  });
}

export function trackerFromSnapshot(): RaceTracker {
  const t = new RaceTracker(ME);
  t.applyWatch({ $typeName: "match.v1.WatchResponse", item: { case: "snapshot", value: playingSnapshot() } });
  return t;
}

/** The tiles that are up: number -> [state, symbol]. */
export function faces(t: RaceTracker): Record<number, [number, number | undefined]> {
  const out: Record<number, [number, number | undefined]> = {};
  for (const tile of t.tiles.values()) if (tile.state !== RaceView_TileState.DOWN) out[tile.number] = [tile.state, tile.symbol];
  return out;
}
