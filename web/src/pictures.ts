/**
 * The home page's pictures of the five boards, drawn with the DOM and the stylesheet (no image
 * files: the page's Content-Security-Policy and its themes stay whole). Each is decorative
 * (`aria-hidden`): the game's title and its Play link say what it is.
 */

import { h } from "./dom";

type Cell = readonly [text: string, state: "down" | "up" | "found" | "empty" | "picked"];

function grid(kind: string, cols: number, cells: readonly Cell[]): HTMLElement {
  return h("div", { class: `pic pic-${kind}`, "aria-hidden": "true", "data-cols": cols },
    ...cells.map(([text, state]) => h("span", { class: "pic-cell", "data-state": state }, text)));
}

const D: Cell = ["", "down"];

/** The race: 4 x 5 tiles, two turned up, a pair found. */
function race(): HTMLElement {
  const cells: Cell[] = Array.from({ length: 20 }, () => D);
  cells[1] = ["\u{1f41f}", "up"];
  cells[6] = ["\u{1f41f}", "up"];
  cells[9] = ["\u2b50", "found"];
  cells[14] = ["\u2b50", "found"];
  return grid("race", 5, cells);
}

/** Concentration: playing cards, a pair of aces found, a king turned. */
function concentration(): HTMLElement {
  const cells: Cell[] = Array.from({ length: 12 }, () => D);
  cells[0] = ["A\u2665", "found"];
  cells[7] = ["A\u2666", "found"];
  cells[4] = ["K\u2660", "up"];
  return grid("concentration", 6, cells);
}

/** Match Cards: pictures, a pair of giraffes found, a horse turned. */
function matchCards(): HTMLElement {
  const cells: Cell[] = Array.from({ length: 12 }, () => D);
  cells[2] = ["\u{1f992}", "found"];
  cells[9] = ["\u{1f992}", "found"];
  cells[5] = ["\u{1f434}", "up"];
  return grid("match-cards", 6, cells);
}

/** Number Match: three rows of nine numbers, a pair (3 and 7) picked, some cleared. */
function numberMatch(): HTMLElement {
  const digits = "123456789111213141516171819".split("");
  const cells: Cell[] = digits.map((d) => [d, "up"]);
  for (const i of [10, 12, 19]) cells[i] = ["", "empty"];
  cells[2] = ["3", "picked"];
  cells[11] = ["7", "picked"];
  return grid("number-match", 9, cells);
}

/** MATCH 5: five coloured categories and a link written between two of them. */
function matchFive(): HTMLElement {
  return h("div", { class: "pic pic-match-5", "aria-hidden": "true" },
    ...["red", "yellow", "green", "blue", "purple"].map((c) => h("span", { class: `pic-cat m5-c-${c}` })),
    h("span", { class: "pic-link" }, "\u2194"));
}

const PICTURES: Record<string, () => HTMLElement> = {
  race, concentration, "match-cards": matchCards, "number-match": numberMatch, "match-5": matchFive,
};

/** The picture of `slug`'s board (an empty frame for a game without one). */
export function boardPicture(slug: string): HTMLElement {
  return PICTURES[slug]?.() ?? h("div", { class: "pic", "aria-hidden": "true" });
}
