import { describe, expect, it } from "vitest";
import { randomId } from "../src/ids";
import { MemoryStorage, Store } from "../src/store";

describe("what the browser keeps", () => {
  it("makes a client key once and keeps it", () => {
    const kv = new MemoryStorage();
    const key = new Store(kv).clientKey();
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Store(kv).clientKey()).toBe(key);
  });

  it("keeps one seat per table, newest first", () => {
    const store = new Store(new MemoryStorage());
    const seat = { tableId: "t1", game: "race", playerId: "p1", token: "tok1", seat: 1, displayName: "Ann", savedAtMs: 1 };
    store.saveSeat(seat);
    store.saveSeat({ ...seat, tableId: "t2", token: "tok2" });
    expect(store.seats().map((s) => s.tableId)).toEqual(["t2", "t1"]);
    store.saveSeat({ ...seat, token: "tok1b" });
    expect(store.seats().map((s) => [s.tableId, s.token])).toEqual([["t1", "tok1b"], ["t2", "tok2"]]);
    store.markFinished("t1");
    expect(store.seat("t1")?.finished).toBe(true);
    store.forgetSeat("t1");
    expect(store.seat("t1")).toBeUndefined();
  });

  it("survives garbage in storage", () => {
    const kv = new MemoryStorage();
    kv.setItem("match.seats", "{not json");
    expect(new Store(kv).seats()).toEqual([]);
    kv.setItem("match.seats", JSON.stringify([{ tableId: 1 }, { tableId: "t", token: "x", game: "race" }]));
    expect(new Store(kv).seats().map((s) => s.tableId)).toEqual(["t"]);
  });

  it("makes unpredictable uuid4-shaped request ids", () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });
});
