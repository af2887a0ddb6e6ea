/**
 * Keeping and resuming a seat: the token CreateTable or JoinTable gave, kept in this
 * browser (store.ts) per table, is what a game's page follows the table with, after a reload
 * too. A page for a table this browser holds no seat at says so.
 */

import { h } from "../dom";
import type { KeptSeat, Store } from "../store";
import { t } from "../i18n";

/** What CreateTable and JoinTable answer with (a seat and its token). */
export interface Seated {
  readonly tableId: string;
  readonly playerId: string;
  readonly playerToken: string;
  readonly seat: number;
}

/** Keep the seat just taken at a table of `game` (its slug in games.ts). */
export function keepSeat(store: Pick<Store, "saveSeat">, game: string, got: Seated, displayName: string, inviteCode = ""): KeptSeat {
  const kept: KeptSeat = {
    tableId: got.tableId, game, playerId: got.playerId, token: got.playerToken,
    seat: got.seat, displayName, savedAtMs: Date.now(), ...(inviteCode ? { inviteCode } : {}),
  };
  store.saveSeat(kept);
  return kept;
}

/** The page for a table this browser holds no seat at: why, and where to go instead. */
export function noSeat(root: HTMLElement, title: string, why: string, newGame?: { href: string; text: string }): () => void {
  root.replaceChildren(h("section", { class: "panel" },
    h("h1", {}, title),
    h("p", {}, why),
    h("p", {}, newGame ? h("a", { href: newGame.href }, newGame.text) : null, newGame ? " · " : null, h("a", { href: "#/" }, t("common.back")))));
  return () => {};
}

/** The seats this browser keeps at unfinished tables of `game`, to go back to (null: none). */
export function seatsGoing(store: Pick<Store, "seats">, game: string, heading: string, detail: (s: KeptSeat) => string): HTMLElement | null {
  const going = store.seats().filter((s) => s.game === game && !s.finished);
  if (!going.length) return null;
  return h("section", { class: "panel", "aria-labelledby": "going-heading" },
    h("h2", { id: "going-heading" }, heading),
    h("ul", {}, ...going.map((s) => h("li", {},
      h("a", { href: `#/play/${game}/${s.tableId}` }, t("kit.table", { table: s.tableId })),
      h("span", { class: "muted" }, ` · ${detail(s)}`)))));
}

/** A link to this very page at another hash (for friends: the table's or the invite's). */
export function pageLink(hash: string): string {
  if (typeof location === "undefined") return hash;
  return `${location.origin}${location.pathname}${hash}`;
}
