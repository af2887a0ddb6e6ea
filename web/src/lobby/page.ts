/**
 * The lobby: the open tables of every game, joinable in one click, and joining by invite code.
 *   #/lobby               every game's open tables (ListTables, every game kind)
 *   #/lobby/<game>        one game's (its slug in games.ts)
 *   #/join/<code>         an invite link: join the private table of that code, whatever its game,
 *                         then its game's page
 *
 * A table listed is open, waiting for players and has a free seat (docs/api.md, ListTables).
 * Joining keeps the seat's token in this browser (play/seat.ts, keepSeat) as every page does,
 * then opens the game's page. Tables where this browser already holds a seat are not offered.
 * The games are given by the registry (routes.ts): this folder imports no game.
 */

import type { App } from "../app";
import { fill, h } from "../dom";
import { GameKind } from "../gen/match/v1/common_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import { t } from "../i18n";
import { chooseName, nameField } from "../play/name";
import { keepSeat } from "../play/seat";
import { FormProblem, submitting } from "../play/setup";
import { bearer, command, errorText } from "../rpc";
import { seatedNames, seatsText, settingsWords } from "./words";

const REFRESH_MS = 5_000;
const PAGE_SIZE = 100;

/** A game as the lobby needs it (games.ts gives them). */
export interface LobbyGame {
  readonly slug: string;
  readonly title: string;
  readonly kind: GameKind;
}

/** Games of one seat only (the rules' max_seats is 1): never a table to join. */
const SOLO = new Set<GameKind>([GameKind.NUMBER_MATCH]);

/** Where a new table of the game is made: the race's form is on the home page. */
function newTableHref(game: LobbyGame): string {
  return game.slug === "race" ? "#/" : `#/play/${game.slug}/new`;
}

/** Join by table id or invite code, keep the seat, open the game's page. */
async function joinAndGo(app: App, games: readonly LobbyGame[], displayName: string,
  target: { case: "tableId" | "inviteCode"; value: string }, knownKind?: GameKind): Promise<void> {
  const seat = await command((headers) => app.api.lobby.joinTable({ target, displayName }, { headers }), undefined, { what: t("lobby.join") });
  let kind = knownKind;
  if (kind === undefined) { // an invite code does not say its game: the table does
    const got = await app.api.lobby.getTable({ tableId: seat.tableId }, { headers: bearer(seat.playerToken) });
    kind = got.table?.gameKind;
  }
  const game = games.find((g) => g.kind === kind);
  if (game === undefined) throw new FormProblem(t("lobby.unknownGame"));
  keepSeat(app.store, game.slug, seat, displayName, target.case === "inviteCode" ? target.value : "");
  app.announce(t("lobby.joined", { seat: seat.seat, table: seat.tableId }));
  app.navigate(`#/play/${game.slug}/${seat.tableId}`);
}

