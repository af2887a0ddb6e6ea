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
