// A seat's commands and view over its WebSocket (socket.ts): matched by request id, refused as
// Connect refuses, sent again over the next socket after a cut, and Connect taking over when
// the socket cannot be used. The socket here is a fake with the browser's WebSocket surface;
// the messages on it are the generated Play messages, encoded and decoded for real.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventEnvelopeSchema } from "../src/gen/match/v1/common_pb";
import { LobbyService, GetTableResponseSchema } from "../src/gen/match/v1/lobby_pb";
import {
  MatchRaceService, MatchRaceServicePlayRequestSchema, MatchRaceServicePlayResponseSchema,
  type MatchRaceServicePlayRequest, type MatchRaceServicePlayResponse, TurnTileResponseSchema, WatchResponseSchema,
} from "../src/gen/match/v1/race_service_pb";
import { Connection, connection } from "../src/connection";
import { command, noAnswer, refusalCode, retriable, retryAfterMs } from "../src/rpc";
import { BLOCKED_MS, closeError, OPEN_MS, snake, SocketTransport, socketUrl } from "../src/socket";

/** The browser's WebSocket, as far as socket.ts uses it; the test plays the server's side. */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static all: FakeSocket[] = [];
  /** What the next sockets do on their own: open, fail (a refused connection), or nothing. */
  static mode: "open" | "fail" | "hang" = "open";

  readyState = FakeSocket.CONNECTING;
  binaryType = "blob";
  readonly sent: (string | Uint8Array)[] = [];
  closedBy: { code: number; reason: string } | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.all.push(this);
    const mode = FakeSocket.mode;
    setTimeout(() => {
      if (mode === "open") { this.readyState = FakeSocket.OPEN; this.onopen?.({}); }
      if (mode === "fail") this.serverClose(1006);
    }, 0);
  }

  send(data: string | Uint8Array): void {
    if (this.readyState === FakeSocket.OPEN) this.sent.push(data);
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.closedBy = { code, reason };
    this.readyState = FakeSocket.CLOSED;
    setTimeout(() => this.onclose?.({ code, reason }), 0);
  }

  // --- the server's side ---
  /** The Play requests sent so far (the first message, the metadata, left out). */
  requests(): MatchRaceServicePlayRequest[] {
    return this.sent.filter((d): d is Uint8Array => typeof d !== "string").map((d) => fromBinary(MatchRaceServicePlayRequestSchema, d));
  }

  reply(init: Parameters<typeof create<typeof MatchRaceServicePlayResponseSchema>>[1]): void {
    const bytes = toBinary(MatchRaceServicePlayResponseSchema, create(MatchRaceServicePlayResponseSchema, init));
    this.onmessage?.({ data: bytes.slice().buffer });
  }

  serverClose(code: number, reason = ""): void {
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({ code, reason });
  }

  static last(): FakeSocket {
    return FakeSocket.all[FakeSocket.all.length - 1]!;
  }
}

/** Connect: what it was asked, and an answer for each (as the page's reachability says). */
function fakeConnect(conn: Connection, reachable = true) {
  const calls: string[] = [];
  const inner: Transport = {
    async unary(method) {
      calls.push(method.name);
      if (!reachable) { conn.noAnswer(); throw new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch")); }
      conn.answered();
      const message = method.name === "GetTable" ? create(GetTableResponseSchema, {}) : create(TurnTileResponseSchema, { events: [] });
      return { stream: false, service: method.parent, method, header: new Headers(), trailer: new Headers(), message } as never;
    },
    async stream(method) {
      calls.push(method.name);
      if (!reachable) { conn.noAnswer(); throw new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch")); }
      conn.answered();
      async function* none() { /* the stream ends at once */ }
      return { stream: true, service: method.parent, method, header: new Headers(), trailer: new Headers(), message: none() } as never;
    },
  };
  return { inner, calls, up: (v: boolean) => { reachable = v; } };
}

const flush = async (): Promise<void> => { for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0)); };
const seat = { authorization: "Bearer seat-token" };
const headers = (id: string) => ({ ...seat, "x-request-id": id });
const A = "a".repeat(32);
const B = "b".repeat(32);

function setup(conn = new Connection()) {
  const connect = fakeConnect(conn);
  const transport = new SocketTransport(connect.inner, { baseUrl: "http://edge.test:8080", clientKey: "key-1", connection: conn, WebSocket: FakeSocket as unknown as typeof WebSocket });
  return { conn, connect, transport, race: createClient(MatchRaceService, transport), lobby: createClient(LobbyService, transport) };
}

