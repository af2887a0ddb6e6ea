/**
 * Every refusal slug the servers define has a message in every language, so a refusal is said
 * in the player's language (rpc.ts errorText) and never falls back to the server's English for
 * a slug the servers give. The slugs are read from the Python sources themselves, so a new one
 * fails here until it is translated: each is a string literal followed by its category,
 * `("slug", Category.X)` in the rules' errors modules, `refused("slug", Category.X, ...)` in
 * the referee, `_refusal("slug", Category.CATEGORY_X, ...)` in the players service,
 * `rematch_refused(grpc.StatusCode.X, "slug", ...)` for the lobby's Rematch; and the lobby's own
 * few others (`LOBBY_SLUGS`), each checked to still be in the lobby's sources.
 */

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { has, setLocale } from "../src/i18n";
import "../src/i18n/languages";
import { errorText } from "../src/rpc";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLUG = /"([a-z][a-z_]*)",\s*(?:Category|common_pb2\.Refusal)\./g;
/** The lobby's refusals of a Rematch (services/lobby/rematch.py, servicers.py). */
const REMATCH_SLUG = /rematch_refused\(\s*grpc\.StatusCode\.[A-Z_]+,\s*"([a-z][a-z_]*)"/g;
/** The lobby's own slugs (ApiError's third argument, services/lobby/). */
const LOBBY_SLUGS = ["listing_behind", "wrong_game", "table_expired", "refused"];

function pythonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "__pycache__" || name.startsWith("test") ? [] : pythonFiles(path);
    return name.endsWith(".py") ? [path] : [];
  });
}

function serverSlugs(): Set<string> {
  const slugs = new Set<string>();
  for (const file of [...pythonFiles(join(ROOT, "services")), ...pythonFiles(join(ROOT, "libs/match_rules"))]) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(SLUG)) slugs.add(m[1]!);
    for (const m of text.matchAll(REMATCH_SLUG)) slugs.add(m[1]!);
  }
  return slugs;
}

describe("refusals in every language", () => {
  afterEach(() => setLocale("en"));
  const slugs = serverSlugs();

  it("reads the servers' slugs (the rules', the referee's, the players', the lobby's Rematch)", () => {
    expect(slugs.size).toBeGreaterThan(80);
    for (const s of ["tile_out_of_range", "not_a_pair", "link_reused", "table_full", "unknown_player"]) expect(slugs).toContain(s);
    for (const s of ["game_not_over", "rematch_solo", "rematch_with_bot", "rematch_expired", "rematch_players_only"]) expect(slugs).toContain(s);
  });

  it("lists only lobby slugs the lobby still gives", () => {
    const lobby = pythonFiles(join(ROOT, "services/lobby")).map((f) => readFileSync(f, "utf8")).join("\n");
    for (const s of LOBBY_SLUGS) expect(lobby, s).toContain(`"${s}"`);
  });

  it("has an English, German and Greek message for every slug", () => {
    const missing = [...slugs, ...LOBBY_SLUGS].flatMap((s) => (["en", "de", "el"] as const)
      .filter((lang) => !has(lang, `refusal.${s}`)).map((lang) => `${lang}:${s}`));
    expect(missing).toEqual([]);
  });

  it("says a refusal by its slug in German and Greek, the server's words in English and for an unknown slug", () => {
    const refusal = (slug: string): ConnectError => {
      const err = new ConnectError("tile must be 1 to 20, got 25", Code.InvalidArgument);
      err.metadata.set("match-refusal-code", slug);
      return err;
    };
    expect(errorText(refusal("tile_out_of_range"))).toBe("Tile must be 1 to 20, got 25.");
    setLocale("de");
    expect(errorText(refusal("tile_out_of_range"))).toBe("Ein Plättchen mit dieser Nummer gibt es nicht.");
    expect(errorText(refusal("no_such_slug_yet"))).toBe("Tile must be 1 to 20, got 25.");
    setLocale("el");
    expect(errorText(refusal("tile_out_of_range"))).toBe("Δεν υπάρχει πλακίδιο με αυτόν τον αριθμό.");
  });
});
