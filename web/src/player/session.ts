/**
 * The player in this browser: the key kept in IndexedDB (keep.ts) and the session it signs in
 * for, exactly as the `match` command does (match_client.client.MatchClient.sign_in):
 * GetChallenge with the raw public key, then SignIn with the Ed25519 signature of
 * "match-sign-in-v1\n" + the challenge. The session token (24 h) is kept in localStorage with
 * its expiry, so a reload does not sign in again; it is signed in again a minute before it runs
 * out, and once more when the lobby says it is no longer good (UNAUTHENTICATED).
 *
 * rpc.ts sends the session with CreateTable and JoinTable (the seat is then the player's, and
 * the game counts for their ratings, statistics and streak) and with the "my" calls of the
 * PlayerService. Without a key the browser plays anonymously, as before.
 */

import type { Client } from "@connectrpc/connect";
import type { PlayerService } from "../gen/match/v1/players_pb";
import { t } from "../i18n";
import type { KeyValue } from "../store";
import { KeyKeep, type KeptKey } from "./keep";
import { fromPem, keyOf, newKey, signChallenge, toPem, type PlayerKey } from "./key";

const KEY_SESSION = "match.session";
/** Sign in again when the session has less than this left (as the terminal client does). */
export const RENEW_BEFORE_MS = 60_000;

export interface SignedIn {
  readonly playerId: string;
  readonly token: string;
  readonly expiresAtMs: number;
}

/** Why an import was not made: `replace` when another key is here and has not been exported. */
export class ImportRefused extends Error {
  constructor(readonly otherPlayerId: string) {
    super(t("player.importWouldLose", { id: otherPlayerId }));
    this.name = "ImportRefused";
  }
}

export class Player {
  private key: PlayerKey | null = null;
  private kept: KeptKey | null = null;
  private loaded: Promise<PlayerKey | null> | null = null;
  private signingIn: Promise<SignedIn> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly players: () => Client<typeof PlayerService>,
    private readonly kv: KeyValue,
    private readonly keep: KeyKeep = new KeyKeep(),
    private readonly now: () => number = Date.now,
  ) {}

  /** The key kept in this browser (loaded once), or null: this browser plays anonymously. */
  async current(): Promise<PlayerKey | null> {
    this.loaded ??= (async () => {
      let kept: KeptKey | null;
      try {
        kept = await this.keep.load();
      } catch {
        return null; // no IndexedDB here (a private window of some browsers): anonymous
      }
      if (kept === null) return null;
      const key = await keyOf(kept.seed);
      if (key.playerId !== kept.playerId) return null; // not a record this page wrote
      this.kept = kept;
      this.key = key;
      return key;
    })();
    return this.loaded;
  }

  /** When the kept key was last exported (null: never), once `current()` has loaded it. */
  exportedAtMs(): number | null {
    return this.kept?.exportedAtMs ?? null;
  }

  playerId(): string | null {
    return this.key?.playerId ?? null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Make a key (only when there is none: a key is never replaced unasked). */
  async create(): Promise<PlayerKey> {
    const have = await this.current();
    if (have !== null) return have;
    return this.use(await newKey(), null);
  }

  /**
   * Use the key in `text` (a key file's PEM). The same key: nothing changes. Another key while
   * this browser holds one never exported: ImportRefused, unless `replace` (that key's player
   * is then lost to this browser).
   */
  async importPem(text: string, replace = false): Promise<PlayerKey> {
    const key = await keyOf(fromPem(text));
    const have = await this.current();
    if (have !== null && have.playerId === key.playerId) return have;
    if (have !== null && this.exportedAtMs() === null && !replace) {
      throw new ImportRefused(have.playerId);
    }
    return this.use(key, this.now()); // it came from a copy: it is saved somewhere already
  }

  private async use(key: PlayerKey, exportedAtMs: number | null): Promise<PlayerKey> {
    const kept: KeptKey = { seed: key.seed, playerId: key.playerId, createdAtMs: this.now(), exportedAtMs };
    await this.keep.save(kept);
    this.kept = kept;
    this.key = key;
    this.loaded = Promise.resolve(key);
    this.kv.removeItem(KEY_SESSION);
    this.changed();
    return key;
  }

  /** The key as the terminal's key file (PEM), marked as exported. */
  async exportPem(): Promise<string> {
    const key = await this.current();
    if (key === null) throw new Error(t("player.noKeyToExport"));
    this.kept = await this.keep.markExported(this.now()) ?? this.kept;
    this.changed();
    return toPem(key.seed);
  }

  /** The session kept, when it is this key's and has more than RENEW_BEFORE_MS left. */
  private keptSession(playerId: string): SignedIn | null {
    try {
      const s = JSON.parse(this.kv.getItem(KEY_SESSION) ?? "null") as SignedIn | null;
      if (s && s.playerId === playerId && typeof s.token === "string" && s.expiresAtMs - this.now() > RENEW_BEFORE_MS) return s;
    } catch {
      // a damaged entry: sign in again
    }
    return null;
  }

  /** The session token to send, signing in first when there is none good; null without a key. */
  async token(): Promise<string | null> {
    const key = await this.current();
    if (key === null) return null;
    return (this.keptSession(key.playerId) ?? await this.signIn()).token;
  }

  /** The lobby said the session is not good (it ran out, or its secret changed): forget it. */
  expired(token: string): void {
    const s = this.kv.getItem(KEY_SESSION);
    if (s !== null && s.includes(JSON.stringify(token))) this.kv.removeItem(KEY_SESSION);
  }

  /** GetChallenge, then SignIn with the challenge signed: a new session (one at a time). */
  signIn(): Promise<SignedIn> {
    this.signingIn ??= (async () => {
      try {
        const key = await this.current();
        if (key === null) throw new Error(t("player.noKeyToSignIn"));
        const players = this.players();
        const challenge = await players.getChallenge({ publicKey: key.publicKey });
        const signature = await signChallenge(key, challenge.challenge);
        const r = await players.signIn({ publicKey: key.publicKey, challenge: challenge.challenge, signature });
        const signed: SignedIn = { playerId: r.playerId, token: r.sessionToken, expiresAtMs: Number(r.expiresAtMs) };
        this.kv.setItem(KEY_SESSION, JSON.stringify(signed));
        return signed;
      } finally {
        this.signingIn = null;
      }
    })();
    return this.signingIn;
  }

  /** Forget the key in this browser (the player is lost here unless exported). */
  async forget(): Promise<void> {
    await this.keep.remove();
    this.kv.removeItem(KEY_SESSION);
    this.key = null;
    this.kept = null;
    this.loaded = Promise.resolve(null);
    this.changed();
  }
}