beforeEach(() => {
  FakeSocket.all = [];
  FakeSocket.mode = "open";
});

describe("a seat's commands over its socket", () => {
  it("names each command by its request id and matches the answers to them, in any order", async () => {
    const { race, connect } = setup();
    const first = race.turnTile({ tile: 3 }, { headers: headers(A) });
    const second = race.turnTile({ tile: 7 }, { headers: headers(B) });
    await flush();
    expect(FakeSocket.all).toHaveLength(1); // one socket for the seat
    const ws = FakeSocket.last();
    expect(ws.url).toBe("ws://edge.test:8080/match.v1.MatchRaceService/Play"); // no token in the URL
    expect(JSON.parse(ws.sent[0] as string)).toEqual({ authorization: "Bearer seat-token", "x-client-key": "key-1" });
    expect(ws.requests().map((r) => [r.requestId, r.command.case, (r.command.value as { tile: number }).tile])).toEqual([[A, "turnTile", 3], [B, "turnTile", 7]]);
    const env = (n: bigint) => create(EventEnvelopeSchema, { eventNumber: n });
    ws.reply({ requestId: B, body: { case: "turnTile", value: { events: [env(2n)] } } });
    ws.reply({ requestId: A, body: { case: "turnTile", value: { events: [env(1n)] } } });
    expect((await first).events[0]!.eventNumber).toBe(1n);
    expect((await second).events[0]!.eventNumber).toBe(2n);
    expect(connect.calls).toEqual([]); // nothing went over Connect
  });

  it("answers a refusal with the ConnectError the Connect call would throw, and stays open", async () => {
    const { race } = setup();
    const refused = race.turnTile({ tile: 3 }, { headers: headers(A) });
    await flush();
    const ws = FakeSocket.last();
    ws.reply({ requestId: A, body: { case: "refusal", value: { statusCode: 9, message: "it is not your turn", refusalCode: "not_your_turn" } } });
    const err = await refused.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((err as ConnectError).rawMessage).toBe("it is not your turn");
    expect(refusalCode(err)).toBe("not_your_turn");
    expect(noAnswer(err)).toBe(false);

    const limited = race.turnTile({ tile: 4 }, { headers: headers(B) });
    await flush();
    ws.reply({ requestId: B, body: { case: "refusal", value: { statusCode: 8, message: "too many requests from this player: wait 300 ms", retryAfterMs: 300n } } });
    const slow = await limited.catch((e: unknown) => e);
    expect((slow as ConnectError).code).toBe(Code.ResourceExhausted);
    expect(retryAfterMs(slow)).toBe(300);
    expect(FakeSocket.all).toHaveLength(1);
    expect(ws.closedBy).toBeNull();
  });

  it("leaves the lobby's calls and a spectator's Watch to Connect", async () => {
    const { race, lobby, connect } = setup();
    await lobby.getTable({ tableId: "t" }, { headers: seat });
    for await (const _ of race.watch({ tableId: "t" })) { /* a spectator: no token */ }
    expect(connect.calls).toEqual(["GetTable", "Watch"]);
    expect(FakeSocket.all).toHaveLength(0);
  });

  it("sends a command again on a new socket when its answer did not come on the old one", async () => {
    const { transport } = setup();
    const race = createClient(MatchRaceService, transport);
    const lost = race.turnTile({ tile: 3 }, { headers: headers(A) }).catch((e: unknown) => e);
    await flush();
    const old = FakeSocket.last();
    const again = race.turnTile({ tile: 3 }, { headers: headers(A) }); // rpc.command's retry, same id
    await flush();
    expect(old.closedBy?.code).toBe(1000);
    expect(noAnswer(await lost)).toBe(true);
    const fresh = FakeSocket.last();
    expect(fresh).not.toBe(old);
    expect(fresh.requests().map((r) => r.requestId)).toEqual([A]);
    fresh.reply({ requestId: A, body: { case: "turnTile", value: {} } });
    await expect(again).resolves.toBeTruthy();
  });
  it("fails what waits on a socket already closing, and opens another for the next command", async () => {
    const { race } = setup();
    const first = race.turnTile({ tile: 3 }, { headers: headers(A) }).catch((e: unknown) => e);
    await flush();
    const old = FakeSocket.last();
    old.readyState = FakeSocket.CLOSING; // the server's close frame came; its event has not yet
    const second = race.turnTile({ tile: 4 }, { headers: headers(B) });
    await flush();
    expect(noAnswer(await first)).toBe(true); // rpc.command sends it again
    const fresh = FakeSocket.last();
    expect(fresh).not.toBe(old);
    expect(fresh.requests().map((r) => r.requestId)).toEqual([B]);
    fresh.reply({ requestId: B, body: { case: "turnTile", value: {} } });
    await expect(second).resolves.toBeTruthy();
  });
});

