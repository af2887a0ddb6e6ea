/**
 * Keyboard navigation over the board: tiles 1..20, row-major, 4 across and 5 down.
 * Pure: which tile the focus moves to for a key, or null when the key is not a move.
 */

import { COLUMNS, ROWS } from "./tracker";

export type Move = "left" | "right" | "up" | "down" | "home" | "end" | "rowStart" | "rowEnd";

const KEYS: Record<string, Move> = {
  ArrowLeft: "left",
  ArrowRight: "right",
  ArrowUp: "up",
  ArrowDown: "down",
  Home: "rowStart",
  End: "rowEnd",
  PageUp: "home",
  PageDown: "end",
};

/** The move a key asks for (`ctrl` with Home/End: the first/last tile), or null. */
export function moveForKey(key: string, ctrl = false): Move | null {
  if (ctrl && key === "Home") return "home";
  if (ctrl && key === "End") return "end";
  return KEYS[key] ?? null;
}

/**
 * The tile the focus goes to from `tile` (1..columns*rows). Left and right run on along the
 * reading order (from the end of a row to the start of the next); up and down stay in the
 * column and stop at the edges.
 */
export function move(tile: number, m: Move, columns = COLUMNS, rows = ROWS): number {
  const last = columns * rows;
  const t = Math.min(Math.max(tile, 1), last);
  const col = (t - 1) % columns;
  switch (m) {
    case "left":
      return Math.max(t - 1, 1);
    case "right":
      return Math.min(t + 1, last);
    case "up":
      return t - columns >= 1 ? t - columns : t;
    case "down":
      return t + columns <= last ? t + columns : t;
    case "rowStart":
      return t - col;
    case "rowEnd":
      return t - col + columns - 1;
    case "home":
      return 1;
    case "end":
      return last;
  }
}

/** Row and column (1-based) of a tile, for "row 2, column 3". */
export function position(tile: number, columns = COLUMNS): { row: number; column: number } {
  return { row: Math.floor((tile - 1) / columns) + 1, column: ((tile - 1) % columns) + 1 };
}
