/**
 * Following a table: its Watch stream, resumed after every drop from where the page says
 * (the last event applied, or a fresh snapshot), and its numbered events applied once each
 * and in order.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { backoffMs, retryAfterMs, retryWait, sleep } from "../rpc";
import { t } from "../i18n";

/** A Watch after this number gets a fresh snapshot (it is beyond any table's last event). */
export const SNAPSHOT_AFTER = BigInt(Number.MAX_SAFE_INTEGER);

/** An error no retry can mend: the seat's token, the table, the request. */
export function fatalWatch(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  return [Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument, Code.FailedPrecondition].includes(err.code);
}

export interface Follow<T> {
  readonly signal: AbortSignal;
  /** Open the stream; called for every try, so it reads where to resume from (the last event
   * applied, or SNAPSHOT_AFTER while nothing is known). */
  open(signal: AbortSignal): AsyncIterable<T>;
  /** One item of the stream (a snapshot or an event). */
  item(item: T): void;
  /** Nothing more can happen at the table (the game is over and its seed out, or it expired):
   * the stream's end is final. */
  finished(): boolean;
  /** The connection's state in words for the page ("" when connected). */
  connection(text: string): void;
  /** An error no retry mends (fatalWatch): the loop stops after it. */
  fatal(err: unknown): void;
}

/** The words for a lost stream: `Connection lost; trying again in 2 s`. */
export function lostText(waitMs: number): string {
  return t("kit.streamLost", { seconds: Math.ceil(waitMs / 1000) });
}

/**
 * Follow a table's Watch stream until it is finished: after a drop (or an end before the
 * finish) it opens again, with backoff, at once when the connection is back.
 */
export async function follow<T>(f: Follow<T>): Promise<void> {
  let attempt = 0;
  while (!f.signal.aborted) {
    try {
      let first = true;
      for await (const item of f.open(f.signal)) {
        if (first) { first = false; attempt = 0; f.connection(""); }
        f.item(item);
      }
      if (f.finished()) { f.connection(""); return; }
      await sleep(backoffMs(0));
    } catch (err) {
      if (f.signal.aborted) return;
      if (fatalWatch(err)) { f.connection(""); f.fatal(err); return; }
      const wait = retryAfterMs(err) ?? backoffMs(attempt++);
      f.connection(lostText(wait));
      await retryWait(wait, f.signal); // at once when the connection is back
    }
  }
}

/**
 * Applies a table's numbered events once each and in order: a command's reply often brings
 * events before the Watch stream does, and an event may come before the one ahead of it; it
 * waits until the gap is filled (the stream fills it, or a resumed Watch does).
 */
export class InOrder {
  eventNumber = 0; // every event up to this one has been applied
  private pending = new Map<number, EventEnvelope>();

  /** The events that can be applied now, in order (`env` included when it is due). */
  take(env: EventEnvelope): EventEnvelope[] {
    const n = Number(env.eventNumber);
    if (n <= this.eventNumber || this.pending.has(n)) return [];
    this.pending.set(n, env);
    const out: EventEnvelope[] = [];
    for (let next = this.pending.get(this.eventNumber + 1); next !== undefined; next = this.pending.get(this.eventNumber + 1)) {
      this.pending.delete(this.eventNumber + 1);
      this.eventNumber += 1;
      out.push(next);
    }
    return out;
  }

  /** `fold` each event that is due once `envs` are here, in order; the ones folded now. */
  foldAll(envs: Iterable<EventEnvelope>, fold: (env: EventEnvelope) => void): EventEnvelope[] {
    const out: EventEnvelope[] = [];
    for (const env of envs) {
      for (const due of this.take(env)) {
        fold(due);
        out.push(due);
      }
    }
    return out;
  }

  /** A snapshot as of `n`: everything up to it is known; later events still wait their turn. */
  reset(n: number): void {
    this.eventNumber = n;
    for (const k of [...this.pending.keys()]) if (k <= n) this.pending.delete(k);
  }

  get waiting(): number {
    return this.pending.size;
  }
}