describe("the seat's view over its socket", () => {
  it("yields the items of its watch request until the stream ends with the game", async () => {
    const { race } = setup();
    const seen: string[] = [];
    const done = (async () => {
      for await (const item of race.watch({ afterEventNumber: 5n }, { headers: seat })) seen.push(item.item.case ?? "");
    })();
    await flush();
    const ws = FakeSocket.last();
    const [watch] = ws.requests();
    expect(watch!.command.case).toBe("watch");
    expect((watch!.command.value as { afterEventNumber: bigint }).afterEventNumber).toBe(5n);
    expect((watch!.command.value as { batch: boolean }).batch).toBe(true);
    expect((watch!.command.value as { skipAnswered: boolean }).skipAnswered).toBe(true);
    const id = watch!.requestId;
    ws.reply({ requestId: id, body: { case: "watch", value: create(WatchResponseSchema, { item: { case: "event", value: { eventNumber: 6n } } }) } });
    ws.reply({ requestId: "another-view-id-0000", body: { case: "watch", value: {} } }); // not this view's
    ws.reply({ requestId: id, body: { case: "watch", value: create(WatchResponseSchema, { item: { case: "event", value: { eventNumber: 7n } } }) } });
    ws.serverClose(1000); // the game is over and its seed out
    await done;
    expect(seen).toEqual(["event", "event"]);
  });

  it("hands a batch of events on one event per item, in order", async () => {
    const { race } = setup();
    const seen: bigint[] = [];
    const done = (async () => {
      for await (const item of race.watch({}, { headers: seat })) {
        if (item.item.case === "event") seen.push(item.item.value.eventNumber);
      }
    })();
    await flush();
    const ws = FakeSocket.last();
    const id = ws.requests()[0]!.requestId;
    const batch = { events: [{ eventNumber: 1n }, { eventNumber: 2n }, { eventNumber: 3n }] };
    ws.reply({ requestId: id, body: { case: "watch", value: create(WatchResponseSchema, { item: { case: "events", value: batch } }) } });
    ws.reply({ requestId: id, body: { case: "watch", value: create(WatchResponseSchema, { item: { case: "event", value: { eventNumber: 4n } } }) } });
    ws.serverClose(1000);
    await done;
    expect(seen).toEqual([1n, 2n, 3n, 4n]);
  });

  it("ends with the socket's last refusal when it closes for a status (4000 + code)", async () => {
    const { race } = setup();
    const done = (async () => { for await (const _ of race.watch({}, { headers: seat })) { /* nothing comes */ } })().catch((e: unknown) => e);
    await flush();
    const ws = FakeSocket.last();
    ws.reply({ requestId: "", body: { case: "refusal", value: { statusCode: 9, message: "table t expired: its game did not start in time", refusalCode: "table_expired" } } });
    ws.serverClose(4009, "table t expired");
    const err = await done;
    expect((err as ConnectError).code).toBe(Code.FailedPrecondition);
    expect(refusalCode(err)).toBe("table_expired");
    expect((err as ConnectError).rawMessage).toBe("table t expired: its game did not start in time");
  });

  it("closes the socket once the page stops following and nothing else waits", async () => {
    const { race } = setup();
    const stop = new AbortController();
    const done = (async () => { for await (const _ of race.watch({}, { headers: seat, signal: stop.signal })) { /* none */ } })().catch((e: unknown) => e);
    await flush();
    stop.abort();
    expect(((await done) as ConnectError).code).toBe(Code.Canceled);
    expect(FakeSocket.last().closedBy?.code).toBe(1000);
  });
});

