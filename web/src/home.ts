/**
 * Home: pick a game; make a race table (open, the bot fills the empty seats), join an open
 * race table, and the seats this browser holds.
 */

import type { Page } from "./app";
import { byId, fill, h } from "./dom";
import { GameKind, Visibility } from "./gen/match/v1/common_pb";
import type { Table } from "./gen/match/v1/lobby_pb";
import { GAMES, gameBySlug } from "./games";
import { chooseName, nameField, NAME_MAX_CHARS } from "./play/name";
import { keepSeat } from "./play/seat";
import { options, submitting } from "./play/setup";
import { locale, t } from "./i18n";
import { boardPicture } from "./pictures";
import { command, errorText } from "./rpc";

const REFRESH_MS = 5_000;

export const homePage: Page = (root, app) => {
  const { api, store } = app;
  let stopped = false;
  const nameInput = nameField(store, "display-name-help");
  const error = h("p", { id: "home-error", class: "error", role: "alert" });
  const seats = h("select", { id: "seats", name: "seats" }, ...options([2, 3, 4], 2, (v) => t("common.players", { count: v })));
  const readyWindow = h("select", { id: "ready-window", name: "ready-window" },
    ...options([10, 20, 30, 45, 60, 90, 120], 30, (v) => t("common.seconds", { count: v })));
  const hints = h("select", { id: "hints", name: "hints" }, ...options([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, (v) => String(v)));
  const fillNow = h("input", { id: "fill-now", type: "checkbox", checked: true });
  const createButton = h("button", { id: "create-race", type: "submit" }, t("home.createRace"));
  const openTables = h("div", { id: "open-tables", "aria-live": "off" }, h("p", {}, t("home.lookingForTables")));
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
      const tables = res.tables.filter((tb) => !mine.has(tb.tableId));
      if (tables.length === 0) {
        fill(openTables, h("p", {}, t("home.noOpenTables")));
      } else {
        fill(openTables, h("ul", { class: "tables" }, ...tables.map((tb) => {
          const names = tb.taken.map((s) => s.isBot ? t("home.botName", { name: s.displayName }) : s.displayName).join(", ");
          const race = tb.settings.case === "race" ? tb.settings.value : undefined;
          const details = race
            ? t("home.tableDetails", { seconds: Number(race.readyWindowMs) / 1000, hints: race.hintsPerBoard ?? 3 })
            : "";
          return h("li", { class: "table-row", "data-table-id": tb.tableId },
            h("span", {}, h("strong", {}, names || t("home.nobodyYet")), ` · ${t("home.seatsTaken", { taken: tb.taken.length, seats: tb.seats })}`,
              details ? h("span", { class: "muted" }, ` · ${details}`) : null),
            h("button", { class: "join-table", type: "button", "data-table-id": tb.tableId, onclick: join(tb),
              "aria-label": t("home.joinLabel", { names: names || t("home.nobodyYet") }) }, t("home.join")));
        })));
      }
    } catch (err) {
      if (!stopped) fill(openTables, h("p", { class: "error" }, `${t("home.listFailed")} ${errorText(err)}`));
    } finally {
      refreshing = false;
    }
  }

  function drawSeats(): void {
    const kept = store.seats();
    if (kept.length === 0) {
      fill(mySeats, h("p", {}, t("home.noSeats")));
      return;
    }
    fill(mySeats, h("ul", { class: "seats" }, ...kept.map((s) => {
      const game = gameBySlug(s.game);
      const when = new Date(s.savedAtMs).toLocaleString(locale());
      return h("li", { class: "seat-row", "data-table-id": s.tableId },
        h("a", { class: "seat-link", href: `#/play/${s.game}/${s.tableId}` },
          t("home.seatLink", { game: game?.title ?? s.game, table: s.tableId })),
        h("span", { class: "muted" }, ` · ${t("home.seatDetail", { name: s.displayName, seat: s.seat })} · ${s.finished ? t("home.finished") : when}`),
        h("button", { type: "button", class: "forget-seat link", onclick: () => { store.forgetSeat(s.tableId); drawSeats(); },
          "aria-label": t("home.forgetLabel", { table: s.tableId }) }, t("home.forget")));
    })));
  }

  const form = h("form", { id: "new-race", class: "panel", onsubmit: create },
    h("h2", {}, t("home.newRace")),
    h("p", {}, t("home.newRaceAbout")),
    h("div", { class: "fields" },
      h("label", {}, `${t("home.players")} `, seats),
      h("label", {}, `${t("home.readyWindow")} `, readyWindow),
      h("label", {}, `${t("home.hints")} `, hints)),
    h("label", { class: "check" }, fillNow, ` ${t("home.fillNow")}`),
    createButton);

  // One card a game, all five on the first screen: the picture of its board, its name, what it
  // is, and one link to play (the race's leads to its settings just below; the others' to
  // their setup pages).
  const card = (g: (typeof GAMES)[number]): HTMLElement => {
    const titleId = `game-${g.slug}-title`;
    const play = g.slug === "race"
      ? h("a", { href: "#/", class: "play-button", "data-game": g.slug, "aria-label": t("rules.play", { game: g.title }),
        onclick: (ev: Event) => { ev.preventDefault(); form.scrollIntoView({ block: "nearest" }); seats.focus(); } }, t("home.play"))
      : h("a", { href: `#/play/${g.slug}/new`, class: "play-button", "data-game": g.slug, "aria-label": t("rules.play", { game: g.title }) }, t("home.play"));
    return h("li", { class: "game-card" },
      boardPicture(g.slug),
      h("h3", { id: titleId }, g.title),
      h("p", { class: "muted summary" }, g.summary),
      h("p", { class: "card-links" }, play, h("a", { href: `#/rules/${g.slug}`, class: "rules-link", "aria-label": t("rules.title", { game: g.title }) }, t("home.rules"))));
  };

  root.replaceChildren(
    h("section", { class: "panel intro" },
      h("h1", {}, "Match"),
      h("p", {}, h("a", { id: "me-link", href: "#/me" }, t("player.homeLink"))),
      h("div", { class: "name-row" },
        h("label", { for: "display-name" }, t("home.nameLabel")),
        nameInput,
        h("p", { id: "display-name-help", class: "muted" }, t("home.nameHelp", { max: NAME_MAX_CHARS }))),
      error),
    h("section", { class: "games-wrap", "aria-labelledby": "games-heading" },
      h("h2", { id: "games-heading", class: "sr-only" }, t("home.games")),
      h("ul", { id: "games", class: "games" }, ...GAMES.map(card))),
    form,
    h("section", { class: "panel", "aria-labelledby": "open-heading" },
      h("h2", { id: "open-heading" }, t("home.openTables")),
      openTables,
      h("button", { id: "refresh-tables", type: "button", onclick: () => void refresh() }, t("home.refresh")),
      h("p", {}, h("a", { id: "lobby-link", href: "#/lobby" }, t("lobby.homeLink")))),
    h("section", { class: "panel", "aria-labelledby": "seats-heading" },
      h("h2", { id: "seats-heading" }, t("home.yourSeats")),
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
