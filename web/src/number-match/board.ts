/**
 * The Number Match board and what a move does to it: a port of the pure parts of
 * libs/match_rules/number_match/board.py the page needs to fold events (docs/rules-number-
 * match.md). The referee judges every move; these only redo what it already accepted, and tell
 * the player early that two numbers make no pair.
 *
 * A board is the cells in reading order, nine to a row, 0 an empty cell; cells are numbered
 * from 1 in commands and events, and indexed from 0 here.
 */

import { t } from "../i18n";

export const WIDTH = 9;

export type Board = readonly number[];

/** Two numbers pair when equal or adding up to 10 (an empty cell pairs with nothing). */
export function pairsWith(a: number, b: number): boolean {
  return a >= 1 && a <= 9 && b >= 1 && b <= 9 && (a === b || a + b === 10);
}

function lineSteps(i: number, j: number): number[] {
  const d = j - i;
  const steps = [1];
  const ci = i % WIDTH;
  const cj = j % WIDTH;
  for (const [step, dcol] of [[WIDTH, 0], [WIDTH + 1, 1], [WIDTH - 1, -1]] as const) {
    if (d % step === 0 && cj - ci === (d / step) * dcol) steps.push(step);
  }
  return steps;
}

function numbers(board: Board, i: number, j: number): boolean {
  const n = board.length;
  return i !== j && i >= 0 && i < n && j >= 0 && j < n && board[i] !== 0 && board[j] !== 0;
}

/** The numbers in cells `i` and `j` (0-based) see each other: only empty cells between. */
export function sees(board: Board, i: number, j: number): boolean {
  if (!numbers(board, i, j)) return false;
  const [a, b] = i < j ? [i, j] : [j, i];
  return lineSteps(a, b).some((step) => {
    for (let k = a + step; k < b; k += step) if (board[k]) return false;
    return true;
  });
}

/** The board after the pair in `i` and `j` (0-based): both empty, empty rows removed. */
export function removePair(board: Board, i: number, j: number): { board: number[]; rowsRemoved: number } {
  if (!(numbers(board, i, j) && pairsWith(board[i]!, board[j]!) && sees(board, i, j))) {
    throw new Error(`cells ${i + 1} and ${j + 1} are not a pair on this board`);
  }
  const cells = [...board];
  cells[i] = 0;
  cells[j] = 0;
  let rowsRemoved = 0;
  const rows = [...new Set([Math.floor(i / WIDTH), Math.floor(j / WIDTH)])].sort((x, y) => y - x);
  for (const row of rows) {
    const start = row * WIDTH;
    if (!cells.slice(start, start + WIDTH).some((v) => v)) {
      cells.splice(start, WIDTH);
      rowsRemoved++;
    }
  }
  return { board: cells, rowsRemoved };
}

/** Add numbers: drop the empty cells after the last number, then copy every number after it. */
export function addNumbers(board: Board): number[] {
  let last = -1;
  board.forEach((v, k) => { if (v) last = k; });
  if (last < 0) throw new Error("the board is clear: nothing to add");
  return [...board.slice(0, last + 1), ...board.filter((v) => v)];
}

export function numbersLeft(board: Board): number {
  return board.filter((v) => v).length;
}

export function rowCount(board: Board): number {
  return Math.ceil(board.length / WIDTH);
}

/** 1-based row and column of a 1-based cell. */
export function rowCol(cell: number): { row: number; col: number } {
  return { row: Math.floor((cell - 1) / WIDTH) + 1, col: ((cell - 1) % WIDTH) + 1 };
}

/** `Row 2, column 5: 7`, or `Row 2, column 5: empty`: a cell as a screen reader names it. */
export function cellLabel(board: Board, cell: number): string {
  const { row, col } = rowCol(cell);
  const n = board[cell - 1] ?? 0;
  return n ? t("nm.cellLabel", { row, col, n }) : t("nm.cellEmpty", { row, col });
}

/** `row 2, column 5`. */
export function where(cell: number): string {
  const { row, col } = rowCol(cell);
  return t("nm.where", { row, col });
}

/** Where an arrow key (or Home/End) moves the focus from `cell` on a board of `length` cells. */
export function moveFocus(cell: number, key: string, length: number, ctrl = false): number | null {
  if (length <= 0) return null;
  const last = length;
  let next: number;
  switch (key) {
    case "ArrowLeft": next = cell - 1; break;
    case "ArrowRight": next = cell + 1; break;
    case "ArrowUp": next = cell - WIDTH; break;
    case "ArrowDown": next = cell + WIDTH; break;
    case "Home": next = ctrl ? 1 : cell - ((cell - 1) % WIDTH); break;
    case "End": next = ctrl ? last : Math.min(cell - ((cell - 1) % WIDTH) + WIDTH - 1, last); break;
    default: return null;
  }
  if (next < 1 || next > last) return cell;
  return next;
}