export function mountLobby(root: HTMLElement, app: App, games: readonly LobbyGame[], args: string[]): () => void {
  const { api, store } = app;
  const only = games.find((g) => g.slug === args[0]);
  const shown = only ? [only] : games;
  let stopped = false;
  document.title = t("lobby.docTitle");

  const nameInput = nameField(store, "lobby-name-help");
  const error = h("p", { id: "lobby-error", class: "error", role: "alert" });
  const tablesEl = h("div", { id: "lobby-tables", "aria-live": "off" }, h("p", {}, t("lobby.loading")));
  const codeInput = h("input", { id: "invite-code", name: "invite-code", type: "text", autocomplete: "off", spellcheck: false, maxlength: 20, "aria-describedby": "invite-code-help" });
  const buttons = (): HTMLButtonElement[] => [...root.querySelectorAll<HTMLButtonElement>("button.join-table, #join-code")];

  const join = (table: Table): ((ev: Event) => void) => submitting(app, error, buttons, async () => {
    const displayName = chooseName(store, nameInput.value);
    nameInput.value = displayName;
    await joinAndGo(app, games, displayName, { case: "tableId", value: table.tableId }, table.gameKind);
  });

  const joinCode = submitting(app, error, buttons, async () => {
    const code = codeInput.value.trim();
    if (!code) throw new FormProblem(t("lobby.codeMissing"));
    const displayName = chooseName(store, nameInput.value);
    nameInput.value = displayName;
    await joinAndGo(app, games, displayName, { case: "inviteCode", value: code.toUpperCase() });
  });

  function row(game: LobbyGame, table: Table): HTMLElement {
    const names = seatedNames(table);
    return h("li", { class: "table-row", "data-table-id": table.tableId, "data-game": game.slug },
      h("span", {}, h("strong", {}, names), ` · ${seatsText(table)}`, h("span", { class: "muted" }, ` · ${settingsWords(table)}`)),
      h("button", { class: "join-table", type: "button", "data-table-id": table.tableId, onclick: join(table),
        "aria-label": t("lobby.joinLabel", { names, game: game.title }) }, t("lobby.join")));
  }

  function section(game: LobbyGame, tables: Table[]): HTMLElement {
    const heading = `lobby-${game.slug}-heading`;
    let body: HTMLElement;
    if (SOLO.has(game.kind)) {
      body = h("p", { class: "muted lobby-solo" }, t("lobby.solo", { game: game.title }));
    } else if (tables.length === 0) {
      body = h("p", {}, t("lobby.none", { game: game.title }), " ", h("a", { href: newTableHref(game) }, t("lobby.makeOne", { game: game.title })));
    } else {
      body = h("ul", { class: "tables" }, ...tables.map((tb) => row(game, tb)));
    }
    return h("section", { class: "lobby-game", "data-game": game.slug, "aria-labelledby": heading },
      h("h2", { id: heading }, game.title), body);
  }

  let refreshing = false;
  async function refresh(): Promise<void> {
    if (refreshing || stopped) return;
    refreshing = true;
    try {
      const kind = only ? only.kind : GameKind.UNSPECIFIED;
      const res = await api.lobby.listTables({ gameKind: kind, pageSize: PAGE_SIZE });
      if (stopped) return;
      const mine = new Set(store.seats().map((s) => s.tableId));
      const open = res.tables.filter((tb) => !mine.has(tb.tableId));
      // Keep the focus where it was when the list is drawn again (a person tabbing through it).
      const focused = document.activeElement instanceof HTMLElement && tablesEl.contains(document.activeElement)
        ? document.activeElement.getAttribute("data-table-id") : null;
      fill(tablesEl, ...shown.map((g) => section(g, open.filter((tb) => tb.gameKind === g.kind))));
      if (focused) tablesEl.querySelector<HTMLElement>(`button[data-table-id="${focused}"]`)?.focus();
    } catch (err) {
      if (!stopped) fill(tablesEl, h("p", { class: "error" }, t("lobby.listFailed", { reason: errorText(err) })));
    } finally {
      refreshing = false;
    }
  }

  const filter = h("nav", { class: "lobby-filter", "aria-label": t("lobby.filter") },
    h("ul", {},
      h("li", {}, h("a", { href: "#/lobby", "aria-current": only ? null : "page" }, t("lobby.allGames"))),
      ...games.map((g) => h("li", {}, h("a", { href: `#/lobby/${g.slug}`, "data-game": g.slug, "aria-current": only === g ? "page" : null }, g.title)))));

  root.replaceChildren(
    h("section", { class: "panel lobby" },
      h("h1", {}, t("lobby.title")),
      h("p", {}, t("lobby.intro")),
      h("label", { for: "display-name" }, t("lobby.nameLabel")),
      nameInput,
      h("p", { id: "lobby-name-help", class: "muted" }, t("lobby.nameHelp")),
      error,
      filter),
    h("section", { class: "panel" },
      tablesEl,
      h("button", { id: "refresh-lobby", type: "button", onclick: () => void refresh() }, t("lobby.refresh"))),
    h("form", { id: "join-by-code", class: "panel", onsubmit: joinCode, "aria-labelledby": "code-heading" },
      h("h2", { id: "code-heading" }, t("lobby.codeHeading")),
      h("label", { for: "invite-code" }, t("lobby.codeLabel")), " ", codeInput,
      h("p", { id: "invite-code-help", class: "muted" }, t("lobby.codeHelp")),
      h("button", { id: "join-code", type: "submit" }, t("lobby.codeJoin"))),
    h("p", {}, h("a", { href: "#/" }, t("common.back"))));
  nameInput.focus();
  void refresh();
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/** `#/join/<code>`: an invite link. One click (after choosing a name) seats the player at the
 * code's table, whatever its game, and opens that game's page. */
export function mountInvite(root: HTMLElement, app: App, games: readonly LobbyGame[], args: string[]): () => void {
  const code = (args[0] ?? "").trim().toUpperCase();
  if (!code) return mountLobby(root, app, games, []);
  document.title = t("lobby.inviteDocTitle");
  const nameInput = nameField(app.store, "invite-name-help");
  const error = h("p", { id: "invite-error", class: "error", role: "alert" });
  const submit = h("button", { id: "join-invite", type: "submit" }, t("lobby.inviteJoin"));
  const go = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(app.store, nameInput.value);
    nameInput.value = displayName;
    await joinAndGo(app, games, displayName, { case: "inviteCode", value: code });
  });
  root.replaceChildren(
    h("form", { id: "invite", class: "panel", onsubmit: go },
      h("h1", {}, t("lobby.inviteTitle")),
      h("p", {}, t("lobby.inviteIntro", { code })),
      h("label", { for: "display-name" }, t("lobby.nameLabel")),
      nameInput,
      h("p", { id: "invite-name-help", class: "muted" }, t("lobby.nameHelp")),
      error,
      submit),
    h("p", {}, h("a", { href: "#/lobby" }, t("lobby.homeLink")), " · ", h("a", { href: "#/" }, t("common.back"))));
  nameInput.focus();
  return () => {};
}
