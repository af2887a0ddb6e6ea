/**
 * Small words every game's page uses: durations, lists, bytes (counts are the catalogs' ICU plurals, i18n/). (A sentence's capital
 * and full stop are ../sentence.ts's.)
 */

import { t } from "../i18n";

/** `1:05` for 65 000 ms: minutes and seconds of a duration (never negative). */
export function clockText(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Bytes as lower-case hex (a seed, a digest); "" for none. */
export function hex(bytes: Uint8Array | null): string {
  return bytes === null ? "" : [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A list for people: `1, 2 and 3`. */
export function listText(items: readonly (string | number)[]): string {
  const s = items.map(String);
  return s.length <= 1 ? (s[0] ?? "") : t("kit.list", { most: s.slice(0, -1).join(", "), last: s[s.length - 1]! });
}
