/**
 * The lobby's web edge: one transport (base URL = this page's origin; a seat's commands and
 * view over its WebSocket, socket.ts, everything else over Connect), a client per service, and
 * the metadata every call carries: `x-client-key` always, `authorization: Bearer
 * <token>` for a seat, `x-request-id` for a command (fresh per command, the same on a retry).
 * Every call also tells `connection` (connection.ts) whether the server answered: that is what
 * raises and clears the page's connection-lost banner.
 */

import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { LobbyService } from "./gen/match/v1/lobby_pb";
import { PlayerService } from "./gen/match/v1/players_pb";
import { MatchRaceService } from "./gen/match/v1/race_service_pb";
import { connection } from "./connection";
import { randomId } from "./ids";
import { sentence } from "./sentence";
import { has, locale, t } from "./i18n";
import { SocketTransport } from "./socket";

export interface Api {
  readonly transport: Transport;
  readonly lobby: Client<typeof LobbyService>;
  readonly race: Client<typeof MatchRaceService>;
  readonly players: Client<typeof PlayerService>;
}

/** The signed-in player's session (player/session.ts), or none: the browser plays anonymously. */
export interface SessionSource {
  /** The session token to send (signed in first when needed); null without a key. */
  token(): Promise<string | null>;
  /** The lobby refused `token` (UNAUTHENTICATED): forget it, so that `token()` signs in again. */
  expired(token: string): void;
}

/** The calls that go as the signed-in player: a seat taken is theirs, and what they play counts. */
export const AS_PLAYER: ReadonlySet<string> = new Set([
  "match.v1.LobbyService/CreateTable",
  "match.v1.LobbyService/JoinTable",
  "match.v1.PlayerService/FindMySeats",
  "match.v1.PlayerService/GetMyProfile",
  "match.v1.PlayerService/GetMyStatistics",
  "match.v1.PlayerService/GetMyStreak",
]);

/**
 * Sends the session (`authorization: Bearer <session>`) with the AS_PLAYER calls that carry no
 * other token, as the terminal client does (MatchClient._as_player); when the lobby answers
 * UNAUTHENTICATED (the session ran out, or the lobby's secret changed) it signs in again and
 * sends the call once more, with the same request id.
 */
export function asPlayer(session: () => SessionSource | null): Interceptor {
  return (next) => async (req) => {
    const source = session();
    if (source === null || req.stream || !AS_PLAYER.has(`${req.service.typeName}/${req.method.name}`) || req.header.has("authorization")) {
      return next(req);
    }
    const token = await source.token();
    if (token === null) return next(req);
    req.header.set("authorization", `Bearer ${token}`);
    try {
      return await next(req);
    } catch (err) {
      if (!(err instanceof ConnectError) || err.code !== Code.Unauthenticated) throw err;
      source.expired(token);
      const again = await source.token();
      if (again === null || again === token) throw err;
      req.header.set("authorization", `Bearer ${again}`);
      return next(req);
    }
  };
}

export function makeApi(baseUrl: string, clientKey: string, session: () => SessionSource | null = () => null): Api {
  const withKey: Interceptor = (next) => (req) => {
    req.header.set("x-client-key", clientKey);
    return next(req);
  };
  const connect = createConnectTransport({ baseUrl, interceptors: [withKey, asPlayer(session), reachability] });
  // A seat's commands and view go over its WebSocket (socket.ts), the rest over Connect.
  const transport = new SocketTransport(connect, { baseUrl, clientKey });
  return {
    transport,
    lobby: createClient(LobbyService, transport),
    race: createClient(MatchRaceService, transport),
    players: createClient(PlayerService, transport),
  };
}

/** No answer came at all: the network failed (offline, a cut, a reset) or an attempt timed out. */
export function noAnswer(err: unknown): boolean {
  if (err instanceof NoAnswerInTime) return true;
  if (!(err instanceof ConnectError)) return err instanceof TypeError;
  if (refusalCode(err) !== null) return false;
  if (err.code !== Code.Unknown && err.code !== Code.Unavailable) return false;
  return err.cause instanceof TypeError || !err.rawMessage || /fetch|network|failed to|load failed/i.test(err.rawMessage);
}

/** Tells `connection` what every call got: an answer (the server is in reach) or none. */
export const reachability: Interceptor = (next) => async (req) => {
  try {
    const res = await next(req);
    connection.answered();
    if (!res.stream) return res;
    return { ...res, message: reachable(res.message) };
  } catch (err) {
    heard(err);
    throw err;
  }
};

async function* reachable<M>(messages: AsyncIterable<M>): AsyncIterable<M> {
  try {
    for await (const m of messages) {
      connection.answered(true);
      yield m;
    }
  } catch (err) {
    heard(err);
    throw err;
  }
}

