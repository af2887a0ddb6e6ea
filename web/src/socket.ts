/**
 * A seat's commands and view over one WebSocket (docs/client.md, "Play over a WebSocket"): a
 * Connect `Transport` that carries each game's commands and its Watch over the game's `Play`
 * (docs/api.md, "Play over a WebSocket") and everything else over Connect, so that the pages
 * and the kit call the games' clients as they always did.
 *
 * A call goes over the socket when its service has a `Play`, the call is one of Play's members
 * (a command, or the view: Watch) and it carries a seat's token (`authorization`). One socket
 * per seat (service and token), opened at its first call: its first message is the token (and
 * `x-client-key`), then each command is a binary `<Service>PlayRequest` under the call's
 * `x-request-id`, its answer matched by that id; a refusal is the ConnectError the Connect call
 * would have thrown (code, sentence, `match-refusal-code`, `retry-after-ms`), so `command`
 * (rpc.ts) retries, gives up and explains exactly as before. A socket that closes on its own
 * (a cut, the lobby restarting) fails its calls as a lost connection: `command` sends the move
 * again, same request id, over the next socket, within the game's clock.
 *
 * Connect takes over when the socket cannot be used: the browser says it is offline (an open
 * socket is closed then: it may outlive the network unnoticed), or it does not open within
 * OPEN_MS. Then the call goes over Connect as before; if Connect is answered while the socket
 * would not open (a proxy that does not pass WebSockets), Connect carries every call for
 * BLOCKED_MS before the socket is tried again.
 */

