/**
 * What the Number Match and MATCH 5 pages share: the server's clock, the Watch loop that
 * reconnects with backoff, a few words, and the pages' own stylesheet (injected once, so that
 * the shared style.css stays the scaffold's).
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

const STYLE = `
.nm-status, .m5-status { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0.25rem 0 0.5rem; font-variant-numeric: tabular-nums; }
.nm-status span, .m5-status span { white-space: nowrap; }
.nm-board { display: grid; grid-template-columns: repeat(9, minmax(0, 1fr)); gap: 0.2rem; width: 100%; max-width: 30rem; }
.nm-board .cell {
  min-height: 0; aspect-ratio: 1 / 1; padding: 0; display: flex; align-items: center; justify-content: center;
  font-size: clamp(1rem, 5vw, 1.5rem); font-weight: 700; font-variant-numeric: tabular-nums;
  border: 2px solid var(--line); border-radius: 0.35rem; background: var(--panel); color: var(--fg);
}
.nm-board .cell[data-state="empty"] { background: transparent; border-style: dotted; color: transparent; }
.nm-board .cell[data-state="selected"] { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
.nm-board .cell[data-hint="true"] { border: 3px dashed var(--hint); box-shadow: 0 0 0 2px var(--hint) inset; }
.nm-board .cell[data-state="selected"][data-hint="true"] { border-style: solid; }
.nm-board.over .cell { opacity: 0.6; }
.nm-actions { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.5rem 0; }
.nm-actions .badge, .m5-badge { display: inline-block; min-width: 1.4em; padding: 0 0.3em; margin-left: 0.3em; border-radius: 0.7em; background: var(--line); color: var(--fg); font-size: 0.85em; }
.nm-hint-text { font-weight: 600; color: var(--hint); min-height: 1.4em; margin: 0.25rem 0; }
.nm-witness { font-family: ui-monospace, monospace; font-size: 0.8rem; word-break: break-all; }
.m5-invite { font-size: 1.4rem; font-weight: 700; letter-spacing: 0.12em; font-family: ui-monospace, monospace; }
.m5-invite-link { word-break: break-all; }
.m5-categories { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: 0.3rem; padding: 0; list-style: none; margin: 0.25rem 0 0.5rem; }
.m5-categories li, .m5-colour { border-left: 0.5rem solid var(--line); padding: 0.15rem 0.4rem; }
.m5-c-red { border-left-color: #c62828 !important; }
.m5-c-yellow { border-left-color: #f2b705 !important; }
.m5-c-green { border-left-color: #2e7d32 !important; }
.m5-c-blue { border-left-color: #1565c0 !important; }
.m5-c-purple { border-left-color: #6a1b9a !important; }
.m5-sheet { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.4rem; }
.m5-sheet li { border: 1px solid var(--line); border-radius: 0.4rem; padding: 0.35rem 0.5rem; }
.m5-sheet form { display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; margin: 0.2rem 0 0; }
.m5-sheet input.link { flex: 1 1 12rem; max-width: none; display: inline-block; width: auto; }
.m5-sheet input.link[data-state="saved"] { border-color: var(--found-line); }
.m5-sheet input.link[data-state="unsaved"] { border-color: var(--hint); }
.m5-sheet button.write-link { background: var(--panel); color: var(--fg); border-color: var(--line); font-weight: 600; }
.m5-sheet .saved { font-size: 0.85rem; color: var(--muted); flex-basis: 100%; }
.m5-pair { font-weight: 600; }
.m5-pair small { font-weight: 400; color: var(--muted); }
.m5-ballots { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.4rem; }
.m5-ballots li { border: 1px solid var(--line); border-radius: 0.4rem; padding: 0.4rem 0.5rem; }
.m5-ballots .votes { display: flex; flex-wrap: wrap; gap: 0.3rem; margin-top: 0.3rem; }
.m5-ballots button[aria-pressed="true"] { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
.m5-ballots .text { font-weight: 700; }
.m5-results { padding-left: 1.2rem; font-size: 0.95rem; }
.m5-results ul { padding-left: 1rem; }
.nm-setup fieldset, .m5-setup fieldset { border: none; padding: 0; margin: 0.5rem 0; }
.nm-setup legend, .m5-setup legend { font-weight: 600; }
.nm-setup label.radio { display: block; padding: 0.2rem 0; }
`;

export function ensureStyle(): void {
  if (typeof document === "undefined" || document.getElementById("nm-m5-style")) return;
  const el = document.createElement("style");
  el.id = "nm-m5-style";
  el.textContent = STYLE;
  document.head.append(el);
}

/** The name to play under: the one typed (kept for next time), else a neutral `Guest 417`. */
export function chooseName(store: { setDisplayName(name: string): void }, typed: string): string {
  const name = typed.trim().replace(/\s+/g, " ").slice(0, 32);
  const chosen = name || `Guest ${100 + Math.floor(Math.random() * 900)}`;
  store.setDisplayName(chosen);
  return chosen;
}
