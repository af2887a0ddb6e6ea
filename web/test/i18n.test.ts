import { afterEach, describe, expect, it } from "vitest";
import { chooseLocale, missingKeys, pick, register, setLocale, t } from "../src/i18n";

describe("i18n", () => {
  afterEach(() => setLocale("en"));

  it("formats ICU plurals in English", () => {
    expect(t("common.players", { count: 1 })).toBe("1 player");
    expect(t("common.players", { count: 3 })).toBe("3 players");
  });

  it("picks the first browser language it has, else English", () => {
    expect(pick(["fr-FR", "de-AT", "en"])).toBe("de");
    expect(pick(["el"])).toBe("el");
    expect(pick(["fr"])).toBe("en");
  });

  it("prefers the player's stored choice over the browser's", () => {
    expect(chooseLocale({ getItem: () => "el" }, ["de"])).toBe("el");
    expect(chooseLocale({ getItem: () => "xx" }, ["de"])).toBe("de");
    expect(chooseLocale(null, [])).toBe("en");
  });

  it("falls back to English and records a key the language lacks", () => {
    register("de", { "common.back": "Zurück zu den Spielen" });
    setLocale("de");
    expect(t("common.back")).toBe("Zurück zu den Spielen");
    expect(t("common.notFound")).toBe("Not found");
    expect(missingKeys()).toContain("de:common.notFound");
    expect(t("no.such.key")).toBe("no.such.key");
    expect(missingKeys()).toContain("en:no.such.key");
  });
});

describe("the players' figures", () => {
  it("split a figure's name into its base, its number and its board", async () => {
    const { figureParts, figureName } = await import("../src/player/figures");
    expect(figureParts("best_time_ms/level-hard")).toEqual({ key: "best_time", n: null, qualifier: "level-hard", timed: true });
    expect(figureParts("pairs_board_2")).toEqual({ key: "pairs_board", n: 2, qualifier: "", timed: false });
    expect(figureName("best_tries/24").label).toBe("best tries (24)");
  });

  it("write numbers with the page's language's decimal separator, digits not grouped", async () => {
    const { duration, number, valueText } = await import("../src/player/figures");
    expect(valueText(1137.5, "rating")).toBe("1137.5");
    expect(valueText(1137.5, "rating", "de")).toBe("1137,5");
    expect(valueText(1137.5, "rating", "el")).toBe("1137,5");
    expect(valueText(1500, "rating", "de")).toBe("1500,0");
    expect(valueText(83_400, "ms", "de")).toBe("1:23,4");
    expect(duration(3_723_400)).toBe("1:02:03.4");
    expect(number(12345, "de")).toBe("12345");
    expect(number(2.25, "el")).toBe("2,3");
    expect(valueText(42, "points", "en")).toBe("42");
  });

  it("has a word for every figure the rules keep, in each language", async () => {
    const { EN } = await import("../src/i18n/en");
    const { readFileSync, readdirSync } = await import("node:fs");
    const { figureParts } = await import("../src/player/figures");
    const root = new URL("../../libs/match_rules/", import.meta.url);
    const names = new Set<string>();
    for (const game of readdirSync(root)) {
      let text = "";
      try { text = readFileSync(new URL(`${game}/game.py`, root), "utf8"); } catch { continue; }
      for (const m of text.matchAll(/Figure\([^,]+,\s*f?"([^"]+)"/g)) names.add(m[1]!.replace(/\{[^}]*\}/g, "7"));
    }
    expect(names.size).toBeGreaterThanOrEqual(10);
    await import("../src/i18n/languages");
    for (const name of names) {
      const key = `player.fig.${figureParts(name).key}`;
      expect(EN[key], `${name}: ${key} in en/player.ts`).toBeDefined();
    }
  });
});
