/**
 * What the card games' pages share (Concentration here, Match Cards imports it): the grid of
 * card buttons with arrow-key focus, the Watch loop that resumes after a drop, small words,
 * and the few styles the card grids need (injected once; the base look is style.css's).
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { fill, h, setAttr, setText } from "../dom";
import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { backoffMs, errorText, refusalCode, retryAfterMs, retryWait, sleep } from "../rpc";

/** A Watch after this number gets a fresh snapshot (it is beyond any table's last event). */
export const SNAPSHOT_AFTER = BigInt(Number.MAX_SAFE_INTEGER);

export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** `1:05`: minutes and seconds of a duration. */
export function clockText(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export function hex(bytes: Uint8Array | null): string {
  return bytes === null ? "" : [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A list for people: `1, 2 and 3`. */
export function listText(items: readonly (string | number)[]): string {
  const s = items.map(String);
  return s.length <= 1 ? (s[0] ?? "") : `${s.slice(0, -1).join(", ")} and ${s[s.length - 1]}`;
}

// --- events in order -----------------------------------------------------------------------------

/**
 * Applies a table's numbered events once each and in order: a command's reply often brings
 * events before the Watch stream does, and an event may come before the one ahead of it; it
 * waits until the gap is filled (the stream fills it, or a resumed Watch does).
 */
export class InOrder {
  eventNumber = 0; // every event up to this one has been applied
  private pending = new Map<number, EventEnvelope>();

  /** The events that can be applied now, in order (`env` included when it is due). */
  take(env: EventEnvelope): EventEnvelope[] {
    const n = Number(env.eventNumber);
    if (n <= this.eventNumber || this.pending.has(n)) return [];
    this.pending.set(n, env);
    const out: EventEnvelope[] = [];
    for (let next = this.pending.get(this.eventNumber + 1); next !== undefined; next = this.pending.get(this.eventNumber + 1)) {
      this.pending.delete(this.eventNumber + 1);
      this.eventNumber += 1;
      out.push(next);
    }
    return out;
  }

  /** A snapshot as of `n`: everything up to it is known; later events still wait their turn. */
  reset(n: number): void {
    this.eventNumber = n;
    for (const k of [...this.pending.keys()]) if (k <= n) this.pending.delete(k);
  }

  get waiting(): number {
    return this.pending.size;
  }
}

// --- the grid --------------------------------------------------------------------------------

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
        const b = h("button", { type: "button", class: "card", "data-card": n, "data-state": "down", tabindex: n === 1 ? 0 : -1, "aria-label": `Card ${n}, face down` },
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

// --- the stream ---------------------------------------------------------------------------------

export type WatchItem<V> =
  | { case: "snapshot"; value: V }
  | { case: "event"; value: EventEnvelope }
  | { case: undefined; value?: undefined };

/** An error no retry can mend: the seat's token, the table, the request. */
export function fatalWatch(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return false;
  return [Code.Unauthenticated, Code.PermissionDenied, Code.NotFound, Code.InvalidArgument, Code.FailedPrecondition].includes(err.code);
}

export interface Follow<V> {
  readonly signal: AbortSignal;
  /** Open the stream after `after` (SNAPSHOT_AFTER: a snapshot first). */
  open(after: bigint, signal: AbortSignal): AsyncIterable<{ item: WatchItem<V> }>;
  /** Where to resume: the last event applied, or SNAPSHOT_AFTER when nothing is known yet. */
  after(): bigint;
  snapshot(view: V): void;
  event(env: EventEnvelope): void;
  /** Nothing more can happen at the table (the game is over and the seed out). */
  done(): boolean;
  /** The connection's state in words ("" when connected). */
  connection(text: string): void;
  fatal(err: unknown, slug: string | null): void;
}

/** Follow a table's Watch stream until `done()`, resuming after every drop with backoff. */
export async function follow<V>(f: Follow<V>): Promise<void> {
  let attempt = 0;
  while (!f.signal.aborted) {
    try {
      const stream = f.open(f.after(), f.signal);
      let first = true;
      for await (const res of stream) {
        if (first) { first = false; attempt = 0; f.connection(""); }
        if (res.item.case === "snapshot") f.snapshot(res.item.value);
        else if (res.item.case === "event") f.event(res.item.value);
      }
      if (f.done()) { f.connection(""); return; }
      await sleep(backoffMs(0));
    } catch (err) {
      if (f.signal.aborted) return;
      if (fatalWatch(err)) { f.connection(""); f.fatal(err, refusalCode(err)); return; }
      const wait = retryAfterMs(err) ?? backoffMs(attempt++);
      f.connection(`Connection lost (${errorText(err)}); trying again in ${Math.ceil(wait / 1000)} s`);
      await retryWait(wait, f.signal); // at once when the connection is back
    }
  }
}

// --- small page pieces -----------------------------------------------------------------------------

/** The game-over block's seed and check-the-game link (the seed comes a moment after the end). */
export function seedBlock(seedHex: string, commitment: string, gameId: string): HTMLElement[] {
  return [
    seedHex
      ? h("p", {}, "The seed, published now: ", h("code", { id: "seed" }, seedHex))
      : h("p", {}, h("code", { id: "seed" }, ""), "The seed is being published..."),
    commitment ? h("p", { class: "muted" }, "Its commitment, public from the start: ", h("code", { id: "commitment" }, commitment)) : h("span", {}),
    h("p", {}, "Anybody can deal the cards again from the seed and check that none moved: ",
      h("a", { id: "check-game", href: `#/audit/${encodeURIComponent(gameId)}` }, "check this game")),
  ];
}

/** Set text, tolerating a missing element. */
export function put(el: Element | null, text: string): void {
  if (el) setText(el, text);
}

