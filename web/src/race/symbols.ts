/**
 * Names for the 25 symbols (0..24), the same as libs/match_client/symbols.py, so a player hears
 * and reads "fish", not "symbol 5"; each has an emoji shown beside the word. Tiles stay named
 * by their numbers 1..20.
 */

import { t } from "../i18n";

export const NAMES: readonly string[] = [
  "sun", "moon", "star", "heart", "clover",
  "fish", "bird", "cat", "dog", "tree",
  "rose", "apple", "bell", "key", "boat",
  "car", "house", "hat", "shoe", "ball",
  "drum", "cup", "book", "lamp", "crown",
];

export const EMOJI: readonly string[] = [
  "\u{1f31e}", "\u{1f319}", "\u2b50", "\u{1f496}", "\u{1f340}",
  "\u{1f41f}", "\u{1f426}", "\u{1f431}", "\u{1f436}", "\u{1f332}",
  "\u{1f339}", "\u{1f34e}", "\u{1f514}", "\u{1f511}", "\u26f5",
  "\u{1f697}", "\u{1f3e0}", "\u{1f3a9}", "\u{1f45f}", "\u26bd",
  "\u{1f941}", "\u2615", "\u{1f4d6}", "\u{1f4a1}", "\u{1f451}",
];

/** `5` -> `fish`; a number outside 0..24 (a newer server) stays a number. */
export function symbolName(symbol: number): string {
  const name = NAMES[symbol];
  return name === undefined ? t("race.symbolN", { n: symbol }) : t(`race.symbol.${name}`);
}

export function symbolEmoji(symbol: number): string {
  return EMOJI[symbol] ?? "?";
}
