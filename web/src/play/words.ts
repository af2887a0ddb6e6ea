/**
 * Small words every game's page uses: counts, durations, lists, bytes. (A sentence's capital
 * and full stop are ../sentence.ts's.)
 */

import { t } from "../i18n";

/** `1 pair`, `3 pairs`, `2 matches` (`plural` where adding an s is wrong). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

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
