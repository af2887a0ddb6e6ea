/**
 * Match Cards' page.
 *   #/play/match-cards (or .../new, .../new/<code>)  a form for a new game: solo or a challenge
 *                                                    table, pairs or triples, the board's size,
 *                                                    the difficulty, the pictures, or a game code
 *   #/play/match-cards/<table_id>                    your copy of the game (the seat's token is
 *                                                    in localStorage: Watch needs it)
 *
 * Everything shown comes from MatchCardsTracker, which folds the Watch stream (a snapshot on
 * (re)load, then events; resumed after a drop from the last event applied) and the events of
 * the commands' replies. Every event is said in the live region too.
 */

import { createClient } from "@connectrpc/connect";
import type { App, Page } from "../app";
import { fill, h, setAttr, setText } from "../dom";
import { GameKind, Visibility, type EventEnvelope } from "../gen/match/v1/common_pb";
import { MatchCardsService } from "../gen/match/v1/match_cards_service_pb";
import { CardGrid } from "../play/card-grid";
import { ServerClock } from "../play/clock";
import { batched } from "../play/draw";
import { follow, SNAPSHOT_AFTER } from "../play/follow";
import { pageKeys } from "../play/keys";
import { GameLog } from "../play/log";
import { chooseName, nameField } from "../play/name";
import { keepSeat, noSeat } from "../play/seat";
import { RematchOffer } from "../play/rematch";
import { seedBlock } from "../play/seed";
import { backLinks, select, submitting } from "../play/setup";
import { clockText } from "../play/words";
import { bearer, clockLeft, command, refusalCode } from "../rpc";
import type { KeptSeat } from "../store";
import { cardShows, countersText, describeEvent, describeSnapshot, noticeText, othersLines, resultText, settingsText, standingLines, statusText } from "./describe";
import { COLUMNS, Difficulty, LIMITS, MatchCardsTracker, Mode, SIZES } from "./tracker";
import { t as tx } from "../i18n";

const TICK_MS = 250;
const LOG_LINES = 300;
const SLUG = "match-cards";

export const matchCardsPage: Page = (root, app, args) => {
  const tableId = args[0] ?? "";
  if (!tableId || tableId === "new") return setupForm(root, app, args[1] ?? "");
  const seat = app.store.seat(tableId);
  if (seat === undefined) {
    return noSeat(root, tx("games.matchCards.title"), tx("mc.noSeat", { table: tableId }),
      { href: `#/play/${SLUG}/new`, text: tx("mc.startNew") });
  }
  return mountTable(root, app, seat);
};

// --- a new game ----------------------------------------------------------------------------------

