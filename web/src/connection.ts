/**
 * Whether the server is in reach, as every call of the page sees it, and the banner that says
 * so. One per document (`connection`): the rpc layer tells it what each call got (an answer,
 * or none at all), the browser tells it when it goes offline and online, and `command` tells
 * it which moves are waiting to be sent again. The banner (`#connection-banner`, role=alert)
 * shows while the server is out of reach and empties itself once an answer comes again.
 */

import { t } from "./i18n";

export type Listener = () => void;

export class Connection {
  private noAnswerNow = false;
  private offlineNow = false;
  private waitingMoves = 0;
  private notMadeNow = 0;
  private readonly listeners = new Set<Listener>();
  private readonly sleepers = new Set<() => void>();

  /** The server is out of reach: a call got no answer, or the browser says it is offline. */
  get lost(): boolean {
    return this.noAnswerNow || this.offlineNow;
  }

  /** The browser says it is offline: no call can get out, and an open socket may be dead. */
  get browserOffline(): boolean {
    return this.offlineNow;
  }

  /** Moves being sent again, waiting for the connection. */
  get waiting(): number {
    return this.waitingMoves;
  }

  /** Moves given up on (NOT made) since the connection was lost. */
  get notMade(): number {
    return this.notMadeNow;
  }

  /** A call got no answer at all (a network failure, no response in time). */
  noAnswer(): void {
    if (this.noAnswerNow) return;
    this.noAnswerNow = true;
    this.changed();
  }

  /**
   * The server answered something (a refusal too): it is in reach again. A message on a stream
   * opened earlier (`streamed`) proves nothing while the browser says it is offline: such a
   * stream can outlive the network for new calls, and the moves waiting still cannot get out.
   */
  answered(streamed = false): void {
    if (streamed && this.offlineNow) return;
    if (!this.noAnswerNow && !this.offlineNow && this.notMadeNow === 0) return;
    this.noAnswerNow = false;
    this.offlineNow = false;
    this.notMadeNow = 0;
    this.wake();
    this.changed();
  }

  /** The browser's `offline` event: no call can get out. */
  offline(): void {
    if (this.offlineNow) return;
    this.offlineNow = true;
    this.changed();
  }

  /** The browser's `online` event: whatever waits tries now (the banner goes at the first answer). */
  online(): void {
    const was = this.offlineNow;
    this.offlineNow = false;
    this.wake();
    if (was) this.changed();
  }

  /** A move starts (+1) or stops (-1) waiting to be sent again. */
  moveWaiting(delta: 1 | -1): void {
    this.waitingMoves = Math.max(0, this.waitingMoves + delta);
    this.changed();
  }

  /** A move was given up on: the player is told it was NOT made. */
  moveNotMade(): void {
    this.notMadeNow++;
    this.changed();
  }

  /** Wait `ms`, or less: until the connection is back (an answer came, or the browser is online). */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.sleepers.add(done);
      signal?.addEventListener("abort", done);
    });
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** What the banner says ("" when the server is in reach). */
  text(): string {
    if (!this.lost) return "";
    const parts = [t("conn.lost")];
    if (this.waitingMoves > 0) {
      parts.push(t("conn.waiting", { count: this.waitingMoves }));
    }
    if (this.notMadeNow > 0) {
      parts.push(t("conn.notMade", { count: this.notMadeNow }));
    }
    return parts.join(" ");
  }

  private wake(): void {
    for (const done of [...this.sleepers]) done();
  }

  private changed(): void {
    for (const fn of [...this.listeners]) fn();
  }
}

export const connection = new Connection();

/** How often the page asks whether the server is back, while it is out of reach. */
export const PROBE_EVERY_MS = 2_000;

/**
 * While the server is out of reach, ask it something cheap every PROBE_EVERY_MS (and at once
 * when the browser is online again): any answer means it is back, and the banner goes even
 * when no move or stream happens to be trying just then.
 */
export async function probeWhileLost(conn: Connection, url: string, signal: AbortSignal): Promise<void> {
  while (conn.lost && !signal.aborted) {
    await conn.wait(PROBE_EVERY_MS, signal);
    if (!conn.lost || signal.aborted) return;
    try {
      await fetch(url, { method: "HEAD", cache: "no-store", signal: AbortSignal.any([signal, AbortSignal.timeout(PROBE_EVERY_MS * 2)]) });
      conn.answered();
    } catch {
      if (!signal.aborted) conn.noAnswer();
    }
  }
}

/**
 * The banner: a role=alert paragraph put just before `before` (the page), empty (and so of no
 * size) while the server is in reach. It stays in the document so that screen readers read
 * every change of it out at once; the browser's offline and online events feed `conn`, and
 * while it is lost `probeUrl` is asked whether the server is back.
 */
export function mountBanner(before: HTMLElement, conn: Connection = connection, probeUrl = `${location.origin}/config.json`): () => void {
  const banner = document.createElement("p");
  banner.id = "connection-banner";
  banner.className = "connection-banner";
  banner.setAttribute("role", "alert");
  before.before(banner);
  const stop = new AbortController();
  let probing = false;
  const draw = (): void => {
    const text = conn.text();
    if (banner.textContent !== text) banner.textContent = text;
    document.body.toggleAttribute("data-connection-lost", conn.lost);
    if (conn.lost && !probing) {
      probing = true;
      void probeWhileLost(conn, probeUrl, stop.signal).finally(() => { probing = false; if (conn.lost && !stop.signal.aborted) draw(); });
    }
  };
  const off = (): void => conn.offline();
  const on = (): void => conn.online();
  window.addEventListener("offline", off);
  window.addEventListener("online", on);
  if (typeof navigator !== "undefined" && navigator.onLine === false) conn.offline();
  const unsubscribe = conn.subscribe(draw);
  draw();
  return () => {
    stop.abort();
    unsubscribe();
    window.removeEventListener("offline", off);
    window.removeEventListener("online", on);
    banner.remove();
  };
}
