/**
 * Concentration's page.
 *   #/play/concentration (or .../new)   a form for a new table: players 1-6, the deck, the time
 *                                       limit; the CPU takes the empty seats (StartTable)
 *   #/play/concentration/<table_id>     the table: the seat this browser keeps there (its token
 *                                       in localStorage), or a spectator's view without one
 *
 * Everything shown comes from ConcentrationTracker, which folds the Watch stream (a snapshot
 * on (re)load, then events; resumed after a drop from the last event applied) and the events
 * of FlipCard's replies. Every event is said in the live region too.
 */

import { createClient } from "@connectrpc/connect";
import type { App, Page } from "../app";
import { fill, h, setAttr, setText } from "../dom";
import { GameKind, Visibility, type EventEnvelope } from "../gen/match/v1/common_pb";
import { ConcentrationService } from "../gen/match/v1/concentration_service_pb";
import { CardGrid } from "../play/card-grid";
import { ServerClock } from "../play/clock";
import { batched } from "../play/draw";
import { follow, SNAPSHOT_AFTER } from "../play/follow";
import { pageKeys } from "../play/keys";
import { GameLog } from "../play/log";
import { chooseName, nameField } from "../play/name";
import { keepSeat } from "../play/seat";
import { RematchOffer } from "../play/rematch";
import { seedBlock } from "../play/seed";
import { backLinks, select, submitting } from "../play/setup";
import { bearer, clockLeft, command, refusalCode } from "../rpc";
import { capital } from "../sentence";
import type { KeptSeat } from "../store";
import { cardShows, clockLine, describeEvent, describeSnapshot, resultText, scoreText, seatMarks, settingsText, standingLines, statusText } from "./describe";
import { columnsFor, ConcentrationTracker, Matching, Pictures } from "./tracker";
import { t as tx } from "../i18n";

const TICK_MS = 250;
const LOG_LINES = 300;
const SLUG = "concentration";

export const concentrationPage: Page = (root, app, args) => {
  const tableId = args[0] ?? "";
  if (!tableId || tableId === "new") return setupForm(root, app);
  return mountTable(root, app, tableId, app.store.seat(tableId));
};

// --- a new table ---------------------------------------------------------------------------------

