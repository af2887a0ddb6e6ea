/**
 * The players' figures as the pages show them, written as `match profile` and `match
 * leaderboard` print them (libs/match_client/players.py): a rating with one decimal, a time in
 * ms as m:ss.s, any other figure as a whole number or with one decimal. The decimal separator
 * is the page's language's (`lang`, a BCP 47 tag: "1137.5" in English, "1137,5" in German and
 * Greek), through the browser's own `Intl.NumberFormat`; digits are not grouped, so a figure
 * reads the same in every language but for its separator. Pure: no DOM.
 */

const formats = new Map<string, Intl.NumberFormat>();

/** `lang`'s format with exactly `decimals` decimals, digits not grouped (made once each). */
function format(lang: string, decimals: number): Intl.NumberFormat {
  const key = `${lang}/${decimals}`;
  let found = formats.get(key);
  if (found === undefined) {
    found = new Intl.NumberFormat(lang, { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: false });
    formats.set(key, found);
  }
  return found;
}

/** `value` with exactly `decimals` decimals, in `lang`'s way, digits not grouped. */
export function decimal(value: number, decimals: number, lang = "en"): string {
  return format(lang, decimals).format(value);
}

/** The decimal separator of `lang`: "." in English, "," in German and Greek. */
export function separator(lang = "en"): string {
  return format(lang, 1).formatToParts(0.5).find((part) => part.type === "decimal")?.value ?? ".";
}

/** A time in ms as m:ss.s (h:mm:ss.s from an hour): 83_400 -> "1:23.4" ("1:23,4" in German). */
export function duration(ms: number, lang = "en"): string {
  let tenths = Math.floor((ms + 50) / 100);
  const minutesAll = Math.floor(tenths / 600);
  tenths -= minutesAll * 600;
  const hours = Math.floor(minutesAll / 60);
  const minutes = minutesAll % 60;
  const seconds = String(Math.floor(tenths / 10)).padStart(2, "0") + separator(lang) + String(tenths % 10);
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** A count as a whole number, anything else with one decimal. */
export function number(value: number, lang = "en"): string {
  return decimal(value, Number.isInteger(value) ? 0 : 1, lang);
}

/** A rating, with one decimal. */
export function rating(value: number, lang = "en"): string {
  return decimal(value, 1, lang);
}

/** A leaderboard's figure by its unit ("rating", "ms", "points", ...). */
export function valueText(value: number, unit: string, lang = "en"): string {
  if (unit === "rating") return rating(value, lang);
  if (unit === "ms") return duration(value, lang);
  return number(value, lang);
}

/**
 * A statistic's name (the rules' `Figure.name`: a base, maybe `_ms` for a time, maybe `/` and the
 * board it counts on) as its catalog key and values: "best_time_ms/level-hard" -> key
 * "best_time", qualifier "level-hard", timed; "pairs_board_2" -> key "pairs_board", n 2. The
 * page says the base in the player's language (`player.fig.<key>`); the qualifier is the board's
 * own name, as the leaderboard's address says it.
 */
export function figureParts(name: string): { key: string; n: number | null; qualifier: string; timed: boolean } {
  const slash = name.indexOf("/");
  let base = slash < 0 ? name : name.slice(0, slash);
  const qualifier = slash < 0 ? "" : name.slice(slash + 1);
  const timed = base.endsWith("_ms");
  if (timed) base = base.slice(0, -3);
  const numbered = /^(.*)_(\d+)$/.exec(base);
  return numbered
    ? { key: numbered[1]!, n: Number(numbered[2]), qualifier, timed }
    : { key: base, n: null, qualifier, timed };
}

/** A statistic's name as words, in English and without a catalog: "best time (level-hard)". */
export function figureName(name: string): { label: string; timed: boolean } {
  const { key, n, qualifier, timed } = figureParts(name);
  const words = key.replace(/_/g, " ") + (n === null ? "" : ` ${n}`);
  return { label: words + (qualifier ? ` (${qualifier})` : ""), timed };
}

/** The board's name in a page's address: "main" for the game's main board (""), as the CLI says it. */
export function boardOfPath(part: string | undefined): string {
  return part === undefined || part === "" || part === "main" ? "" : part;
}

export function pathOfBoard(board: string): string {
  return board === "" ? "main" : board;
}
