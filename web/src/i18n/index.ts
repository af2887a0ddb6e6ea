/**
 * The page's words, in the player's language: every message a page shows is looked up here by
 * key and formatted with ICU MessageFormat (plurals, numbers, select) by `intl-messageformat`,
 * the FormatJS formatter (a well-kept library: the same syntax translators already know).
 *
 * Catalogs live beside this file, one per language, split by area (`en/<area>.ts`); English is
 * the source. The language is the player's choice (kept in localStorage), else the first of the
 * browser's languages we have, else English. A key missing from the chosen language falls back
 * to English and is recorded in `missingKeys()`, so a test can walk every page and fail on any
 * untranslated message.
 */

import { IntlMessageFormat } from "intl-messageformat";
import { EN } from "./en";

export type Locale = "en" | "de" | "el";
export const LOCALES: readonly Locale[] = ["en", "de", "el"];
export type Values = Record<string, string | number | bigint | boolean | Date>;
type Catalog = Readonly<Record<string, string>>;

const STORE_KEY = "match.locale";
const catalogs: Partial<Record<Locale, Catalog>> = { en: EN };
const compiled = new Map<string, IntlMessageFormat>();
const missing = new Set<string>();
let current: Locale = "en";

/** Make `catalog` the messages of `locale` (the language catalogs register themselves here). */
export function register(locale: Locale, catalog: Catalog): void {
  catalogs[locale] = catalog;
  compiled.clear();
}

/** The first of `wanted` (BCP 47 tags, best first) that we have, else English. */
export function pick(wanted: readonly string[]): Locale {
  for (const tag of wanted) {
    const base = tag.toLowerCase().split("-")[0] as Locale;
    if (LOCALES.includes(base)) return base;
  }
  return "en";
}

/** The player's language: the one they chose, else the browser's. */
export function chooseLocale(storage: Pick<Storage, "getItem"> | null, languages: readonly string[]): Locale {
  const chosen = storage?.getItem(STORE_KEY);
  if (chosen && LOCALES.includes(chosen as Locale)) return chosen as Locale;
  return pick(languages);
}

export function setLocale(locale: Locale, storage?: Pick<Storage, "setItem"> | null): void {
  current = locale;
  compiled.clear();
  storage?.setItem(STORE_KEY, locale);
  if (typeof document !== "undefined") document.documentElement.lang = locale;
}

export function locale(): Locale {
  return current;
}

/** The message `key` in the current language, its `{placeholders}` filled from `values`. */
export function t(key: string, values?: Values): string {
  let source = catalogs[current]?.[key];
  let lang: Locale = current;
  if (source === undefined) {
    if (current !== "en") missing.add(`${current}:${key}`);
    source = EN[key];
    lang = "en";
    if (source === undefined) {
      missing.add(`en:${key}`);
      return key;
    }
  }
  const id = `${lang}\u0000${key}`;
  let format = compiled.get(id);
  if (format === undefined) {
    format = new IntlMessageFormat(source, lang);
    compiled.set(id, format);
  }
  return String(format.format(values));
}

/** Keys asked for that the current language (or English) lacks, as `<locale>:<key>`. */
export function missingKeys(): string[] {
  return [...missing].sort();
}

/** Whether `key` has a message in `lang` (a test's check that a catalog is whole). */
export function has(lang: Locale, key: string): boolean {
  return catalogs[lang]?.[key] !== undefined;
}

/** The languages' own names, for the language switch (each in itself). */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = { en: "English", de: "Deutsch", el: "Ελληνικά" };

/**
 * What a browser test reads (`window.matchI18n`): the keys that fell back, the language, and
 * the English messages that the current language says differently (none of them should show
 * on a page in that language).
 */
export function testHooks(): { missingKeys: () => string[]; locale: () => Locale; englishOnly: () => string[] } {
  return {
    missingKeys,
    locale: () => current,
    englishOnly: () => Object.entries(EN)
      .filter(([key, text]) => catalogs[current]?.[key] !== undefined && catalogs[current]?.[key] !== text)
      .map(([, text]) => text),
  };
}