function setupForm(root: HTMLElement, app: App): () => void {
  const { api, store } = app;
  const name = nameField(store);
  const players = select("players", [[1, tx("conc.solo1")], [2, "2"], [3, "3"], [4, "4"], [5, "5"], [6, "6"]], 2);
  const pictures = select("pictures", [["emoji", tx("conc.emoji")], ["cards", tx("conc.playingCardsOpt")]], "emoji");
  const cards = select("cards", [[52, tx("conc.nCards", { n: 52 })], [36, tx("conc.nCards", { n: 36 })], [24, tx("conc.nCards", { n: 24 })]], 52);
  const matching = select("matching", [["identical", tx("conc.identicalOpt")], ["rank-colour", tx("conc.sameRankColourOpt")], ["rank", tx("conc.sameRankOpt")]], "identical");
  const jokers = h("input", { id: "jokers", type: "checkbox" });
  // No timer of the host's still leaves the idle limit (IDLE_MS in the rules): 2 minutes a flip
  // at a table of two or more, so that nobody holds it hostage; solo, none.
  const limit = select("turn-limit", [[0, tx("conc.limitNone")], [30, tx("common.seconds", { count: 30 })], [60, tx("common.seconds", { count: 60 })]], 0);
  const cpu = h("input", { id: "cpu-fill", type: "checkbox", checked: true });
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const submit = h("button", { id: "create-game", type: "submit" }, tx("conc.makeTable"));

  const sync = (): void => {
    const playing = pictures.value === "cards";
    matching.disabled = !playing;
    jokers.disabled = !playing;
    if (!playing) { matching.value = "identical"; jokers.checked = false; }
    cpu.disabled = players.value === "1";
    setText(submit, players.value === "1" ? tx("conc.playSolo") : cpu.checked ? tx("conc.playCpu") : tx("conc.makeTable"));
  };
  for (const el of [pictures, players, cpu]) el.addEventListener("change", sync);

  const create = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(store, name.value);
    name.value = displayName;
    const seats = Number(players.value);
    const playing = pictures.value === "cards";
    const made = await command((headers) => api.lobby.createTable({
      gameKind: GameKind.CONCENTRATION,
      seats,
      visibility: Visibility.OPEN,
      displayName,
      settings: {
        case: "concentration",
        value: {
          pictures: playing ? Pictures.PLAYING_CARDS : Pictures.EMOJI,
          cards: Number(cards.value),
          jokers: playing && jokers.checked,
          matching: !playing ? Matching.IDENTICAL
            : matching.value === "rank" ? Matching.RANK
              : matching.value === "rank-colour" ? Matching.RANK_AND_COLOUR : Matching.IDENTICAL,
          turnLimitMs: BigInt(Number(limit.value) * 1000),
        },
      },
    }, { headers }));
    keepSeat(store, SLUG, made, displayName);
    if (seats > 1 && cpu.checked) {
      await command((headers) => api.lobby.startTable({ tableId: made.tableId }, { headers }), made.playerToken);
    }
    app.navigate(`#/play/${SLUG}/${made.tableId}`);
  });

  root.replaceChildren(
    h("form", { id: "new-game", class: "panel setup", onsubmit: create },
      h("h1", {}, tx("games.concentration.title")),
      h("p", {}, tx("conc.about"), " ", h("a", { href: "#/rules/concentration" }, tx("rules.link"))),
      h("label", { for: "display-name" }, tx("home.nameLabel")), name,
      h("div", { class: "fields" },
        h("label", {}, tx("home.players"), players),
        h("label", {}, tx("conc.pictures"), pictures),
        h("label", {}, tx("conc.deck"), cards),
        h("label", {}, tx("conc.pairsOf"), matching),
        h("label", {}, tx("conc.flipTime"), limit)),
      h("label", { class: "check" }, jokers, ` ${tx("conc.jokers")}`),
      h("label", { class: "check" }, cpu, ` ${tx("conc.cpuNow")}`),
      error,
      submit),
    backLinks());
  sync();
  name.focus();
  return () => {};
}

// --- the table -----------------------------------------------------------------------------------

