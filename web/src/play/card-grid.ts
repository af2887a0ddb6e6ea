/**
 * The grid of card buttons the card games share (Concentration, Match Cards): one tab stop
 * (roving tabindex), arrow keys to move, fewer columns on a narrow screen. Its look is
 * style.css's (`.cards`, `.card`).
 */

import { fill, h, setAttr } from "../dom";
import { t } from "../i18n";

export type CardLook = "down" | "up" | "found";

/** One card as drawn: `label` is what a screen reader says; `face`/`name` only when shown. */
export interface CardShow {
  readonly state: CardLook;
  readonly label: string;
  readonly face?: string; // a glyph (emoji, "A♠")
  readonly name?: string; // its words, under the glyph
  readonly playable: boolean;
  readonly gap?: boolean; // taken: its place stays empty-looking
  readonly red?: boolean;
}

const MIN_CELL_PX = 42;
const GAP_PX = 5;

/** Cards per row: the game's own count, fewer when the screen is too narrow for it. */
export function fitColumns(preferred: number, widthPx: number, minCell = MIN_CELL_PX): number {
  if (!(widthPx > 0)) return preferred;
  const fits = Math.floor((widthPx + GAP_PX) / (minCell + GAP_PX));
  return Math.max(1, Math.min(preferred, Math.max(fits, 3)));
}

/** The card the focus moves to for a key, on a grid of `total` cards `columns` across; null: not a move. */
export function moveFocus(card: number, key: string, columns: number, total: number, ctrl = false): number | null {
  const c = Math.max(1, columns);
  const at = Math.min(Math.max(card, 1), total);
  const col = (at - 1) % c;
  switch (key) {
    case "ArrowLeft": return Math.max(at - 1, 1);
    case "ArrowRight": return Math.min(at + 1, total);
    case "ArrowUp": return at - c >= 1 ? at - c : at;
    case "ArrowDown": return at + c <= total ? at + c : at;
    case "Home": return ctrl ? 1 : at - col;
    case "End": return ctrl ? total : Math.min(at - col + c - 1, total);
    case "PageUp": return 1;
    case "PageDown": return total;
    default: return null;
  }
}

/**
 * The cards as buttons (`.card`, `data-card`, `data-state`), one tab stop for the grid (roving
 * tabindex), arrow keys to move, Enter or Space (the button's own) to turn the focused card.
 */
export class CardGrid {
  readonly el: HTMLElement;
  private buttons: HTMLButtonElement[] = [];
  private preferred = 4;
  private columns = 4;
  focused = 1;
  private observer: ResizeObserver | null = null;

  constructor(label: string, describedBy: string, private readonly onTurn: (card: number) => void) {
    this.el = h("div", { id: "board", class: "cards", role: "group", "aria-label": label, "aria-describedby": describedBy });
    this.el.addEventListener("keydown", (ev) => {
      const to = moveFocus(this.focused, ev.key, this.columns, this.buttons.length, ev.ctrlKey);
      if (to === null) return;
      ev.preventDefault();
      this.focus(to);
    });
    if (typeof ResizeObserver !== "undefined") {
      this.observer = new ResizeObserver(() => this.fit());
      this.observer.observe(this.el);
    }
  }

  get size(): number {
    return this.buttons.length;
  }

  /** Lay out `total` cards, `preferred` across (fewer on a narrow screen). */
  setSize(total: number, preferred: number): void {
    this.preferred = Math.max(1, preferred);
    if (total !== this.buttons.length) {
      this.buttons = [];
      for (let n = 1; n <= total; n++) {
        const b = h("button", { type: "button", class: "card", "data-card": n, "data-state": "down", tabindex: n === 1 ? 0 : -1, "aria-label": t("kit.cardDown", { n }) },
          h("span", { class: "num", "aria-hidden": "true" }, String(n)));
        b.addEventListener("click", () => { this.focused = n; this.roving(); this.onTurn(n); });
        b.addEventListener("focus", () => { this.focused = n; this.roving(); });
        this.buttons.push(b);
      }
      this.el.replaceChildren(...this.buttons);
      this.focused = Math.min(Math.max(this.focused, 1), Math.max(total, 1));
      this.roving();
    }
    this.fit();
  }

  fit(): void {
    const cols = fitColumns(this.preferred, this.el.clientWidth);
    if (cols !== this.columns || this.el.style.getPropertyValue("--cols") === "") {
      this.columns = cols;
      this.el.style.setProperty("--cols", String(cols));
    }
    setAttr(this.el, "data-columns", String(this.columns));
  }

  focus(card: number): void {
    const b = this.buttons[card - 1];
    if (b === undefined) return;
    this.focused = card;
    this.roving();
    b.focus();
  }

  draw(shows: readonly CardShow[]): void {
    shows.forEach((s, i) => {
      const b = this.buttons[i];
      if (b === undefined) return;
      const n = i + 1;
      setAttr(b, "data-state", s.state);
      setAttr(b, "aria-label", s.label);
      setAttr(b, "aria-disabled", s.playable ? null : "true");
      setAttr(b, "data-gap", s.gap ? "true" : null);
      setAttr(b, "data-red", s.red ? "true" : null);
      const content = s.state === "down" || s.face === undefined ? `${n}` : `${n}|${s.face}|${s.name ?? ""}`;
      if (b.dataset.content !== content) {
        b.dataset.content = content;
        if (content === `${n}`) {
          b.replaceChildren(h("span", { class: "num", "aria-hidden": "true" }, String(n)));
        } else {
          fill(b,
            h("span", { class: "num", "aria-hidden": "true" }, String(n)),
            h("span", { class: "face", "aria-hidden": "true" }, s.face ?? ""),
            s.name ? h("span", { class: "name", "aria-hidden": "true" }, s.name) : null);
        }
      }
    });
  }

  stop(): void {
    this.observer?.disconnect();
  }

  private roving(): void {
    this.buttons.forEach((b, i) => setAttr(b, "tabindex", i + 1 === this.focused ? "0" : "-1"));
  }
}