describe("a cut, and Connect taking over", () => {
  beforeEach(() => connection.answered());
  afterEach(() => { connection.answered(); connection.online(); vi.useRealTimers(); });

  it("sends a move made while the socket is down again, same request id, once a socket is back", async () => {
    vi.useFakeTimers();
    const { race, connect } = setup(connection);
    connect.up(false); // the network is down: Connect gets no answer either
    const move = command((h) => race.turnTile({ tile: 3 }, { headers: h }), "seat-token");
    await vi.advanceTimersByTimeAsync(10);
    const first = FakeSocket.last();
    const [sent] = first.requests();
    first.serverClose(1006); // the cut
    await vi.advanceTimersByTimeAsync(10);
    expect(connection.lost).toBe(true);
    expect(connection.waiting).toBe(1);
    FakeSocket.mode = "fail"; // no socket opens while the cut lasts
    await vi.advanceTimersByTimeAsync(8_000);
    expect(FakeSocket.all.length).toBeGreaterThan(3); // tried again and again
    FakeSocket.mode = "open";
    connect.up(true);
    await vi.advanceTimersByTimeAsync(2_500);
    const back = FakeSocket.all.find((s) => s.readyState === FakeSocket.OPEN)!;
    expect(back.requests().map((r) => r.requestId)).toEqual([sent!.requestId]);
    back.reply({ requestId: sent!.requestId, body: { case: "turnTile", value: {} } });
    await expect(move).resolves.toBeTruthy();
    expect(connection.lost).toBe(false);
    expect(connection.waiting).toBe(0);
  });

  it("goes over Connect while the browser is offline, closing the open socket, and back after", async () => {
    const { race, conn, connect } = setup();
    const pending = race.turnTile({ tile: 3 }, { headers: headers(A) }).catch((e: unknown) => e);
    await flush();
    const ws = FakeSocket.last();
    conn.offline();
    expect(ws.closedBy?.code).toBe(1000); // an open socket may outlive the network: it goes
    expect(noAnswer(await pending)).toBe(true); // rpc.command sends it again
    connect.up(false);
    await expect(race.turnTile({ tile: 3 }, { headers: headers(A) })).rejects.toThrow(/Failed to fetch/);
    expect(connect.calls).toEqual(["TurnTile"]);
    expect(FakeSocket.all).toHaveLength(1);
    conn.online();
    const again = race.turnTile({ tile: 3 }, { headers: headers(A) });
    await flush();
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.last().reply({ requestId: A, body: { case: "turnTile", value: {} } });
    await expect(again).resolves.toBeTruthy();
  });

  it("goes over Connect when the socket does not open, and stays there a while if Connect answers", async () => {
    vi.useFakeTimers();
    const { race, connect } = setup();
    FakeSocket.mode = "hang";
    const first = race.turnTile({ tile: 3 }, { headers: headers(A) });
    await vi.advanceTimersByTimeAsync(OPEN_MS);
    await expect(first).resolves.toBeTruthy();
    expect(connect.calls).toEqual(["TurnTile"]);
    FakeSocket.mode = "open";
    await race.turnTile({ tile: 4 }, { headers: headers(B) });
    expect(connect.calls).toEqual(["TurnTile", "TurnTile"]); // Connect answers: no socket tried
    expect(FakeSocket.all).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(BLOCKED_MS);
    const later = race.turnTile({ tile: 5 }, { headers: headers(A) });
    await vi.advanceTimersByTimeAsync(10);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.last().reply({ requestId: A, body: { case: "turnTile", value: {} } });
    await expect(later).resolves.toBeTruthy();
    expect(connect.calls).toHaveLength(2);
  });
});

describe("the pieces", () => {
  it("names Play's members as the lobby does, and the socket's URL after the page's origin", () => {
    expect(["TurnTile", "PressReady", "Watch", "RequestHint"].map(snake)).toEqual(["turn_tile", "press_ready", "watch", "request_hint"]);
    expect(socketUrl("https://play.example.org", MatchRaceService)).toBe("wss://play.example.org/match.v1.MatchRaceService/Play");
  });

  it("reads a close: the end (1000), a status (4000 + code), too big (1009), or a lost connection", () => {
    expect(closeError(1000, "", null)).toBeNull();
    const status = closeError(4016, "send your player token", null)!;
    expect([status.code, status.rawMessage, noAnswer(status)]).toEqual([Code.Unauthenticated, "send your player token", false]);
    const big = closeError(1009, "frame with 70000 bytes exceeds limit of 65536 bytes", null)!;
    expect([big.code, retriable(big), noAnswer(big)]).toEqual([Code.ResourceExhausted, false, false]);
    const lost = closeError(1006, "", null)!;
    expect([lost.code, noAnswer(lost)]).toEqual([Code.Unavailable, true]);
  });
});

void ({} as MatchRaceServicePlayResponse);
