/**
 * What this browser keeps (localStorage): its client key, the name it plays under, and the
 * seats it holds (one token per table). A token is a secret for one seat: it stays here and
 * goes only to the lobby, in `authorization`.
 */

import { randomId } from "./ids";

export interface KeptSeat {
  readonly tableId: string;
  readonly game: string; // the game's slug in games.ts, e.g. "race"
  readonly playerId: string;
  readonly token: string;
  readonly seat: number;
  readonly displayName: string;
  readonly savedAtMs: number;
  readonly inviteCode?: string;
  readonly finished?: boolean;
}

/** The storage the page uses; a Map-backed one where localStorage is unavailable (tests). */
export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export class MemoryStorage implements KeyValue {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const KEY_CLIENT = "match.clientKey";
const KEY_NAME = "match.displayName";
const KEY_SEATS = "match.seats";
const MAX_SEATS = 50;

function defaultStorage(): KeyValue {
  try {
    if (typeof localStorage !== "undefined") return localStorage;
  } catch {
    // a browser that refuses storage: keep things for this page only
  }
  return new MemoryStorage();
}

export class Store {
  constructor(readonly kv: KeyValue = defaultStorage()) {}

  /** The random secret sent as `x-client-key` with every call, made once per browser. */
  clientKey(): string {
    let key = this.kv.getItem(KEY_CLIENT);
    if (key === null || !/^[A-Za-z0-9._:-]{16,64}$/.test(key)) {
      key = randomId();
      this.kv.setItem(KEY_CLIENT, key);
    }
    return key;
  }

  displayName(): string {
    return this.kv.getItem(KEY_NAME) ?? "";
  }

  setDisplayName(name: string): void {
    this.kv.setItem(KEY_NAME, name);
  }

  /** The seats kept, newest first. */
  seats(): KeptSeat[] {
    try {
      const raw: unknown = JSON.parse(this.kv.getItem(KEY_SEATS) ?? "[]");
      if (!Array.isArray(raw)) return [];
      return raw.filter((s): s is KeptSeat =>
        typeof s === "object" && s !== null && typeof s.tableId === "string" && typeof s.token === "string" && typeof s.game === "string");
    } catch {
      return [];
    }
  }

  seat(tableId: string): KeptSeat | undefined {
    return this.seats().find((s) => s.tableId === tableId);
  }

  saveSeat(seat: KeptSeat): void {
    const rest = this.seats().filter((s) => s.tableId !== seat.tableId);
    this.kv.setItem(KEY_SEATS, JSON.stringify([seat, ...rest].slice(0, MAX_SEATS)));
  }

  markFinished(tableId: string): void {
    const seat = this.seat(tableId);
    if (seat !== undefined && !seat.finished) this.saveSeat({ ...seat, finished: true });
  }

  forgetSeat(tableId: string): void {
    this.kv.setItem(KEY_SEATS, JSON.stringify(this.seats().filter((s) => s.tableId !== tableId)));
  }
}