function setupForm(root: HTMLElement, app: App, code: string): () => void {
  const { api, store } = app;
  const name = nameField(store);
  const players = select("players", [[1, tx("mc.solo")], [2, tx("mc.challenge", { n: 2 })], [3, tx("mc.challenge", { n: 3 })], [4, tx("mc.challenge", { n: 4 })]], 1);
  const mode = select("mode", [["pairs", tx("mc.pairsOpt")], ["triples", tx("mc.triplesOpt")]], "pairs");
  const cards = h("select", { id: "cards", name: "cards" });
  const difficulty = h("select", { id: "difficulty", name: "difficulty" });
  const pictures = select("pictures", [["animals", tx("mc.animalsOpt")], ["fruit", tx("mc.fruitOpt")]], "animals");
  const codeInput = h("input", { id: "code", name: "code", type: "text", maxlength: 80, value: code, placeholder: "MM3-PAEA-...", autocomplete: "off", spellcheck: "false", "aria-describedby": "code-help" });
  const bot = h("input", { id: "bot-fill", type: "checkbox", checked: true });
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const submit = h("button", { id: "create-game", type: "submit" }, tx("home.play"));

  const sync = (): void => {
    const m = mode.value === "triples" ? "triples" : "pairs";
    const size = Number(cards.value) || 12;
    const sizes = SIZES[m];
    fill(cards, ...sizes.map((n) => h("option", { value: n, selected: n === (sizes.includes(size) ? size : 12) }, tx("conc.nCards", { n }))));
    const limits = LIMITS[`${m}-${cards.value}`] ?? [0, 0, 0];
    const d = difficulty.value || "easy";
    fill(difficulty, ...(["easy", "medium", "hard"] as const).map((v, i) =>
      h("option", { value: v, selected: v === d }, tx("mc.levelOpt", { level: tx(`mc.${v}Cap`), limit: limits[i] ?? 0 }))));
    const byCode = codeInput.value.trim() !== "";
    for (const el of [mode, cards, difficulty, pictures]) el.disabled = byCode;
    bot.disabled = players.value === "1";
    setText(submit, byCode ? tx("mc.replayCode") : players.value === "1" ? tx("conc.playSolo") : bot.checked ? tx("mc.playBot") : tx("conc.makeTable"));
  };
  for (const el of [mode, cards, players, bot]) el.addEventListener("change", sync);
  codeInput.addEventListener("input", sync);

  const create = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(store, name.value);
    name.value = displayName;
    const seats = Number(players.value);
    const typed = codeInput.value.trim();
    const settings = typed
      ? { code: typed }
      : {
        mode: mode.value === "triples" ? Mode.TRIPLES : Mode.PAIRS,
        cards: Number(cards.value),
        difficulty: difficulty.value === "hard" ? Difficulty.HARD : difficulty.value === "medium" ? Difficulty.MEDIUM : Difficulty.EASY,
        pictures: pictures.value,
      };
    const made = await command((headers) => api.lobby.createTable({
      gameKind: GameKind.MATCH_CARDS, seats, visibility: Visibility.OPEN, displayName,
      settings: { case: "matchCards", value: settings },
    }, { headers }));
    keepSeat(store, SLUG, made, displayName);
    if (seats > 1 && bot.checked) {
      await command((headers) => api.lobby.startTable({ tableId: made.tableId }, { headers }), made.playerToken);
    }
    app.navigate(`#/play/${SLUG}/${made.tableId}`);
  });

  root.replaceChildren(
    h("form", { id: "new-game", class: "panel setup", onsubmit: create },
      h("h1", {}, tx("games.matchCards.title")),
      h("p", {}, tx("mc.about"), " ", h("a", { href: "#/rules/match-cards" }, tx("rules.link"))),
      h("label", { for: "display-name" }, tx("home.nameLabel")), name,
      h("div", { class: "fields" },
        h("label", {}, tx("home.players"), players),
        h("label", {}, tx("mc.groups"), mode),
        h("label", {}, tx("mc.board"), cards),
        h("label", {}, tx("mc.level"), difficulty),
        h("label", {}, tx("conc.pictures"), pictures)),
      h("label", { class: "check" }, bot, ` ${tx("mc.botNow")}`),
      h("label", { for: "code" }, tx("mc.orReplay")), codeInput,
      h("p", { id: "code-help", class: "muted" }, tx("mc.codeHelp")),
      error,
      submit),
    backLinks());
  sync();
  name.focus();
  return () => {};
}

// --- the game ------------------------------------------------------------------------------------

