/**
 * What the Number Match and MATCH 5 pages share: the server's clock, the Watch loop that
 * reconnects with backoff and a few words. Their styles are in style.css (nm-, m5-): the page's
 * Content-Security-Policy takes styles only from the edge's files, never injected ones.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { backoffMs, retryAfterMs, retryWait, sleep } from "../rpc";

/** A Watch after this number gets a fresh snapshot (it is beyond any table's last event). */
export const SNAPSHOT_AFTER = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An estimate of the referee's clock, never ahead of it: the largest `server - local` bound
 * seen, on a monotonic local clock (as race/timing.ts's ServerClock).
 */
export class ServerClock {
  private offset: number | null = null;

  constructor(private readonly localMs: () => number = () => performance.now()) {}

  get synced(): boolean {
    return this.offset !== null;
  }

  observe(serverMs: number, localMs?: number): void {
    if (!(serverMs > 0)) return;
    const bound = serverMs - (localMs ?? this.localMs());
    if (this.offset === null || bound > this.offset) this.offset = bound;
  }

  now(): number {
    return this.offset === null ? 0 : this.localMs() + this.offset;
  }
}

/** `3 numbers`, `1 hint`. */
export function count(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}

/** `1:05` for 65 000 ms (never negative). */
export function clockText(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of the seed equals the published commitment; null where the browser cannot tell. */
export async function seedMatches(seed: Uint8Array, commitment: string): Promise<boolean | null> {
  try {
    if (!commitment || typeof crypto === "undefined" || !crypto.subtle) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", seed.slice()));
    return hex(digest) === commitment.toLowerCase();
  } catch {
    return null;
  }
}

/** An error after which watching again cannot help (the token, the table, the request). */
export function fatalWatch(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  return [Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument, Code.FailedPrecondition].includes(err.code);
}

export interface Follow<T> {
  readonly signal: AbortSignal;
  /** Open the stream (called for every try: it reads where to resume from). */
  open(signal: AbortSignal): AsyncIterable<T>;
  item(item: T): void;
  /** Nothing more can happen at the table: the stream's end is final. */
  finished(): boolean;
  /** "" when connected; otherwise what the player should know about the connection. */
  connection(text: string): void;
  fatal(err: unknown): void;
}

/**
 * Follow a Watch stream until the table is finished: after a drop (or an end before the
 * finish) it opens again, with backoff, from where `open` says (the last event applied).
 */
export async function follow<T>(f: Follow<T>): Promise<void> {
  let attempt = 0;
  while (!f.signal.aborted) {
    try {
      for await (const item of f.open(f.signal)) {
        attempt = 0;
        f.connection("");
        f.item(item);
      }
      if (f.finished()) {
        f.connection("");
        return;
      }
      await sleep(backoffMs(0));
    } catch (err) {
      if (f.signal.aborted) return;
      if (fatalWatch(err)) {
        f.connection("");
        f.fatal(err);
        return;
      }
      const wait = retryAfterMs(err) ?? backoffMs(attempt++);
      f.connection(`Connection lost; trying again in ${Math.ceil(wait / 1000)} s`);
      await retryWait(wait, f.signal); // at once when the connection is back
    }
  }
}

/** Today's date where the player is, `YYYY-MM-DD`, and its offset from UTC in minutes. */
export function localToday(now: Date = new Date()): { date: string; offsetMinutes: number } {
  const y = now.getFullYear();
  const m = String(now.getMonth() + 1).padStart(2, "0");
  const d = String(now.getDate()).padStart(2, "0");
  return { date: `${y}-${m}-${d}`, offsetMinutes: -now.getTimezoneOffset() };
}

/** A link to this very page at another hash (for friends: the table's or the invite's). */
export function pageLink(hash: string): string {
  if (typeof location === "undefined") return hash;
  return `${location.origin}${location.pathname}${hash}`;
}

/** The name to play under: the one typed (kept for next time), else a neutral `Guest 417`. */
export function chooseName(store: { setDisplayName(name: string): void }, typed: string): string {
  const name = typed.trim().replace(/\s+/g, " ").slice(0, 32);
  const chosen = name || `Guest ${100 + Math.floor(Math.random() * 900)}`;
  store.setDisplayName(chosen);
  return chosen;
}