import {
  create, fromBinary, toBinary, type DescMessage, type DescMethod, type DescMethodStreaming, type DescMethodUnary,
  type DescService, type MessageInitShape, type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { connection as pageConnection, type Connection } from "./connection";
import { randomId } from "./ids";

/** How long a socket may take to open before the call goes over Connect. */
export const OPEN_MS = 5_000;
/** How long Connect carries every call after a socket would not open while Connect answered. */
export const BLOCKED_MS = 60_000;
/** A close with 4000 + a gRPC status code: the socket ended with that status (4016: UNAUTHENTICATED). */
const STATUS_BASE = 4000;
const NORMAL = 1000;
const TOO_BIG = 1009; // a message over the edge's size limit: sending it again cannot help
const PLAY = "Play";

/** What a socket is made with (tests give a fake WebSocket and their own Connection). */
export interface SocketOptions {
  /** The page's origin (the lobby's web edge): http(s)://host:port. */
  readonly baseUrl: string;
  /** `x-client-key`, sent in the first message as on every Connect call. */
  readonly clientKey?: string;
  readonly connection?: Connection;
  readonly WebSocket?: typeof WebSocket;
}

/** What went over the sockets, for a page's tests and for curiosity. */
export interface SocketStats {
  opened: number;
  commands: number;
  views: number;
  fallbacks: number;
}

interface Route {
  readonly play: DescMethod;
  readonly member: string; // the localName of the call's member in Play's request and response
  readonly auth: string;
}

/** `TurnTile` -> `turn_tile`, as the lobby names Play's members (match_rules.protocodec.snake). */
export function snake(name: string): string {
  return name.replace(/(?<!^)(?=[A-Z])/g, "_").toLowerCase();
}

function playOf(service: DescService): DescMethod | undefined {
  return service.methods.find((m) => m.name === PLAY && m.methodKind === "bidi_streaming");
}

function oneof(message: DescMessage, name: string): { localName: string; fields: { name: string; localName: string }[] } | undefined {
  return message.oneofs.find((o) => o.name === name);
}

/** The WebSocket URL of `service`'s Play on the edge at `baseUrl`. */
export function socketUrl(baseUrl: string, service: DescService): string {
  const url = new URL(`/${service.typeName}/${PLAY}`, baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/** A lost connection, as connect-web reports a failed fetch (rpc.ts noAnswer: true). */
export function lostError(why: string): ConnectError {
  return new ConnectError(`network: ${why}`, Code.Unavailable, undefined, undefined, new TypeError(why));
}

interface Refusal {
  statusCode: number;
  message: string;
  refusalCode: string;
  retryAfterMs: bigint;
}

/** A refusal on the socket as the ConnectError its Connect call would have thrown. */
export function refusalError(r: Refusal): ConnectError {
  const metadata = new Headers();
  if (r.refusalCode) metadata.set("match-refusal-code", r.refusalCode);
  if (r.retryAfterMs > 0n) metadata.set("retry-after-ms", String(r.retryAfterMs));
  const code = r.statusCode >= 1 && r.statusCode <= 16 ? (r.statusCode as Code) : Code.Unknown;
  return new ConnectError(r.message, code, metadata);
}

/** What a close means for the calls waiting on the socket: null for the end of the stream (1000);
 * a status (4000 + its code) or a message over the size limit (1009, RESOURCE_EXHAUSTED with no
 * wait: not sent again); anything else a lost connection. */
export function closeError(code: number, reason: string, last: Refusal | null): ConnectError | null {
  if (code === NORMAL) return null;
  if (code === TOO_BIG) return new ConnectError(reason || "the request is larger than the server takes", Code.ResourceExhausted);
  if (code > STATUS_BASE && code < STATUS_BASE + 100) {
    return refusalError(last ?? { statusCode: code - STATUS_BASE, message: reason, refusalCode: "", retryAfterMs: 0n });
  }
  return lostError(`the WebSocket to the server closed (${code}${reason ? ` ${reason}` : ""})`);
}

interface Pending {
  readonly member: string;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface View {
  readonly id: string;
  readonly member: string;
  push(item: unknown): void;
  end(err: ConnectError | null): void;
}

/**
 * A view's items one event each: an `events` item (asked for with the Watch request's `batch`,
 * docs/api.md, "Watch") becomes one `event` item per event, in order; any other item passes as
 * it is (a lobby that does not batch sends `event` items).
 */
export async function* unbatched(items: AsyncIterable<unknown>, response: DescMessage): AsyncGenerator<unknown> {
  for await (const it of items) {
    const item = (it as { item?: { case?: string; value?: unknown } }).item;
    if (item?.case !== "events") { yield it; continue; }
    for (const event of (item.value as { events: unknown[] }).events) {
      yield create(response, { item: { case: "event", value: event } } as MessageInitShape<DescMessage>);
    }
  }
}

/** One seat's socket: its commands matched by request id, its view. */
class SeatSocket {
  private ws: WebSocket | null = null;
  private opening: Promise<void> | null = null;
  private readonly pending = new Map<string, Pending>();
  private view: View | null = null;
  private last: Refusal | null = null; // the last message, when a refusal with no request id
  private readonly command: string;
  private readonly body: string;

  constructor(
    private readonly play: DescMethod,
    private readonly url: string,
    private readonly hello: string,
    private readonly conn: Connection,
    private readonly Impl: typeof WebSocket,
    private readonly stats: SocketStats,
  ) {
    this.command = oneof(play.input, "command")!.localName;
    this.body = oneof(play.output, "body")!.localName;
  }

  get idle(): boolean {
    return this.pending.size === 0 && this.view === null;
  }

  /** Whether `requestId` was sent on this socket and is still unanswered. */
  has(requestId: string): boolean {
    return this.pending.has(requestId);
  }

  /** The socket open and its first message sent; rejects when it does not open within OPEN_MS. */
  ready(): Promise<void> {
    if (this.ws !== null && this.ws.readyState === this.Impl.OPEN) return Promise.resolve();
    // Closing already (its close event still to come): what waits on it will not be answered.
    if (this.ws !== null) this.closed(this.ws, 1006, "");
    this.opening ??= this.open().finally(() => { this.opening = null; });
    return this.opening;
  }

  private open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new this.Impl(this.url);
      ws.binaryType = "arraybuffer";
      let settled = false;
      const fail = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error("the WebSocket did not open"));
      };
      const timer = setTimeout(() => { fail(); ws.close(); }, OPEN_MS);
      ws.onopen = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.ws = ws;
        this.last = null;
        this.stats.opened++;
        ws.send(this.hello);
        resolve();
      };
      ws.onclose = (ev) => { if (settled) this.closed(ws, ev.code, ev.reason); else fail(); };
      ws.onmessage = (ev) => this.received(ws, ev.data);
    });
  }

  /** Send a command under `requestId`; its response (the call's member), or its refusal. */
  call(requestId: string, member: string, value: unknown, signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const done = (): void => { signal?.removeEventListener("abort", abort); };
      const abort = (): void => {
        if (this.pending.get(requestId) === entry) this.pending.delete(requestId);
        done();
        reject(new ConnectError("the call was cancelled", Code.Canceled));
      };
      const entry: Pending = {
        member,
        resolve: (v) => { done(); resolve(v); },
        reject: (e) => { done(); reject(e); },
      };
      if (signal?.aborted) { abort(); return; }
      if (this.ws === null) { reject(lostError("the WebSocket closed")); return; } // sent again
      signal?.addEventListener("abort", abort);
      this.pending.set(requestId, entry);
      this.stats.commands++;
      this.send(requestId, member, value);
    });
  }

  /** The seat's view from `value` (the Watch request): its items until the stream ends. */
  async *watch(member: string, value: unknown, signal?: AbortSignal): AsyncGenerator<unknown> {
    const id = randomId();
    const items: unknown[] = [];
    let ended: { err: ConnectError | null } | null = null;
    let wake: (() => void) | null = null;
    const poke = (): void => { const w = wake; wake = null; w?.(); };
    const view: View = {
      id,
      member,
      push: (item) => { items.push(item); poke(); },
      end: (err) => { ended ??= { err }; poke(); },
    };
    this.view?.end(new ConnectError("another view of this seat started", Code.Canceled));
    this.view = view;
    const abort = (): void => view.end(new ConnectError("the call was cancelled", Code.Canceled));
    signal?.addEventListener("abort", abort);
    this.stats.views++;
    try {
      this.send(id, member, value);
      for (;;) {
        if (items.length) { yield items.shift(); continue; }
        if (ended !== null) {
          const { err } = ended;
          if (err !== null) throw err;
          return;
        }
        await new Promise<void>((resolve) => { wake = resolve; });
      }
    } finally {
      signal?.removeEventListener("abort", abort);
      if (this.view === view) this.view = null;
      if (this.idle) this.close(); // the page stopped following: nothing is left to carry
    }
  }

  /** Close the socket now; whatever waits on it fails as a lost connection (`why`). */
  drop(why: string): void {
    const ws = this.ws;
    if (ws === null) return;
    this.ws = null;
    ws.close(NORMAL, why);
    this.failAll(lostError(why), lostError(why));
  }

  private close(): void {
    const ws = this.ws;
    this.ws = null;
    ws?.close(NORMAL);
  }

  private send(requestId: string, member: string, value: unknown): void {
    const message = create(this.play.input, { requestId, [this.command]: { case: member, value } } as never);
    // A socket that closed meanwhile fails the call (closed): the caller sends it again.
    this.ws?.send(toBinary(this.play.input, message));
  }

  private received(ws: WebSocket, data: unknown): void {
    if (ws !== this.ws || !(data instanceof ArrayBuffer)) return;
    this.conn.answered(true);
    let message: MessageShape<DescMessage>;
    try {
      message = fromBinary(this.play.output, new Uint8Array(data));
    } catch {
      return; // not this game's message: nothing waits for it
    }
    const id = (message as unknown as { requestId: string }).requestId;
    const body = (message as unknown as Record<string, { case?: string; value?: unknown }>)[this.body];
    this.last = null;
    if (body?.case === "refusal") {
      const refusal = body.value as Refusal;
      if (id === "") { this.last = refusal; return; } // why the socket ends, if a close follows
      if (this.view?.id === id) { this.view.end(refusalError(refusal)); return; }
      const pending = this.pending.get(id);
      if (pending !== undefined) { this.pending.delete(id); pending.reject(refusalError(refusal)); }
      return;
    }
    if (this.view !== null && this.view.id === id && body?.case === this.view.member) {
      this.view.push(body.value);
      return;
    }
    const pending = this.pending.get(id);
    if (pending !== undefined && body?.case === pending.member) {
      this.pending.delete(id);
      pending.resolve(body.value);
    }
  }

  private closed(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.ws) return; // closed here (drop, close), or a socket replaced since
    this.ws = null;
    const err = closeError(code, reason, this.last);
    const lost = code !== NORMAL && code !== TOO_BIG && !(code > STATUS_BASE && code < STATUS_BASE + 100);
    if (lost && !this.idle) this.conn.noAnswer(); // as a Connect call that got no answer says
    // A command still waiting when the stream ended OK (the game is over) is not lost either.
    this.failAll(err ?? new ConnectError("the seat's stream ended before the answer came", Code.Unavailable), err);
  }

  private failAll(commands: ConnectError, view: ConnectError | null): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(commands);
    const running = this.view;
    this.view = null;
    running?.end(view);
  }
}