function heard(err: unknown): void {
  if (noAnswer(err)) connection.noAnswer();
  else if (err instanceof ConnectError && err.code !== Code.Canceled && err.code !== Code.DeadlineExceeded) connection.answered();
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The rules' slug of a refusal (`match-refusal-code`), or null for any other error. */
export function refusalCode(err: unknown): string | null {
  return err instanceof ConnectError ? err.metadata.get("match-refusal-code") : null;
}

/** `retry-after-ms` of a rate limit, or null. */
export function retryAfterMs(err: unknown): number | null {
  if (!(err instanceof ConnectError)) return null;
  const v = err.metadata.get("retry-after-ms");
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/** The server's words for an error as a sentence for a person, never the refusal's slug. */
export function errorText(err: unknown): string {
  if (err instanceof NotMadeError) return err.message;
  if (err instanceof ConnectError) {
    if (err.code === Code.Unknown || err.code === Code.Unavailable) {
      if (!err.rawMessage || /fetch|network|failed to/i.test(err.rawMessage)) return t("rpc.notAnswering");
    }
    // A refusal in the player's language by its slug; the server's (English) words in English,
    // and for a slug this page does not know.
    const slug = refusalCode(err);
    if (slug !== null && locale() !== "en" && has(locale(), `refusal.${slug}`)) return t(`refusal.${slug}`);
    return sentence(err.rawMessage) || t("rpc.refused");
  }
  return sentence(err instanceof Error ? err.message : String(err)) || t("rpc.wrong");
}

/** An error whose command may not have reached the server: worth sending again, same id. */
export function retriable(err: unknown): boolean {
  if (err instanceof NotMadeError) return false;
  if (!(err instanceof ConnectError)) return true; // a network failure before any answer
  if (refusalCode(err) !== null) return false; // the rules answered
  if (err.code === Code.ResourceExhausted) return retryAfterMs(err) !== null; // a rate limit
  return err.code === Code.Unavailable || err.code === Code.Unknown || err.code === Code.DeadlineExceeded || err.code === Code.Internal;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Backoff before attempt `n` (0-based) of a retry: 0.5 s, 1 s, 2 s, ... up to 8 s, jittered. */
export function backoffMs(n: number): number {
  const base = Math.min(500 * 2 ** n, 8_000);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/** How long a command is sent again, at most, when the game's clock does not end it sooner. */
export const RETRY_LIMIT_MS = 30_000;
/** How long one attempt may go without an answer before it is sent again (same id). The lobby
 * answers within 15 s even when no referee holds the table (10 s wait, then 5 s). */
export const ATTEMPT_MS = 16_000;
/** The longest wait between two attempts while the server is out of reach. */
const MAX_RETRY_GAP_MS = 2_000;

/** An attempt got no answer within ATTEMPT_MS. */
export class NoAnswerInTime extends Error {
  constructor() {
    super(t("rpc.noAnswerInTime"));
    this.name = "NoAnswerInTime";
  }
}

/** A command given up on: nothing answered it in time, so it was not made. `cause`: the last error. */
export class NotMadeError extends Error {
  readonly lastError: unknown;
  constructor(what: string, lost: boolean, lastError: unknown) {
    super(lost ? t("rpc.notMadeLost", { what }) : t("rpc.notMadeSlow", { what, why: errorText(lastError) }));
    this.name = "NotMadeError";
    this.lastError = lastError;
  }
}

export interface CommandOptions {
  /** The command in the player's words, for "... was NOT made" ("Your move" by default). */
  what?: string;
  /** How long the command can still matter by the game's own clock (ms; read before every
   * retry; undefined: no clock bounds it). It is never sent again past RETRY_LIMIT_MS. */
  msLeft?: () => number | undefined;
  /** The page's: once aborted, nothing is sent again. */
  signal?: AbortSignal;
  /** How long one attempt may take (tests). */
  attemptMs?: number;
}

function withinMs<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new NoAnswerInTime()), ms);
    p.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e: unknown) => { clearTimeout(timer); reject(e); },
    );
  });
}

/** A command's `msLeft` from a game's clock: the time until `atMs` (server ms; 0: no clock) by
 * the page's reading of the server's clock, or undefined while it has none. */
export function clockLeft(atMs: number, clock: { readonly synced: boolean; now(): number }): number | undefined {
  return atMs > 0 && clock.synced ? atMs - clock.now() : undefined;
}

/** Wait `ms` before trying again, or less: until the connection is back. */
export function retryWait(ms: number, signal?: AbortSignal): Promise<void> {
  return connection.wait(ms, signal);
}

/**
 * Run a command with one request id, sending it again with the same id while its answer may
 * have been lost (network, UNAVAILABLE, a deadline, no answer within ATTEMPT_MS) or a rate
 * limit asks to wait: the referee answers a request id it has seen with its first answer and
 * applies nothing twice. While the server is out of reach it tries every 2 s at most, and at
 * once when the connection comes back; it gives up when the command can no longer matter (the
 * game's clock, `msLeft`) or after RETRY_LIMIT_MS, whichever is first, with a NotMadeError that
 * says plainly the move was not made. Meanwhile the banner says the move is waiting.
 */
export async function command<T>(
  call: (headers: Record<string, string>) => Promise<T>,
  token?: string,
  opts: CommandOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { "x-request-id": randomId(), ...(token ? bearer(token) : {}) };
  const giveUpAt = Date.now() + RETRY_LIMIT_MS;
  let waiting = false;
  try {
    for (let n = 0; ; n++) {
      try {
        return await withinMs(call(headers), opts.attemptMs ?? ATTEMPT_MS);
      } catch (err) {
        if (!retriable(err) || opts.signal?.aborted) throw err;
        const lost = noAnswer(err);
        if (lost) connection.noAnswer();
        const left = Math.min(giveUpAt - Date.now(), opts.msLeft?.() ?? Infinity);
        const limited = retryAfterMs(err);
        if (left <= 0 || (limited !== null && limited > left)) {
          if (lost || connection.lost) connection.moveNotMade();
          throw new NotMadeError(opts.what ?? t("rpc.yourMove"), lost || connection.lost, err);
        }
        if (!waiting) {
          waiting = true;
          connection.moveWaiting(1);
        }
        const wait = limited ?? (lost ? Math.min(backoffMs(n), MAX_RETRY_GAP_MS) : backoffMs(n));
        await retryWait(Math.min(wait, left), opts.signal);
        if (opts.signal?.aborted) throw err;
      }
    }
  } finally {
    if (waiting) connection.moveWaiting(-1);
  }
}
