/**
 * The player's key in the browser: an Ed25519 key pair, as the `match` command has one
 * (libs/match_client/identity.py). The player id is derived from the public key exactly as the
 * lobby derives it ("k" and the first 23 hex digits of SHA-256("match-player-v1\0" + public
 * key)), and signing in signs the UTF-8 bytes of "match-sign-in-v1\n" + the challenge.
 *
 * The key is made and used by the browser's own WebCrypto where it has Ed25519 (Chromium 137,
 * Firefox 129, Safari 17 and later, in a secure context), else by @noble/ed25519: a small,
 * dependency-free implementation of RFC 8032 (cross-tested against the audited noble-curves),
 * with SHA-512 from @noble/hashes (audited), so it also works on a plain-http page, where
 * `crypto.subtle` is missing. Both give the same signature for the same
 * key and message (Ed25519 signing is deterministic); the unit tests hold them to it.
 *
 * What is kept is the 32-byte secret seed (RFC 8032). Its text form is the terminal's own key
 * file: PKCS#8 PEM, unencrypted ("-----BEGIN PRIVATE KEY-----"), byte for byte what `match key
 * export` writes, so one file moves a player between the browser and the terminal.
 */

import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { t, type Values } from "../i18n";

ed.hashes.sha512 = sha512;

export const SEED_BYTES = 32;
const PLAYER_ID_LABEL = new TextEncoder().encode("match-player-v1\0");
const SIGN_IN_PREFIX = "match-sign-in-v1\n";
// PKCS#8 PrivateKeyInfo for Ed25519 (RFC 8410): version 0, algorithm 1.3.101.112, then the
// seed as an OCTET STRING inside the privateKey OCTET STRING: 16 bytes, then the 32.
const PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const PEM_BEGIN = "-----BEGIN PRIVATE KEY-----";
const PEM_END = "-----END PRIVATE KEY-----";

/** A key that cannot be read: a sentence that says why and what to do (`key`: its message's key). */
export class KeyTextError extends Error {
  constructor(readonly key: string, values?: Values) {
    super(t(key, values));
    this.name = "KeyTextError";
  }
}

/** What signs: the browser's WebCrypto or @noble/ed25519 (the same bytes either way). */
export interface Ed25519 {
  readonly name: "webcrypto" | "noble";
  /** A new random secret seed. */
  generate(): Promise<Uint8Array>;
  publicKey(seed: Uint8Array): Promise<Uint8Array>;
  sign(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array>;
}

export const noble: Ed25519 = {
  name: "noble",
  generate: async () => ed.utils.randomSecretKey(),
  publicKey: async (seed) => ed.getPublicKey(seed),
  sign: async (seed, message) => ed.sign(message, seed),
};

const ED25519 = { name: "Ed25519" } as const;

function webcrypto(subtle: SubtleCrypto): Ed25519 {
  return {
    name: "webcrypto",
    async generate() {
      const pair = await subtle.generateKey(ED25519, true, ["sign", "verify"]) as CryptoKeyPair;
      return seedOfPkcs8(new Uint8Array(await subtle.exportKey("pkcs8", pair.privateKey)));
    },
    async publicKey(seed) {
      const key = await subtle.importKey("pkcs8", pkcs8(seed), ED25519, true, ["sign"]);
      const jwk = await subtle.exportKey("jwk", key);
      return base64urlBytes(jwk.x ?? "");
    },
    async sign(seed, message) {
      const key = await subtle.importKey("pkcs8", pkcs8(seed), ED25519, false, ["sign"]);
      return new Uint8Array(await subtle.sign(ED25519, key, Uint8Array.from(message)));
    },
  };
}

let chosen: Promise<Ed25519> | null = null;

/** WebCrypto when this browser signs with Ed25519 there, else @noble/ed25519 (asked once). */
export function ed25519(): Promise<Ed25519> {
  chosen ??= (async () => {
    const subtle = globalThis.crypto?.subtle;
    if (subtle === undefined) return noble;
    try {
      const impl = webcrypto(subtle);
      const seed = await impl.generate();
      await impl.sign(seed, new Uint8Array([1]));
      return impl;
    } catch {
      return noble; // no Ed25519 in this browser's WebCrypto
    }
  })();
  return chosen;
}

/** The player id of a raw 32-byte public key, as the lobby derives it. */
export function playerIdOf(publicKey: Uint8Array): string {
  const digest = sha256(concat(PLAYER_ID_LABEL, publicKey));
  return "k" + hex(digest).slice(0, 23);
}

/** The bytes signed to sign in with `challenge`. */
export function signInMessage(challenge: string): Uint8Array {
  return new TextEncoder().encode(SIGN_IN_PREFIX + challenge);
}

/** The PKCS#8 DER of a seed. */
export function pkcs8(seed: Uint8Array): Uint8Array<ArrayBuffer> {
  if (seed.length !== SEED_BYTES) throw new KeyTextError("player.keySeedSize", { want: SEED_BYTES, got: seed.length });
  return concat(PKCS8_PREFIX, seed);
}

function seedOfPkcs8(der: Uint8Array): Uint8Array {
  if (der.length !== PKCS8_PREFIX.length + SEED_BYTES || !PKCS8_PREFIX.every((b, i) => der[i] === b)) {
    throw new KeyTextError("player.keyNotEd25519");
  }
  return der.slice(PKCS8_PREFIX.length);
}

/** The key as the terminal's key file: PKCS#8 PEM, unencrypted (as `match key export`). */
export function toPem(seed: Uint8Array): string {
  const body = base64(pkcs8(seed));
  const lines = body.match(/.{1,64}/g) ?? [];
  return `${PEM_BEGIN}\n${lines.join("\n")}\n${PEM_END}\n`;
}

/** The seed in a key file's text (a PEM as `match key export` writes it); KeyTextError otherwise. */
export function fromPem(text: string): Uint8Array {
  const trimmed = text.trim();
  if (!trimmed) throw new KeyTextError("player.keyEmpty");
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(trimmed)) {
    throw new KeyTextError("player.keyEncrypted");
  }
  const begin = trimmed.indexOf(PEM_BEGIN);
  const end = trimmed.indexOf(PEM_END);
  if (begin < 0 || end < begin) {
    throw new KeyTextError("player.keyNotPem", { begin: PEM_BEGIN, end: PEM_END });
  }
  const body = trimmed.slice(begin + PEM_BEGIN.length, end).replace(/\s+/g, "");
  let der: Uint8Array;
  try {
    der = base64Bytes(body);
  } catch {
    throw new KeyTextError("player.keyDamaged");
  }
  return seedOfPkcs8(der);
}

/** A player's key: the seed, the public key and the player id. */
export interface PlayerKey {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly playerId: string;
}

export async function keyOf(seed: Uint8Array, impl?: Ed25519): Promise<PlayerKey> {
  const publicKey = await (impl ?? await ed25519()).publicKey(seed);
  return { seed, publicKey, playerId: playerIdOf(publicKey) };
}

export async function newKey(impl?: Ed25519): Promise<PlayerKey> {
  const use = impl ?? await ed25519();
  return keyOf(await use.generate(), use);
}

/** The signature of a sign-in challenge. */
export async function signChallenge(key: PlayerKey, challenge: string, impl?: Ed25519): Promise<Uint8Array> {
  return (impl ?? await ed25519()).sign(key.seed, signInMessage(challenge));
}

// --- bytes ------------------------------------------------------------------------------------

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function base64Bytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error("not base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function base64urlBytes(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return base64Bytes(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
}
