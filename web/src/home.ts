/**
 * Home: pick a game; make a race table (open, the bot fills the empty seats), join an open
 * race table, and the seats this browser holds.
 */

import type { Page } from "./app";
import { byId, fill, h } from "./dom";
import { GameKind, Visibility } from "./gen/match/v1/common_pb";
import type { Table } from "./gen/match/v1/lobby_pb";
import { GAMES, gameBySlug } from "./games";
import { t } from "./i18n";
import { chooseName, nameField, NAME_MAX_CHARS } from "./play/name";
import { keepSeat } from "./play/seat";
import { options, submitting } from "./play/setup";
import { command, errorText } from "./rpc";

const REFRESH_MS = 5_000;

export const homePage: Page = (root, app) => {
  const { api, store } = app;
  let stopped = false;
  const nameInput = nameField(store, "display-name-help");
  const error = h("p", { id: "home-error", class: "error", role: "alert" });
  const seats = h("select", { id: "seats", name: "seats" }, ...options([2, 3, 4], 2, (v) => `${v} players`));
  const readyWindow = h("select", { id: "ready-window", name: "ready-window" },
    ...options([10, 20, 30, 45, 60, 90, 120], 30, (v) => `${v} s`));
  const hints = h("select", { id: "hints", name: "hints" }, ...options([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, (v) => String(v)));
  const fillNow = h("input", { id: "fill-now", type: "checkbox", checked: true });
  const createButton = h("button", { id: "create-race", type: "submit" }, "Play the race against the bot");
  const openTables = h("div", { id: "open-tables", "aria-live": "off" }, h("p", {}, "Looking for open tables..."));
  const mySeats = h("div", { id: "my-seats" });

  const buttons = (): HTMLButtonElement[] => [...root.querySelectorAll<HTMLButtonElement>("button")];

  const create = submitting(app, error, buttons, async () => {
    const displayName = chooseName(store, nameInput.value);
    nameInput.value = displayName;
    const made = await command((headers) => api.lobby.createTable({
      gameKind: GameKind.MATCH_RACE,
      seats: Number(seats.value),
      visibility: Visibility.OPEN,
      displayName,
      settings: { case: "race", value: { readyWindowMs: BigInt(Number(readyWindow.value) * 1000), hintsPerBoard: Number(hints.value) } },
    }, { headers }));
    keepSeat(store, "race", made, displayName);
    if (fillNow.checked) {
      await command((headers) => api.lobby.startTable({ tableId: made.tableId }, { headers }), made.playerToken);
    }
    app.navigate(`#/play/race/${made.tableId}`);
  });

  const join = (table: Table): ((ev: Event) => void) => submitting(app, error, buttons, async () => {
    const displayName = chooseName(store, nameInput.value);
    nameInput.value = displayName;
    const seat = await command((headers) => api.lobby.joinTable({ target: { case: "tableId", value: table.tableId }, displayName }, { headers }));
    const game = GAMES.find((g) => g.kind === table.gameKind)?.slug ?? "race";
    keepSeat(store, game, seat, displayName);
    app.navigate(`#/play/${game}/${seat.tableId}`);
  });

  let refreshing = false;
  async function refresh(): Promise<void> {
    if (refreshing || stopped) return;
    refreshing = true;
    try {
      const res = await api.lobby.listTables({ gameKind: GameKind.MATCH_RACE, pageSize: 50 });
      if (stopped) return;
      const mine = new Set(store.seats().map((s) => s.tableId));
      const tables = res.tables.filter((t) => !mine.has(t.tableId));
      if (tables.length === 0) {
        fill(openTables, h("p", {}, "No open race table is waiting for players right now."));
      } else {
        fill(openTables, h("ul", { class: "tables" }, ...tables.map((t) => {
          const names = t.taken.map((s) => s.displayName + (s.isBot ? " (bot)" : "")).join(", ");
          const race = t.settings.case === "race" ? t.settings.value : undefined;
          const details = race
            ? `Ready window ${Number(race.readyWindowMs) / 1000} s, ${race.hintsPerBoard ?? 3} hints a board`
            : "";
          return h("li", { class: "table-row", "data-table-id": t.tableId },
            h("span", {}, h("strong", {}, names || "nobody yet"), ` · ${t.taken.length} of ${t.seats} seats`,
              details ? h("span", { class: "muted" }, ` · ${details}`) : null),
            h("button", { class: "join-table", type: "button", "data-table-id": t.tableId, onclick: join(t),
              "aria-label": `Join the table of ${names || "nobody yet"}` }, "Join"));
        })));
      }
    } catch (err) {
      if (!stopped) fill(openTables, h("p", { class: "error" }, `Could not list the tables. ${errorText(err)}`));
    } finally {
      refreshing = false;
    }
  }

  function drawSeats(): void {
    const kept = store.seats();
    if (kept.length === 0) {
      fill(mySeats, h("p", {}, "None yet: the tables you make or join in this browser appear here."));
      return;
    }
    fill(mySeats, h("ul", { class: "seats" }, ...kept.map((s) => {
      const game = gameBySlug(s.game);
      const when = new Date(s.savedAtMs).toLocaleString();
      return h("li", { class: "seat-row", "data-table-id": s.tableId },
        h("a", { class: "seat-link", href: `#/play/${s.game}/${s.tableId}` },
          `${game?.title ?? s.game}, table ${s.tableId}`),
        h("span", { class: "muted" }, ` · as ${s.displayName}, seat ${s.seat} · ${s.finished ? "finished" : when}`),
        h("button", { type: "button", class: "forget-seat link", onclick: () => { store.forgetSeat(s.tableId); drawSeats(); },
          "aria-label": `Forget the seat at table ${s.tableId}` }, "Forget"));
    })));
  }

  const form = h("form", { id: "new-race", class: "panel", onsubmit: create },
    h("h2", {}, "A new race"),
    h("p", {}, "Three boards of 20 tiles; everybody turns tiles on a copy of the same board, at the same time. ",
      "The first to find all ten pairs takes the board."),
    h("div", { class: "fields" },
      h("label", {}, "Players ", seats),
      h("label", {}, "Time to press Ready ", readyWindow),
      h("label", {}, "Hints a board ", hints)),
    h("label", { class: "check" }, fillNow, " The bot takes the empty seats now (otherwise others may join first)"),
    createButton);

  root.replaceChildren(
    h("section", { class: "panel" },
      h("h1", {}, "Match"),
      h("label", { for: "display-name" }, "Your name at the table"),
      nameInput,
      h("p", { id: "display-name-help", class: "muted" }, `What the others see: 1 to ${NAME_MAX_CHARS} characters. Empty: a neutral Guest name.`),
      error),
    // Every game first, all of them in view without scrolling (the race's own form follows).
    h("section", { class: "panel", "aria-labelledby": "games-heading" },
      h("h2", { id: "games-heading" }, "The games"),
      h("ul", { id: "games", class: "games" }, ...GAMES.map((g) =>
        h("li", {}, g.slug === "race"
          ? h("a", { href: "#/", "data-game": g.slug, onclick: (ev: Event) => { ev.preventDefault(); form.scrollIntoView({ block: "nearest" }); seats.focus(); } }, g.title)
          : h("a", { href: `#/play/${g.slug}/new`, "data-game": g.slug }, g.title),
        h("span", { class: "muted" }, ` · ${g.summary}`))))),
    form,
    h("section", { class: "panel", "aria-labelledby": "open-heading" },
      h("h2", { id: "open-heading" }, "Open race tables"),
      openTables,
      h("button", { id: "refresh-tables", type: "button", onclick: () => void refresh() }, "Refresh"),
      h("p", {}, h("a", { id: "lobby-link", href: "#/lobby" }, t("lobby.homeLink")))),
    h("section", { class: "panel", "aria-labelledby": "seats-heading" },
      h("h2", { id: "seats-heading" }, "Your seats"),
      mySeats),
  );
  byId(root, "display-name").focus();
  drawSeats();
  void refresh();
  const timer = setInterval(() => void refresh(), REFRESH_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
};