function mountTable(root: HTMLElement, app: App, tableId: string, seat: KeptSeat | undefined): () => void {
  const { api, store } = app;
  const client = createClient(ConcentrationService, api.transport);
  const token = seat?.token;
  const tracker = new ConcentrationTracker(seat?.playerId ?? "", tableId);
  const abort = new AbortController();
  const redraw = batched(() => draw());
  const clock = new ServerClock();
  let inFlight = 0;
  let connection = tx("race.connecting");

  const grid = new CardGrid(tx("conc.gridLabel"), "keys", (n) => void flip(n));
  const statusEl = h("p", { id: "turn", class: "game-status", "aria-live": "off" });
  const clockEl = h("p", { id: "clock", class: "counters", role: "timer", "aria-live": "off" });
  const settingsEl = h("p", { id: "settings", class: "muted" });
  const connEl = h("p", { id: "connection", class: "muted" });
  const errorEl = h("p", { id: "game-error", class: "error", role: "alert" });
  const waiting = h("section", { id: "waiting-panel", class: "panel", hidden: true });
  const seats = h("div", { id: "seats" });
  const gameOver = h("section", { id: "game-over", class: "panel", hidden: true });
  const rematch = new RematchOffer(app, SLUG, tableId, seat);
  const log = new GameLog(app, LOG_LINES, errorEl);
  const startNow = h("button", { id: "start-now", type: "button", onclick: () => void startTable() }, tx("conc.startNow"));

  root.replaceChildren(h("section", { class: "concentration", "data-table-id": tableId },
    h("header", {},
      h("h1", {}, tx("games.concentration.title")),
      statusEl, clockEl, settingsEl, connEl),
    errorEl,
    waiting,
    gameOver,
    h("div", { class: "play" },
      h("div", {}, grid.el,
        h("p", { id: "keys", class: "keys" },
          seat ? tx("conc.keys") : tx("conc.keysWatching"))),
      h("aside", { class: "side" }, h("h2", {}, tx("race.players")), seats)),
    log.details(),
    backLinks()));

  // --- saying things ---------------------------------------------------------------------------
  function say(lines: string[]): void {
    log.sayAll(lines);
  }

  function showError(err: unknown): void {
    log.error(err);
  }

  function applyEvents(envs: EventEnvelope[]): void {
    for (const env of envs) clock.observe(Number(env.serverTimeMs));
    for (const env of tracker.applyEvents(envs)) say(describeEvent(env, tracker));
    redraw();
  }

  // --- commands ----------------------------------------------------------------------------------
  async function flip(card: number): Promise<void> {
    const c = tracker.cards[card - 1];
    if (!seat) { say([tx("conc.watching")]); return; }
    if (c === undefined || tracker.phase !== "playing") { say([statusText(tracker)]); return; }
    if (c.state === "taken") { say([tx("conc.isTaken", { n: card })]); return; }
    if (c.state === "up") { say([tx("conc.isUp", { n: card })]); return; }
    if (!tracker.myTurn) { say([statusText(tracker)]); return; }
    if (tracker.up.length + inFlight >= 2) return; // the second card is on its way
    errorEl.textContent = "";
    inFlight += 1;
    try {
      // sent again while the connection is down, until the turn's timer (if any) ends it
      const res = await command((headers) => client.flipCard({ tableId, card }, { headers }), token, { msLeft: () => clockLeft(tracker.deadlineMs, clock), signal: abort.signal });
      applyEvents(res.events);
    } catch (err) {
      showError(err);
      if (refusalCode(err) !== null) redraw();
    } finally {
      inFlight -= 1;
    }
  }

  async function startTable(): Promise<void> {
    if (!seat) return;
    errorEl.textContent = "";
    try {
      const res = await command((headers) => api.lobby.startTable({ tableId }, { headers }), token);
      if (res.table) tracker.noteTable(res.table);
      say([tx("conc.cpuTaking")]);
      redraw();
    } catch (err) {
      showError(err);
    }
  }

  const stopKeys = pageKeys((ev) => {
    if (ev.key === "s" || ev.key === "S") {
      ev.preventDefault();
      say([statusText(tracker), ...tracker.seats.map((s) => `${capital(tracker.who(s.player))}: ${scoreText(s.pairs, s.tries)}`)]);
    }
  });

  // --- the stream ----------------------------------------------------------------------------------
  async function watch(): Promise<void> {
    try {
      const res = await api.lobby.getTable({ tableId }, { headers: token ? bearer(token) : {}, signal: abort.signal });
      if (res.table) tracker.noteTable(res.table);
    } catch {
      // the stream says what matters; names and settings are a nicety
    }
    await follow({
      signal: abort.signal,
      open: (signal) => client.watch(
        { tableId, afterEventNumber: tracker.started ? BigInt(tracker.eventNumber) : SNAPSHOT_AFTER },
        { headers: token ? bearer(token) : {}, signal }),
      item: ({ item }) => {
        if (item.case === "snapshot") {
          const first = !tracker.started;
          clock.observe(Number(item.value.serverTimeMs));
          tracker.applySnapshot(item.value);
          if (first) say(describeSnapshot(tracker));
          redraw();
        } else if (item.case === "event") {
          applyEvents([item.value]);
        }
      },
      finished: () => (tracker.gameOver && tracker.seed !== null) || tracker.expired,
      connection: (text) => { connection = text; redraw(); },
      fatal: (err) => {
        if (refusalCode(err) === "table_expired") tracker.expired = true;
        showError(err);
        redraw();
      },
    });
  }

  // --- drawing -------------------------------------------------------------------------------------
  function draw(): void {
    const t = tracker;
    setText(statusEl, statusText(t));
    setAttr(statusEl, "data-my-turn", t.myTurn ? "true" : "false");
    setText(settingsEl, settingsText(t));
    setText(connEl, connection);
    root.querySelector(".concentration")?.setAttribute("data-phase", t.phase);

    const isWaiting = t.started && t.phase === "waiting" && !t.expired;
    waiting.hidden = !isWaiting;
    if (isWaiting) {
      const seated = [...t.names.entries()].map(([p, n]) => (p === t.player ? tx("race.nameYou", { name: n }) : t.bots.has(p) ? tx("conc.cpuName", { name: n }) : n));
      fill(waiting,
        h("h2", {}, tx("race.phase.waiting")),
        h("p", {}, tx("conc.seated", { names: seated.join(", ") || tx("race.you"), total: t.seatsTotal || 0 })),
        seat?.seat === 1 ? startNow : null);
    }

    if (t.size !== grid.size) grid.setSize(t.size, columnsFor(t.size));
    grid.draw(cardShows(t));
    grid.el.classList.toggle("inactive", !t.myTurn);
    grid.el.hidden = t.size === 0;

    drawSeats(clock.now());
    drawGameOver();
    tick();
  }

  function drawSeats(now: number): void {
    const t = tracker;
    const rows = t.seats.map((s) => {
      const marks = seatMarks(t, s.player, now);
      return h("tr", { "data-player": s.player, class: s.player === t.player ? "me" : "", "aria-current": s.player === t.turn ? "true" : null },
        h("th", { scope: "row" }, (s.player === t.player ? tx("race.youName", { name: t.name(s.player) }) : t.name(s.player)) + (marks.length ? ` · ${marks.join(", ")}` : "")),
        h("td", { class: "num" }, String(s.pairs)),
        h("td", { class: "num" }, String(s.tries)));
    });
    const key = rows.map((r) => r.textContent).join("|");
    if (seats.dataset.content === key) return;
    seats.dataset.content = key;
    if (!rows.length) { fill(seats, h("p", { class: "muted" }, tx("conc.whenStarts"))); return; }
    fill(seats, h("table", { class: "grid-table", id: "scores" },
      h("caption", { class: "sr-only" }, tx("conc.scoresCaption")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, tx("race.col.player")), h("th", { scope: "col" }, tx("race.col.pairs")), h("th", { scope: "col" }, tx("conc.col.tries")))),
      h("tbody", {}, ...rows)));
  }

  function drawGameOver(): void {
    const t = tracker;
    gameOver.hidden = !t.gameOver;
    if (!t.gameOver) return;
    if (seat) store.markFinished(tableId);
    const gameId = t.gameId || tableId;
    const content = `${t.seed?.length ?? 0}|${t.standings.length}|${gameId}|${t.commitment}`;
    if (gameOver.dataset.content === content) return;
    gameOver.dataset.content = content;
    fill(gameOver,
      h("h2", {}, tx("race.phase.gameOver")),
      h("p", { id: "result" }, resultText(t)),
      h("ol", { class: "standings", id: "standings" }, ...standingLines(t).map((line) => h("li", {}, line))),
      ...seedBlock({ seed: t.seed, commitment: t.commitment, gameId, again: tx("conc.again") }),
      rematch.el,
      h("p", {}, h("a", { href: `#/play/${SLUG}/new` }, tx("race.playAgain"))));
    rematch.over();
  }

  function tick(): void {
    const now = clock.now();
    setText(clockEl, clockLine(tracker, now));
    if (tracker.seats.some((s) => s.takeoverAtMs)) drawSeats(now);
  }

  const timer = setInterval(tick, TICK_MS);
  draw();
  void watch();
  return () => {
    abort.abort();
    clearInterval(timer);
    grid.stop();
    stopKeys();
    rematch.stop();
  };
}
