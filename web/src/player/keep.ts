/**
 * Where this browser keeps the player's key: IndexedDB (database `match`, store `player`, one
 * record under `key`), through `idb`, a small well-kept wrapper that turns IndexedDB's
 * requests into promises. IndexedDB rather than localStorage: it holds bytes as they are and
 * survives what localStorage survives; either goes when the player clears the site's data,
 * which is why the page asks for an export (the record says when one was last made).
 */

import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { SEED_BYTES } from "./key";

export interface KeptKey {
  /** The Ed25519 secret seed (32 bytes). */
  readonly seed: Uint8Array;
  /** The player id, as made from it (checked again whenever it is loaded). */
  readonly playerId: string;
  readonly createdAtMs: number;
  /** When the key was last exported (saved as a file or shown as text); null: never. */
  readonly exportedAtMs: number | null;
}

interface Schema extends DBSchema {
  player: { key: string; value: KeptKey };
}

const DB = "match";
const STORE = "player";
const KEY = "key";

/** The player's key in this browser's IndexedDB. */
export class KeyKeep {
  private db: Promise<IDBPDatabase<Schema>> | null = null;

  private open(): Promise<IDBPDatabase<Schema>> {
    this.db ??= openDB<Schema>(DB, 1, { upgrade(db) { db.createObjectStore(STORE); } });
    return this.db;
  }

  /** The key kept, or null when there is none (or the record is not one this page wrote). */
  async load(): Promise<KeptKey | null> {
    const got: unknown = await (await this.open()).get(STORE, KEY);
    return isKept(got) ? got : null;
  }

  async save(kept: KeptKey): Promise<void> {
    await (await this.open()).put(STORE, kept, KEY);
  }

  async markExported(atMs: number): Promise<KeptKey | null> {
    const kept = await this.load();
    if (kept === null) return null;
    const marked = { ...kept, exportedAtMs: atMs };
    await this.save(marked);
    return marked;
  }

  async remove(): Promise<void> {
    await (await this.open()).delete(STORE, KEY);
  }

  close(): void {
    void this.db?.then((db) => db.close());
    this.db = null;
  }
}

function isKept(v: unknown): v is KeptKey {
  if (typeof v !== "object" || v === null) return false;
  const k = v as Record<string, unknown>;
  return k.seed instanceof Uint8Array && k.seed.length === SEED_BYTES && typeof k.playerId === "string"
    && typeof k.createdAtMs === "number" && (k.exportedAtMs === null || typeof k.exportedAtMs === "number");
}
