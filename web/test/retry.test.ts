// A move made while the connection is down: sent again with the same request id until the
// connection is back, given up (NOT made, said plainly) when it can no longer matter, and the
// connection-lost state the banner shows (issue 31, the web client, item 1).
import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Connection, connection } from "../src/connection";
import { ATTEMPT_MS, clockLeft, command, errorText, NotMadeError, noAnswer, reachability, retriable, RETRY_LIMIT_MS } from "../src/rpc";

/** What connect-web throws when fetch fails (offline, a cut connection). */
const offline = (): ConnectError => new ConnectError("Failed to fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"));

/** A call that fails with no answer until `up()`, then answers; it records every request's headers. */
function flakyServer() {
  let reachable = false;
  const seen: Record<string, string>[] = [];
  const call = async (headers: Record<string, string>): Promise<string> => {
    seen.push({ ...headers });
    if (!reachable) throw offline();
    return "applied";
  };
  return { call, seen, up: () => { reachable = true; } };
}

beforeEach(() => {
  vi.useFakeTimers();
  connection.answered(); // a fresh page: the server in reach
});

afterEach(() => {
  connection.answered();
  vi.useRealTimers();
});

describe("a move made while the connection is down", () => {
  it("is sent again with the same request id until the connection is back, then applied", async () => {
    const server = flakyServer();
    const done = command(server.call, "tok");
    await vi.advanceTimersByTimeAsync(10_000); // a 10 s cut
    expect(connection.lost).toBe(true);
    expect(connection.waiting).toBe(1);
    expect(connection.text()).toMatch(/^Connection lost/);
    expect(connection.text()).toMatch(/Your move is waiting/);
    server.up();
    await vi.advanceTimersByTimeAsync(2_000); // tries at least every 2 s while lost
    await expect(done).resolves.toBe("applied");
    expect(server.seen.length).toBeGreaterThanOrEqual(6); // not 4 tries and done
    expect(new Set(server.seen.map((h) => h["x-request-id"])).size).toBe(1);
    expect(server.seen.every((h) => h.authorization === "Bearer tok")).toBe(true);
    expect(connection.waiting).toBe(0);
  });

  it("is sent at once when the browser is online again, not at the next backoff", async () => {
    const server = flakyServer();
    connection.offline();
    const done = command(server.call);
    await vi.advanceTimersByTimeAsync(5_000);
    const tries = server.seen.length;
    server.up();
    connection.online();
    await vi.advanceTimersByTimeAsync(0);
    await expect(done).resolves.toBe("applied");
    expect(server.seen.length).toBe(tries + 1);
  });

  it("is given up after RETRY_LIMIT_MS, saying plainly it was NOT made", async () => {
    const server = flakyServer();
    const done = command(server.call, undefined, { what: "Turning tile 7" });
    const caught = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(RETRY_LIMIT_MS - 1_000);
    expect(connection.waiting).toBe(1); // still trying
    await vi.advanceTimersByTimeAsync(2_000);
    const err = await caught;
    expect(err).toBeInstanceOf(NotMadeError);
    expect(errorText(err)).toMatch(/^Turning tile 7 was NOT made: the connection to the server was lost/);
    expect(retriable(err)).toBe(false);
    expect(connection.waiting).toBe(0);
    expect(connection.text()).toMatch(/A move was NOT made/);
    const tries = server.seen.length;
    server.up();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(server.seen.length).toBe(tries); // never sent once given up
  });

  it("is given up when the game's clock ends it, sooner than the limit", async () => {
    const server = flakyServer();
    const start = Date.now();
    const done = command(server.call, undefined, { msLeft: () => start + 5_000 - Date.now() });
    const caught = done.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await caught).toBeInstanceOf(NotMadeError);
    // the last try went at the clock's end, not a backoff before it
    expect(server.seen.length).toBeGreaterThanOrEqual(4);
  });

  it("reads the time left from a game's clock, none when it has no clock or no time yet", () => {
    expect(clockLeft(10_000, { synced: true, now: () => 4_000 })).toBe(6_000);
    expect(clockLeft(0, { synced: true, now: () => 4_000 })).toBeUndefined(); // no timer at this table
    expect(clockLeft(10_000, { synced: false, now: () => 0 })).toBeUndefined(); // no server time seen yet
  });

  it("is sent once when the game's clock has already run out", async () => {
    const server = flakyServer();
    const caught = command(server.call, undefined, { msLeft: () => -1 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(await caught).toBeInstanceOf(NotMadeError);
    expect(server.seen.length).toBe(1);
  });

  it("is sent again when an attempt gets no answer at all in time", async () => {
    const seen: string[] = [];
    const call = (headers: Record<string, string>): Promise<string> => {
      seen.push(headers["x-request-id"]!);
      return seen.length === 1 ? new Promise<string>(() => {}) : Promise.resolve("applied"); // the first hangs
    };
    const done = command(call);
    await vi.advanceTimersByTimeAsync(ATTEMPT_MS + 2_000);
    await expect(done).resolves.toBe("applied");
    expect(seen.length).toBe(2);
    expect(seen[0]).toBe(seen[1]);
  });

  it("stops when the page goes (its signal)", async () => {
    const server = flakyServer();
    const page = new AbortController();
    const caught = command(server.call, undefined, { signal: page.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    page.abort();
    const err = await caught;
    expect(err).not.toBeInstanceOf(NotMadeError);
    const tries = server.seen.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.seen.length).toBe(tries);
    expect(connection.waiting).toBe(0);
  });

  it("is not sent again after a refusal, however the connection is", async () => {
    let calls = 0;
    const refused = new ConnectError("that tile is up", Code.FailedPrecondition, new Headers({ "match-refusal-code": "tile_face_up" }));
    const caught = command(async () => { calls++; throw refused; }).catch((e: unknown) => e);
    expect(await caught).toBe(refused);
    expect(calls).toBe(1);
  });
});

describe("the connection's state (the banner)", () => {
  it("tells no answer from the server's answers", () => {
    expect(noAnswer(offline())).toBe(true);
    expect(noAnswer(new TypeError("NetworkError when attempting to fetch resource."))).toBe(true);
    expect(noAnswer(new ConnectError("network error", Code.Unknown))).toBe(true);
    expect(noAnswer(new ConnectError("the referee is not answering; try again", Code.Unavailable))).toBe(false);
    expect(noAnswer(new ConnectError("wait", Code.ResourceExhausted))).toBe(false);
    expect(noAnswer(new ConnectError("aborted", Code.Canceled))).toBe(false);
  });

  it("hears every call: none answered raises it, any answer (a refusal too) or a stream's message clears it", async () => {
    type Next = Parameters<typeof reachability>[0];
    const call = (next: (req: unknown) => Promise<unknown>): Promise<unknown> => reachability(next as Next)({} as never);
    await expect(call(async () => { throw offline(); })).rejects.toThrow();
    expect(connection.lost).toBe(true);
    const refused = new ConnectError("that tile is up", Code.FailedPrecondition, new Headers({ "match-refusal-code": "tile_face_up" }));
    await expect(call(async () => { throw refused; })).rejects.toBe(refused);
    expect(connection.lost).toBe(false);
    // a stream: its opening, then each message, is an answer; a drop midway is none
    async function* dropped(): AsyncGenerator<number> {
      yield 1;
      throw new ConnectError("network error", Code.Unknown);
    }
    const res = (await call(async () => ({ stream: true, message: dropped() }))) as { message: AsyncIterable<number> };
    const got: number[] = [];
    await expect((async () => { for await (const m of res.message) got.push(m); })()).rejects.toThrow("network error");
    expect(got).toEqual([1]);
    expect(connection.lost).toBe(true);
    await expect(call(async () => { throw new ConnectError("aborted", Code.Canceled); })).rejects.toThrow();
    expect(connection.lost).toBe(true); // the page's own abort says nothing of the server
  });

  it("is lost while offline or unanswered, and back (banner empty) at the first answer", () => {
    const c = new Connection();
    const seen: string[] = [];
    c.subscribe(() => seen.push(c.text()));
    expect(c.text()).toBe("");
    c.offline();
    expect(c.lost).toBe(true);
    expect(c.text()).toMatch(/^Connection lost: reconnecting/);
    c.noAnswer();
    c.online(); // the browser says so; no answer has come yet
    expect(c.lost).toBe(true);
    c.moveWaiting(1);
    c.moveWaiting(1);
    expect(c.text()).toMatch(/Your 2 moves are waiting/);
    c.moveWaiting(-1);
    c.moveWaiting(-1);
    c.moveNotMade();
    expect(c.text()).toMatch(/A move was NOT made/);
    c.answered();
    expect(c.lost).toBe(false);
    expect(c.text()).toBe("");
    expect(seen.at(-1)).toBe("");
  });

  it("stays lost while the browser is offline, whatever an earlier stream still brings", () => {
    const c = new Connection();
    c.offline();
    c.answered(true); // a message on a stream opened before the browser went offline
    expect(c.lost).toBe(true);
    expect(c.text()).toMatch(/^Connection lost/);
    c.online();
    c.answered(true); // online again: the stream's message is an answer
    expect(c.lost).toBe(false);
  });

  it("wakes whatever waits to try again when the connection is back", async () => {
    const c = new Connection();
    let woke = false;
    void c.wait(8_000).then(() => { woke = true; });
    await vi.advanceTimersByTimeAsync(100);
    expect(woke).toBe(false);
    c.noAnswer();
    c.answered();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
  });
});