/**
 * The page's transport: the games' commands and views of a seat over its socket, the rest (and
 * everything, while the socket cannot be used) over `inner`, the Connect transport.
 */
export class SocketTransport implements Transport {
  readonly stats: SocketStats = { opened: 0, commands: 0, views: 0, fallbacks: 0 };
  private readonly sockets = new Map<string, SeatSocket>();
  private readonly conn: Connection;
  private readonly Impl: typeof WebSocket | undefined;
  private blockedUntil = 0;

  constructor(private readonly inner: Transport, private readonly opts: SocketOptions) {
    this.conn = opts.connection ?? pageConnection;
    this.Impl = opts.WebSocket ?? (typeof WebSocket === "undefined" ? undefined : WebSocket);
    // An open socket may outlive the network unnoticed: once the browser says it is offline,
    // every socket goes, and calls go over Connect (which fails at once) until it is online.
    this.conn.subscribe(() => {
      if (this.conn.browserOffline) for (const s of this.sockets.values()) s.drop("the browser is offline");
    });
  }

  async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const viaConnect = (): Promise<UnaryResponse<I, O>> => this.inner.unary(method, signal, timeoutMs, header, input, contextValues);
    const route = this.route(method, header);
    if (route === null) return viaConnect();
    const socket = this.socket(route);
    const requestId = new Headers(header).get("x-request-id") ?? randomId();
    // Sent before on this socket and not answered in time: the socket may be dead without
    // knowing it (a cut with no reset). The command goes again on a new one.
    if (socket.has(requestId)) socket.drop("no answer in time");
    try {
      await socket.ready();
    } catch {
      return this.fallback(viaConnect);
    }
    const answer = await socket.call(requestId, route.member, create(method.input, input), signal);
    return { stream: false, service: method.parent, method, header: new Headers(), trailer: new Headers(), message: answer as MessageShape<O> };
  }

  async stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    const route = method.methodKind === "server_streaming" ? this.route(method, header) : null;
    if (route === null) return this.inner.stream(method, signal, timeoutMs, header, input, contextValues);
    let first: MessageInitShape<I> = {} as MessageInitShape<I>;
    for await (const m of input) { first = m; break; }
    const viaConnect = (): Promise<StreamResponse<I, O>> =>
      this.inner.stream(method, signal, timeoutMs, header, createAsyncIterable([first]), contextValues);
    const socket = this.socket(route);
    try {
      await socket.ready();
    } catch {
      return this.fallback(viaConnect);
    }
    // The view in batches (a record's events in one message: fewer messages for the lobby and
    // the page), handed to the page one event per item, as Watch sends them without `batch`;
    // without the events this socket's answers carried (`skipAnswered`): every game's tracker
    // folds the replies' and the view's events together, in number order, waiting for gaps.
    const request = create(method.input, { ...first, batch: true, skipAnswered: true } as MessageInitShape<I>);
    const items = unbatched(socket.watch(route.member, request, signal), method.output);
    return { stream: true, service: method.parent, method, header: new Headers(), trailer: new Headers(), message: items as AsyncIterable<MessageShape<O>> };
  }

  /** The socket's route for a call, or null when the call goes over Connect. */
  private route(method: DescMethod, header: HeadersInit | undefined): Route | null {
    if (this.Impl === undefined || this.conn.browserOffline || Date.now() < this.blockedUntil) return null;
    const auth = new Headers(header).get("authorization");
    if (auth === null) return null; // a spectator, or the lobby's own calls
    const play = playOf(method.parent);
    const field = play && oneof(play.input, "command")?.fields.find((f) => f.name === snake(method.name));
    if (play === undefined || field === undefined) return null;
    return { play, member: field.localName, auth };
  }

  private socket(route: Route): SeatSocket {
    const key = `${route.play.parent.typeName} ${route.auth}`;
    let socket = this.sockets.get(key);
    if (socket === undefined) {
      const hello = JSON.stringify({ authorization: route.auth, ...(this.opts.clientKey ? { "x-client-key": this.opts.clientKey } : {}) });
      socket = new SeatSocket(route.play, socketUrl(this.opts.baseUrl, route.play.parent), hello, this.conn, this.Impl!, this.stats);
      this.sockets.set(key, socket);
    }
    return socket;
  }

  /** The call over Connect, the socket having not opened; if Connect is answered, the socket
   * is not tried again for BLOCKED_MS (something between here and the edge stops it). */
  private async fallback<T>(call: () => Promise<T>): Promise<T> {
    this.stats.fallbacks++;
    try {
      return await call();
    } finally {
      if (!this.conn.lost) this.blockedUntil = Date.now() + BLOCKED_MS;
    }
  }
}
