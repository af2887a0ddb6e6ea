/**
 * The player's key in the browser (web/src/player/): the same key, player id and signed bytes as
 * the terminal client, its key file's text both ways, the key kept in IndexedDB (fake-indexeddb:
 * the IndexedDB API in memory), and signing in (GetChallenge, SignIn) with the session kept.
 * The terminal's values below were written by libs/match_client/identity.py for RFC 8032's
 * first test key.
 */

import "fake-indexeddb/auto";
import { createRouterTransport, createClient, Code, ConnectError } from "@connectrpc/connect";
import * as ed from "@noble/ed25519";
import { describe, expect, it } from "vitest";
import { LobbyService } from "../src/gen/match/v1/lobby_pb";
import { PlayerService } from "../src/gen/match/v1/players_pb";
import { KeyKeep } from "../src/player/keep";
import { ed25519, fromPem, hex, keyOf, KeyTextError, newKey, noble, playerIdOf, signChallenge, signInMessage, toPem } from "../src/player/key";
import { ImportRefused, Player } from "../src/player/session";
import { asPlayer } from "../src/rpc";
import { MemoryStorage } from "../src/store";

const SEED = Uint8Array.from(Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex"));
const PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
// `match key export` of that key, byte for byte
const TERMINAL_PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n-----END PRIVATE KEY-----\n";
const TERMINAL_ID = "kad3408c50e0721582d94115";
// identity.sign_in_message("c1.abc") signed by that key
const TERMINAL_SIGNATURE = "db7fc9354b8829cbc35943c6a929325256b68bbb22c9f03fe4b9fe57d0e5e3e7c5daeb1e4f9f747e76d33aae545f2ec8da929f7dbd1aaa1e7b07a6c86f60b70c";
const EC_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgo9riMLvE6pAZkUDr
ZSf6watVCNgORYTFPVM8ey+iPFmhRANCAARd2MYDxdO3/9yAcj8QYSDm6xJ9iJ2J
KoPCUgKNMOEvNr7gGOAe4oK5rf34VQuiiP6fw6EuxcLOPbAtEpoch8+G
-----END PRIVATE KEY-----`;

describe("the key, as the terminal has it", () => {
  it("derives the terminal's public key, player id and sign-in signature, by WebCrypto and by noble alike", async () => {
    const web = await ed25519();
    expect(web.name).toBe("webcrypto"); // Node's WebCrypto has Ed25519, as Chromium's does
    for (const impl of [web, noble]) {
      const key = await keyOf(SEED, impl);
      expect(hex(key.publicKey)).toBe(PUBLIC);
      expect(key.playerId).toBe(TERMINAL_ID);
      expect(hex(await signChallenge(key, "c1.abc", impl))).toBe(TERMINAL_SIGNATURE);
    }
    expect(new TextDecoder().decode(signInMessage("c1.abc"))).toBe("match-sign-in-v1\nc1.abc");
  });

  it("makes new keys that both implementations agree on", async () => {
    for (const impl of [await ed25519(), noble]) {
      const key = await newKey(impl);
      expect(key.seed.length).toBe(32);
      expect(key.playerId).toMatch(/^k[0-9a-f]{23}$/);
      expect(hex((await keyOf(key.seed, noble)).publicKey)).toBe(hex(key.publicKey));
      const sig = await signChallenge(key, "c1.x", impl);
      expect(await ed.verifyAsync(sig, signInMessage("c1.x"), key.publicKey)).toBe(true);
    }
    expect(playerIdOf(Uint8Array.from(Buffer.from(PUBLIC, "hex")))).toBe(TERMINAL_ID);
  });

  it("writes the terminal's key file and reads it back, with any line ends and spaces around", () => {
    expect(toPem(SEED)).toBe(TERMINAL_PEM);
    expect(hex(fromPem(TERMINAL_PEM))).toBe(hex(SEED));
    expect(hex(fromPem(`\r\n  ${TERMINAL_PEM.replace(/\n/g, "\r\n")}  `))).toBe(hex(SEED));
    const wrapped = TERMINAL_PEM.replace("MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v", "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v\n");
    expect(hex(fromPem(wrapped))).toBe(hex(SEED));
  });

  it("refuses what is not a Match key, saying why", () => {
    const refusal = (text: string): string => {
      try {
        fromPem(text);
      } catch (err) {
        expect(err).toBeInstanceOf(KeyTextError);
        return (err as KeyTextError).key;
      }
      throw new Error("accepted");
    };
    expect(refusal("  ")).toBe("player.keyEmpty");
    expect(refusal("hello")).toBe("player.keyNotPem");
    expect(refusal(EC_PEM)).toBe("player.keyNotEd25519");
    expect(refusal("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----")).toBe("player.keyEncrypted");
    expect(refusal(TERMINAL_PEM.replace("MC4C", "M*4C"))).toBe("player.keyDamaged");
    expect(refusal(TERMINAL_PEM.replace("MC4CAQAw", "MC4CAQEw"))).toBe("player.keyNotEd25519");
    expect(new KeyTextError("player.keyEmpty").message).toMatch(/^There is no key here/);
  });
});

describe("the key kept in IndexedDB", () => {
  it("is saved, read back, marked exported and removed", async () => {
    const keep = new KeyKeep();
    await keep.remove();
    expect(await keep.load()).toBeNull();
    await keep.save({ seed: SEED, playerId: TERMINAL_ID, createdAtMs: 5, exportedAtMs: null });
    const again = new KeyKeep(); // another page of the same browser
    const got = await again.load();
    expect(got && hex(got.seed)).toBe(hex(SEED));
    expect(got?.exportedAtMs).toBeNull();
    expect((await again.markExported(9))?.exportedAtMs).toBe(9);
    expect((await keep.load())?.exportedAtMs).toBe(9);
    await keep.remove();
    expect(await again.load()).toBeNull();
    keep.close();
    again.close();
  });
});

/** A lobby's PlayerService over an in-memory transport: it checks the signature as the lobby does. */
function fakeLobby() {
  const calls: string[] = [];
  let sessions = 0;
  const transport = createRouterTransport(({ service }) => {
    service(PlayerService, {
      getChallenge(req) {
        calls.push("GetChallenge");
        return { challenge: `c1.${hex(req.publicKey).slice(0, 8)}.${sessions}`, expiresAtMs: 0n, playerId: playerIdOf(req.publicKey) };
      },
      async signIn(req) {
        calls.push("SignIn");
        if (!await ed.verifyAsync(req.signature, signInMessage(req.challenge), req.publicKey)) {
          throw new ConnectError("the signature does not verify", Code.Unauthenticated);
        }
        sessions += 1;
        return { playerId: playerIdOf(req.publicKey), sessionToken: `session-${sessions}`, expiresAtMs: BigInt(Date.now() + 86_400_000) };
      },
    });
  });
  return { calls, players: createClient(PlayerService, transport) };
}

describe("the player: key, import, export, sign-in", () => {
  it("signs in once with the challenge signed and keeps the session across pages", async () => {
    await new KeyKeep().remove();
    const lobby = fakeLobby();
    const kv = new MemoryStorage();
    const player = new Player(() => lobby.players, kv);
    expect(await player.token()).toBeNull(); // no key: anonymous
    expect(lobby.calls).toEqual([]);
    const key = await player.create();
    expect(await player.create()).toBe(key); // never replaced unasked
    expect(await player.token()).toBe("session-1");
    expect(await player.token()).toBe("session-1");
    expect(lobby.calls).toEqual(["GetChallenge", "SignIn"]);
    const nextPage = new Player(() => lobby.players, kv);
    expect(await nextPage.token()).toBe("session-1"); // the same key from IndexedDB, the session kept
    nextPage.expired("session-1");
    expect(await nextPage.token()).toBe("session-2");
    expect(nextPage.playerId()).toBe(key.playerId);
  });

  it("exports the terminal's file, and an import replaces an unsaved key only when asked", async () => {
    await new KeyKeep().remove();
    const lobby = fakeLobby();
    const player = new Player(() => lobby.players, new MemoryStorage());
    const mine = await player.create();
    expect(player.exportedAtMs()).toBeNull();
    await expect(player.importPem(TERMINAL_PEM)).rejects.toBeInstanceOf(ImportRefused);
    expect(player.playerId()).toBe(mine.playerId); // nothing changed
    const pem = await player.exportPem();
    expect(player.exportedAtMs()).not.toBeNull();
    expect((await keyOf(fromPem(pem))).playerId).toBe(mine.playerId);
    expect((await player.importPem(TERMINAL_PEM)).playerId).toBe(TERMINAL_ID); // saved: may be replaced
    expect(player.exportedAtMs()).not.toBeNull(); // an imported key has a copy: the file
    expect((await player.importPem(pem)).playerId).toBe(mine.playerId);
    const fresh = new Player(() => lobby.players, new MemoryStorage());
    expect(fresh.playerId()).toBeNull();
    expect((await fresh.current())?.playerId).toBe(mine.playerId);
    await fresh.forget();
    const other = new Player(() => lobby.players, new MemoryStorage());
    expect(await other.current()).toBeNull();
    expect((await other.importPem(TERMINAL_PEM)).playerId).toBe(TERMINAL_ID);
  });
});

describe("the session on CreateTable and JoinTable", () => {
  it("goes with them (and not with other calls), and a refused one is renewed once", async () => {
    const seen: { method: string; auth: string | null }[] = [];
    let good = "session-2";
    const transport = createRouterTransport(({ service }) => {
      service(LobbyService, {
        createTable(_req, ctx) {
          const auth = ctx.requestHeader.get("authorization");
          seen.push({ method: "CreateTable", auth });
          if (auth !== null && auth !== `Bearer ${good}`) throw new ConnectError("the session expired", Code.Unauthenticated);
          return { tableId: "t1", playerId: "p", playerToken: "seat", seat: 1, inviteCode: "" };
        },
        listTables(_req, ctx) {
          seen.push({ method: "ListTables", auth: ctx.requestHeader.get("authorization") });
          return { tables: [], nextPageToken: "" };
        },
      });
    }, { transport: { interceptors: [asPlayer(() => source)] } });
    let n = 1;
    let kept: string | null = "session-1";
    const source = {
      token: async () => (kept ??= `session-${++n}`),
      expired: (token: string) => { if (kept === token) kept = null; },
    };
    const lobby = createClient(LobbyService, transport);
    await lobby.createTable({});
    await lobby.listTables({});
    await lobby.createTable({});
    expect(seen).toEqual([
      { method: "CreateTable", auth: "Bearer session-1" },
      { method: "CreateTable", auth: "Bearer session-2" },
      { method: "ListTables", auth: null },
      { method: "CreateTable", auth: "Bearer session-2" },
    ]);
    good = "nobody's";
    await expect(lobby.createTable({})).rejects.toThrow(/expired/); // renewed once, then said
  });
});

describe("the player's pages' reads", () => {
  it("ask again while the server could not answer, and say a refusal at once", async () => {
    const { read } = await import("../src/player/pages");
    let calls = 0;
    const flaky = async (): Promise<string> => {
      calls += 1;
      if (calls < 3) throw new ConnectError("the players service is not answering", Code.Unavailable);
      return "page";
    };
    expect(await read(flaky)).toBe("page");
    expect(calls).toBe(3);
    calls = 0;
    const unknown = async (): Promise<string> => {
      calls += 1;
      throw new ConnectError("no such player", Code.NotFound);
    };
    await expect(read(unknown)).rejects.toThrow(/no such player/);
    expect(calls).toBe(1);
  }, 10_000);
});