function mountTable(root: HTMLElement, app: App, seat: KeptSeat): () => void {
  const { api, store } = app;
  const client = createClient(MatchCardsService, api.transport);
  const tableId = seat.tableId;
  const tracker = new MatchCardsTracker(seat.playerId, tableId);
  const clock = new ServerClock();
  const abort = new AbortController();
  const redraw = batched(() => draw());
  let inFlight = 0;
  let connection = tx("race.connecting");
  let noticeClosed = ""; // the notice the player closed with Continue

  const grid = new CardGrid(tx("mc.gridLabel"), "keys", (n) => void turn(n));
  const statusEl = h("p", { id: "status", class: "game-status" });
  const countersEl = h("p", { id: "counters", class: "counters", role: "timer", "aria-live": "off" });
  const settingsEl = h("p", { id: "settings", class: "muted" });
  const connEl = h("p", { id: "connection", class: "muted" });
  const errorEl = h("p", { id: "game-error", class: "error", role: "alert" });
  const noticeEl = h("div", { id: "notice", class: "notice", role: "status", hidden: true });
  const waiting = h("section", { id: "waiting-panel", class: "panel", hidden: true });
  const others = h("div", { id: "others" });
  const othersWrap = h("aside", { class: "side", hidden: true }, h("h2", {}, tx("mc.others")), others);
  const gameOver = h("section", { id: "game-over", class: "panel", hidden: true });
  const rematch = new RematchOffer(app, SLUG, tableId, seat);
  const log = new GameLog(app, LOG_LINES, errorEl);
  const startNow = h("button", { id: "start-now", type: "button", onclick: () => void startTable() }, tx("race.startNow"));

  root.replaceChildren(h("section", { class: "match-cards", "data-table-id": tableId },
    h("header", {}, h("h1", {}, tx("games.matchCards.title")), statusEl, countersEl, settingsEl, connEl),
    errorEl,
    noticeEl,
    waiting,
    gameOver,
    h("div", { class: "play" },
      h("div", {}, grid.el,
        h("p", { id: "keys", class: "keys" },
          tx("mc.keys"))),
      othersWrap),
    log.details(),
    backLinks()));

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

  async function run(call: (headers: Record<string, string>) => Promise<{ events: EventEnvelope[] }>): Promise<void> {
    errorEl.textContent = "";
    try {
      // sent again while the connection is down, until the game's cap ends it
      const res = await command(call, seat.token, { msLeft: () => clockLeft(tracker.endsAtMs, clock), signal: abort.signal });
      applyEvents(res.events);
    } catch (err) {
      showError(err);
      redraw();
    }
  }

  async function turn(card: number): Promise<void> {
    const c = tracker.cards[card - 1];
    if (c === undefined || tracker.phase !== "playing" || tracker.finished) { say([statusText(tracker)]); return; }
    if (c.state === "found") { say([tx("mc.isFound", { n: card })]); return; }
    if (c.state === "up") { say([tx("mc.isTurned", { n: card })]); return; }
    if (tracker.compareAtMs) { say([tx("mc.waitCompare")]); return; }
    if (tracker.up.length + inFlight >= tracker.group) return; // the attempt's last card is on its way
    inFlight += 1;
    try {
      await run((headers) => client.turnCard({ tableId, card }, { headers }));
    } finally {
      inFlight -= 1;
    }
  }

  async function turnOffNotice(): Promise<void> {
    await run((headers) => client.turnOffNotice({ tableId }, { headers }));
  }

  async function startTable(): Promise<void> {
    errorEl.textContent = "";
    try {
      const res = await command((headers) => api.lobby.startTable({ tableId }, { headers }), seat.token);
      if (res.table) tracker.noteTable(res.table);
      say([tx("race.botTaking")]);
      redraw();
    } catch (err) {
      showError(err);
    }
  }

  const stopKeys = pageKeys((ev) => {
    if (ev.key === "c" || ev.key === "C") {
      ev.preventDefault();
      say([countersText(tracker, clock.now()), ...othersLines(tracker)]);
    }
  });

  async function watch(): Promise<void> {
    try {
      const res = await api.lobby.getTable({ tableId }, { headers: bearer(seat.token), signal: abort.signal });
      if (res.table) tracker.noteTable(res.table);
    } catch {
      // the stream says what matters
    }
    await follow({
      signal: abort.signal,
      open: (signal) => client.watch(
        { tableId, afterEventNumber: tracker.started ? BigInt(tracker.eventNumber) : SNAPSHOT_AFTER },
        { headers: bearer(seat.token), signal }),
      item: ({ item }) => {
        if (item.case === "snapshot") {
          const first = !tracker.started;
          clock.observe(Number(item.value.serverTimeMs));
          tracker.applySnapshot(item.value);
          if (first) say(describeSnapshot(tracker, clock.now()));
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

  function draw(): void {
    const t = tracker;
    setText(statusEl, statusText(t));
    setText(settingsEl, settingsText(t));
    setText(connEl, connection);
    root.querySelector(".match-cards")?.setAttribute("data-phase", t.phase);

    const isWaiting = t.started && t.phase === "waiting" && !t.expired;
    waiting.hidden = !isWaiting;
    if (isWaiting) {
      const seated = [...t.names.entries()].map(([p, n]) => (p === t.player ? tx("race.nameYou", { name: n }) : t.bots.has(p) ? tx("home.botName", { name: n }) : n));
      fill(waiting,
        h("h2", {}, tx("race.phase.waiting")),
        h("p", {}, tx("conc.seated", { names: seated.join(", ") || tx("race.you"), total: t.seatsTotal || 0 })),
        seat.seat === 1 && !t.isPrivate ? startNow : null);
    }

    if (t.size !== grid.size) grid.setSize(t.size, t.columns || COLUMNS[t.size] || 6);
    grid.draw(cardShows(t));
    grid.el.classList.toggle("inactive", t.finished || t.compareAtMs > 0);
    grid.el.hidden = t.size === 0;

    // Hard's notice: until the player closes it (Continue) or turns it off.
    const n = t.notice;
    const key = n ? `${n.cards.join(",")}|${n.same}` : "";
    noticeEl.hidden = n === null || key === noticeClosed || t.gameOver;
    if (n !== null && noticeEl.dataset.content !== key) {
      noticeEl.dataset.content = key;
      fill(noticeEl,
        h("strong", { id: "notice-text" }, noticeText(n.same)), " ",
        h("button", { type: "button", id: "notice-continue", onclick: () => { noticeClosed = key; redraw(); grid.focus(grid.focused); } }, tx("mc.continue")), " ",
        t.noticeOn ? h("button", { type: "button", id: "notice-off", class: "link", onclick: () => void turnOffNotice() }, tx("mc.noticeOffButton")) : null);
    }

    othersWrap.hidden = t.players.length < 2;
    const lines = othersLines(t);
    const content = lines.join("|");
    if (others.dataset.content !== content) {
      others.dataset.content = content;
      fill(others, h("ul", { id: "others-list" }, ...lines.map((line) => h("li", {}, line))));
    }
    drawGameOver();
    tick();
  }

  function drawGameOver(): void {
    const t = tracker;
    gameOver.hidden = !t.gameOver;
    if (!t.gameOver) return;
    store.markFinished(tableId);
    const gameId = t.gameId || tableId;
    const content = `${t.seed?.length ?? 0}|${t.code}|${t.standings.length}|${t.commitment}`;
    if (gameOver.dataset.content === content) return;
    gameOver.dataset.content = content;
    fill(gameOver,
      h("h2", {}, tx("race.phase.gameOver")),
      h("p", { id: "result" }, resultText(t)),
      t.standings.length > 1 ? h("ol", { class: "standings", id: "standings" }, ...standingLines(t).map((line) => h("li", {}, line))) : null,
      t.code
        ? h("p", {}, `${tx("mc.codeLabel")} `, h("code", { id: "game-code" }, t.code), " ",
          h("a", { id: "replay-code", href: `#/play/${SLUG}/new/${encodeURIComponent(t.code)}` }, tx("mc.playDealAgain")))
        : null,
      t.replay ? h("p", { class: "muted" }, tx("mc.replayNote")) : null,
      ...seedBlock({ seed: t.seed, commitment: t.commitment, gameId, again: tx("conc.again") }),
      rematch.el,
      h("p", {}, h("a", { href: `#/play/${SLUG}/new` }, tx("race.playAgain"))));
    rematch.over();
  }

  function tick(): void {
    const t = tracker;
    const now = clock.now();
    setText(countersEl, t.phase === "waiting" || !t.started ? "" : countersText(t, now));
    setAttr(countersEl, "data-elapsed", t.started ? clockText(t.elapsedMs(now)) : null);
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
