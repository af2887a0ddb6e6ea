/**
 * Number Match's page. `#/play/number-match` (or `/new`): a new game's setup (a level, or
 * today's daily puzzle). `#/play/number-match/<table_id>`: the game at the seat this browser
 * keeps there, driven by its Watch stream (folded by NumberMatchTracker), played by pointer or
 * keyboard (the seed's keys: arrows move, Space or Enter selects, A adds numbers, H hint,
 * U undo), every event announced. After a reload it starts again from a snapshot; after a
 * drop it resumes from the last event folded.
 */

import { createClient, type Client } from "@connectrpc/connect";
import type { App, Page } from "../app";
import { fill, h, setAttr, setText } from "../dom";
import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { GameKind, Visibility } from "../gen/match/v1/common_pb";
import type { NumberMatchView } from "../gen/match/v1/number_match_pb";
import { NumberMatchService } from "../gen/match/v1/number_match_service_pb";
import { ServerClock } from "../play/clock";
import { batched } from "../play/draw";
import { follow, SNAPSHOT_AFTER } from "../play/follow";
import { pageKeys } from "../play/keys";
import { GameLog } from "../play/log";
import { chooseName, nameField } from "../play/name";
import { keepSeat, noSeat, seatsGoing } from "../play/seat";
import { seedBlock } from "../play/seed";
import { backLinks, submitting } from "../play/setup";
import { clockText } from "../play/words";
import { bearer, command, refusalCode } from "../rpc";
import type { KeptSeat } from "../store";
import { cellLabel, moveFocus, numbersLeft, pairsWith, rowCol, rowCount, where } from "./board";
import { additionsText, eventText, hintText, levelName, settingsText, snapshotText, witnessText } from "./describe";
import { HintKind, LEVELS, NumberMatchTracker, outcomeText } from "./tracker";
import { locale, t as tx } from "../i18n";

const SLUG = "number-match";
const TITLE = "Number Match"; // the game's name in every language (the German seed keeps it)
const LOG_LINES = 200;
const TICK_MS = 500;

type Service = Client<typeof NumberMatchService>;

export const numberMatchPage: Page = (root, app, args) => {
  const tableId = args[0] ?? "";
  if (!tableId || tableId === "new") return mountSetup(root, app);
  const seat = app.store.seat(tableId);
  if (seat === undefined) {
    return noSeat(root, TITLE, tx("nm.noSeat", { table: tableId }),
      { href: `#/play/${SLUG}`, text: tx("mc.startNew") });
  }
  return mountGame(root, app, seat);
};

// --- the setup ---------------------------------------------------------------------------------

/** Today's date where the player is, `YYYY-MM-DD`, and its offset from UTC in minutes. */
export function localToday(now: Date = new Date()): { date: string; offsetMinutes: number } {
  const y = now.getFullYear();
  const m = String(now.getMonth() + 1).padStart(2, "0");
  const d = String(now.getDate()).padStart(2, "0");
  return { date: `${y}-${m}-${d}`, offsetMinutes: -now.getTimezoneOffset() };
}

interface NewGame {
  level: string; // a key of LEVELS, or "daily"
  replaySeed?: Uint8Array;
  dailyDate?: string;
}

async function createGame(app: App, displayName: string, game: NewGame): Promise<string> {
  const today = localToday();
  const daily = game.level === "daily";
  const settings = {
    level: daily ? LEVELS.hard!.value : LEVELS[game.level]?.value ?? LEVELS.easy!.value,
    dailyDate: daily ? (game.dailyDate ?? today.date) : "",
    utcOffsetMinutes: daily ? today.offsetMinutes : 0,
    replaySeed: game.replaySeed ?? new Uint8Array(0),
  };
  const made = await command((headers) => app.api.lobby.createTable({
    gameKind: GameKind.NUMBER_MATCH,
    seats: 1,
    visibility: Visibility.PRIVATE,
    displayName,
    settings: { case: "numberMatch", value: settings },
  }, { headers }));
  keepSeat(app.store, SLUG, made, displayName);
  return made.tableId;
}

function mountSetup(root: HTMLElement, app: App): () => void {
  const { store } = app;
  const today = localToday();
  const name = nameField(store);
  const level = h("select", { id: "level", name: "level", "aria-describedby": "level-help" },
    ...Object.entries(LEVELS).map(([key, l]) => h("option", { value: key, selected: key === "easy" },
      tx("nm.levelOpt", { level: levelName(key), numbers: l.numbers, limit: l.additions === null ? tx("nm.additionsWithoutLimit") : tx("nm.additions", { n: l.additions }) }))),
    h("option", { value: "daily" }, tx("nm.dailyOpt", { date: today.date })));
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const submit = h("button", { id: "create-game", type: "submit", class: "primary" }, tx("nm.startGame"));

  const start = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(store, name.value);
    const tableId = await createGame(app, displayName, { level: level.value });
    app.navigate(`#/play/${SLUG}/${tableId}`);
  });

  fill(root,
    h("form", { id: "new-game", class: "panel nm-setup", onsubmit: start },
      h("h1", {}, TITLE),
      h("p", {}, tx("nm.about"), " ", h("a", { href: "#/rules/number-match" }, tx("rules.link"))),
      h("label", { for: "display-name" }, tx("nm.yourName")),
      name,
      h("p", {}, h("label", { for: "level" }, `${tx("nm.theBoard")} `), level),
      h("p", { id: "level-help", class: "muted" },
        tx("nm.dailyHelp")),
      error,
      submit),
    seatsGoing(store, SLUG, tx("nm.inProgress"), (s) => new Date(s.savedAtMs).toLocaleString(locale())),
    backLinks());
  name.focus();
  return () => {};
}

// --- the game ----------------------------------------------------------------------------------

function mountGame(root: HTMLElement, app: App, seat: KeptSeat): () => void {
  const { store } = app;
  const service: Service = createClient(NumberMatchService, app.api.transport);
  const t = new NumberMatchTracker(seat.playerId, seat.tableId);
  const clock = new ServerClock();
  const abort = new AbortController();
  const redraw = batched(() => draw());
  let selection: number | null = null;
  let focused = 1;
  let endArmed = false;
  let endTimer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  let connection = tx("race.connecting");
  let finishedSaid = false;

  const cells: HTMLButtonElement[] = [];
  const board = h("div", {
    id: "board", class: "nm-board", role: "group", "aria-label": tx("nm.boardLabel"), "aria-describedby": "nm-keys",
  });
  const scoreEl = h("span", { id: "score" });
  const numbersEl = h("span", { id: "numbers-left" });
  const rowsEl = h("span", { id: "rows-left" });
  const additionsEl = h("span", { id: "additions-left" });
  const hintsEl = h("span", { id: "hints-left" });
  const timeEl = h("span", { id: "time", role: "timer", "aria-live": "off" });
  const settingsEl = h("p", { id: "nm-settings", class: "muted" });
  const connEl = h("p", { id: "connection", class: "muted" });
  const errorEl = h("p", { id: "nm-error", class: "error", role: "alert" });
  const hintEl = h("p", { id: "hint-text", class: "nm-hint-text" });
  const addBadge = h("span", { class: "badge", "aria-hidden": "true" });
  const hintBadge = h("span", { class: "badge", "aria-hidden": "true" });
  const addButton = h("button", { id: "add-numbers", type: "button", "aria-keyshortcuts": "A", onclick: () => void addNumbers() }, tx("nm.addButton"), addBadge);
  const hintButton = h("button", { id: "hint", type: "button", "aria-keyshortcuts": "H", onclick: () => void askHint() }, tx("race.hint"), hintBadge);
  const undoButton = h("button", { id: "undo", type: "button", "aria-keyshortcuts": "U", onclick: () => void undo() }, tx("nm.undo"));
  const endButton = h("button", { id: "end-game", type: "button", class: "link danger", onclick: () => void endGame() }, tx("nm.end"));
  const gameOver = h("section", { id: "game-over", class: "panel", hidden: true, tabindex: -1, "aria-labelledby": "game-over-heading" });
  const log = new GameLog(app, LOG_LINES, errorEl);

  root.replaceChildren(h("section", { class: "nm", "data-table-id": seat.tableId },
    h("header", {}, h("h1", {}, TITLE), settingsEl, connEl),
    h("div", { class: "nm-status", "aria-label": tx("nm.counters") }, scoreEl, numbersEl, rowsEl, additionsEl, hintsEl, timeEl),
    errorEl,
    hintEl,
    board,
    h("div", { class: "nm-actions" }, addButton, hintButton, undoButton, endButton),
    h("p", { id: "nm-keys", class: "keys" },
      tx("nm.keys")),
    gameOver,
    log.details(),
    backLinks(h("a", { href: `#/play/${SLUG}` }, tx("nm.newGame")))));

  // --- saying things ---------------------------------------------------------------------------
  function say(text: string, quiet = false): void {
    log.say(text, quiet);
  }

  function showError(err: unknown): void {
    log.error(err);
  }

  function took(events: EventEnvelope[]): void {
    for (const env of events) {
      clock.observe(Number(env.serverTimeMs));
      say(eventText(env, t));
    }
  }

  // --- commands --------------------------------------------------------------------------------
  async function run(call: (headers: Record<string, string>) => Promise<{ events: EventEnvelope[]; view?: NumberMatchView }>): Promise<boolean> {
    errorEl.textContent = "";
    busy = true;
    try {
      const reply = await command(call, seat.token);
      // One at a time, each told as things stood right after it; then the table after them.
      t.applyEvents(reply.events, (env) => took([env]));
      t.applyView(reply.view);
      keepSelection();
      return true;
    } catch (err) {
      showError(err);
      return false;
    } finally {
      busy = false;
      redraw();
    }
  }

  const opts = (headers: Record<string, string>) => ({ headers, signal: abort.signal });

  async function pair(first: number, second: number): Promise<boolean> {
    return run((headers) => service.pairCells({ tableId: seat.tableId, first, second }, opts(headers)));
  }

  async function addNumbers(): Promise<void> {
    if (!t.playing) return;
    selection = null;
    await run((headers) => service.addNumbers({ tableId: seat.tableId }, opts(headers)));
  }

  async function askHint(): Promise<void> {
    if (!t.playing) return;
    await run((headers) => service.askHint({ tableId: seat.tableId }, opts(headers)));
  }

  async function undo(): Promise<void> {
    if (!t.playing) return;
    selection = null;
    await run((headers) => service.undo({ tableId: seat.tableId }, opts(headers)));
  }

  async function endGame(): Promise<void> {
    if (!t.playing) return;
    if (!endArmed) {
      endArmed = true;
      endButton.textContent = tx("nm.endConfirm");
      say(tx("nm.endAgain"));
      clearTimeout(endTimer);
      endTimer = setTimeout(() => { endArmed = false; endButton.textContent = tx("nm.end"); }, 8000);
      return;
    }
    endArmed = false;
    clearTimeout(endTimer);
    endButton.textContent = tx("nm.end");
    selection = null;
    await run((headers) => service.endGame({ tableId: seat.tableId }, opts(headers)));
  }

  /** Tap a cell: the first number is selected; the second pairs with it, or becomes the new selection. */
  async function select(cell: number): Promise<void> {
    focused = cell;
    if (!t.playing || busy) return;
    const n = t.board[cell - 1] ?? 0;
    if (!n) {
      say(tx("nm.pickNumber", { cell: cellLabel(t.board, cell) }));
    } else if (selection === cell) {
      selection = null;
      say(tx("nm.deselected", { n, where: where(cell) }));
    } else if (selection === null) {
      selection = cell;
      say(tx("nm.selected", { n, where: where(cell) }));
    } else {
      const first = selection;
      const m = t.board[first - 1] ?? 0;
      if (!pairsWith(m, n)) {
        selection = cell;
        say(tx("nm.noPair", { m, n, where: where(cell) }));
      } else {
        selection = null;
        redraw();
        const ok = await pair(first, cell);
        if (!ok && t.board[cell - 1] === n) selection = cell; // no pair: the second is the new selection
      }
    }
    redraw();
  }

  function keepSelection(): void {
    if (selection !== null && !(selection <= t.board.length && t.board[selection - 1])) selection = null;
  }

  // --- keys ------------------------------------------------------------------------------------
  board.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.metaKey) return;
    const next = moveFocus(focused, ev.key, t.board.length, ev.ctrlKey);
    if (next === null) return;
    ev.preventDefault();
    focused = next;
    roving();
    cells[focused - 1]?.focus();
  });

  const stopKeys = pageKeys((ev) => {
    const key = ev.key.toLowerCase();
    if (key === "a" || ev.key === "+") { ev.preventDefault(); void addNumbers(); }
    else if (key === "h") { ev.preventDefault(); void askHint(); }
    else if (key === "u") { ev.preventDefault(); void undo(); }
    else if (ev.key === "Escape" && selection !== null) { selection = null; say(tx("nm.nothingSelected")); redraw(); }
  });

  // --- the stream ------------------------------------------------------------------------------
  async function watch(): Promise<void> {
    try {
      const res = await app.api.lobby.getTable({ tableId: seat.tableId }, { headers: bearer(seat.token), signal: abort.signal });
      if (res.table) t.noteTable(res.table);
    } catch {
      // the stream says what matters
    }
    await follow({
      signal: abort.signal,
      open: (signal) => service.watch(
        { tableId: seat.tableId, afterEventNumber: t.received && !t.stale ? BigInt(t.eventNumber) : SNAPSHOT_AFTER },
        { headers: bearer(seat.token), signal }),
      item: (item) => {
        const got = t.applyWatch(item, (env) => took([env]));
        if (got === "snapshot") {
          if (item.item.case === "snapshot") clock.observe(Number(item.item.value.serverTimeMs));
          say(snapshotText(t, clock.now()), true);
          if (!finishedSaid && !t.gameOver) app.announce(snapshotText(t, clock.now()));
        }
        keepSelection();
        redraw();
      },
      finished: () => t.gameOver,
      connection: (text) => { if (text !== connection) { connection = text; redraw(); } },
      fatal: (err) => {
        if (refusalCode(err) === "table_expired") say(tx("nm.expired"));
        showError(err);
        redraw();
      },
    });
  }

  // --- drawing ---------------------------------------------------------------------------------
  function roving(): void {
    cells.forEach((b, i) => setAttr(b, "tabindex", i + 1 === focused ? "0" : "-1"));
  }

  function drawCells(): void {
    const length = t.board.length;
    const hadFocus = cells.some((c) => c === document.activeElement);
    while (cells.length < length) {
      const n = cells.length + 1;
      const b = h("button", { type: "button", class: "cell", tabindex: -1 });
      b.addEventListener("click", () => void select(n));
      b.addEventListener("focus", () => { focused = n; roving(); });
      cells.push(b);
      board.append(b);
    }
    while (cells.length > length) cells.pop()!.remove();
    if (focused > length) focused = Math.max(length, 1);
    const hinted = t.hinted() ?? [0, 0];
    for (let i = 0; i < length; i++) {
      const b = cells[i]!;
      const cell = i + 1;
      const n = t.board[i] ?? 0;
      const { row, col } = rowCol(cell);
      const state = !n ? "empty" : selection === cell ? "selected" : hinted.includes(cell) ? "hinted" : "number";
      setAttr(b, "data-row", String(row));
      setAttr(b, "data-col", String(col));
      setAttr(b, "data-cell", String(cell));
      setAttr(b, "data-state", state);
      setAttr(b, "data-hint", hinted.includes(cell) ? "true" : null);
      setAttr(b, "aria-label", cellLabel(t.board, cell));
      setAttr(b, "aria-pressed", n ? (selection === cell ? "true" : "false") : null);
      setAttr(b, "aria-disabled", t.playing && n ? null : "true");
      setText(b, n ? String(n) : "");
    }
    roving();
    if (hadFocus && !cells.includes(document.activeElement as HTMLButtonElement)) cells[focused - 1]?.focus();
  }

  function draw(): void {
    const phase = !t.received ? "connecting" : t.gameOver ? "over" : t.started ? "playing" : "waiting";
    root.querySelector(".nm")?.setAttribute("data-phase", phase);
    setText(connEl, connection);
    setText(settingsEl, t.received ? settingsText(t) : "");
    drawCells();
    board.classList.toggle("over", t.gameOver);
    setText(scoreEl, tx("nm.score", { score: t.score }));
    setText(numbersEl, tx("nm.numbersLeft", { n: numbersLeft(t.board) }));
    setText(rowsEl, tx("nm.rows", { n: rowCount(t.board) }));
    setText(additionsEl, additionsText(t.additionsLeft));
    setText(hintsEl, tx("nm.hintsLeft", { n: t.hintsLeft }));
    setAttr(scoreEl, "data-score", String(t.score));
    setAttr(numbersEl, "data-count", String(numbersLeft(t.board)));
    setAttr(rowsEl, "data-count", String(rowCount(t.board)));
    setAttr(hintsEl, "data-count", String(t.hintsLeft));
    setAttr(additionsEl, "data-count", t.additionsLeft === null ? "unlimited" : String(t.additionsLeft));

    setText(addBadge, t.additionsLeft === null ? "∞" : String(t.additionsLeft));
    setText(hintBadge, String(t.hintsLeft));
    setAttr(addButton, "aria-label", tx("nm.addLabel", { additions: additionsText(t.additionsLeft) }));
    setAttr(hintButton, "aria-label", tx("nm.hintLabel", { n: t.hintsLeft }));
    setAttr(addButton, "aria-disabled", t.playing && t.additionsLeft !== 0 ? null : "true");
    setAttr(hintButton, "aria-disabled", t.playing && t.hintsLeft > 0 ? null : "true");
    setAttr(undoButton, "aria-disabled", t.canUndo ? null : "true");
    setAttr(endButton, "aria-disabled", t.playing ? null : "true");
    endButton.hidden = t.gameOver;

    if (t.hint && !t.gameOver) {
      setText(hintEl, hintText(t, t.hint.kind, t.hint.first, t.hint.second));
      setAttr(hintEl, "data-kind", HintKind[t.hint.kind] ?? "");
    } else {
      setText(hintEl, "");
      setAttr(hintEl, "data-kind", null);
    }
    drawGameOver();
    tick();
  }

  function drawGameOver(): void {
    const over = t.received && t.gameOver;
    const wasHidden = gameOver.hidden;
    gameOver.hidden = !over;
    if (!over) return;
    store.markFinished(t.tableId);
    const gameId = t.gameId || t.tableId;
    const content = `${t.seed?.length ?? 0}|${t.outcome}|${t.score}|${gameId}|${t.witness.length}`;
    if (gameOver.dataset.content === content) return;
    gameOver.dataset.content = content;
    const replay = h("button", { id: "replay", type: "button", onclick: () => void playAgain() }, tx("nm.playBoardAgain"));
    fill(gameOver,
      h("h2", { id: "game-over-heading" }, t.cleared ? tx("nm.clear") : tx("race.phase.gameOver")),
      h("p", { id: "outcome", "data-outcome": String(t.outcome) },
        tx("nm.result", { outcome: outcomeText(t.outcome), score: t.score, moves: t.moves, hints: t.usedHints, time: clockText(t.timeMs) })),
      ...seedBlock({
        seed: t.seed, commitment: t.commitment, gameId, named: tx("nm.gameSeed"), verify: true,
        again: tx("nm.again"),
        more: t.witness.length
          ? h("details", {}, h("summary", {}, tx("nm.witness")),
            h("p", { class: "nm-witness", id: "witness" }, witnessText(t)))
          : null,
      }),
      h("p", { class: "nm-actions" },
        t.level !== "classic" && (t.seed || t.dailyDate) ? replay : null,
        h("a", { id: "new-game", href: `#/play/${SLUG}` }, tx("nm.newGame"))));
    if (!finishedSaid) {
      finishedSaid = true;
      if (wasHidden && document.activeElement && board.contains(document.activeElement)) gameOver.focus();
    }
  }

  async function playAgain(): Promise<void> {
    errorEl.textContent = "";
    try {
      const game = t.dailyDate
        ? { level: "daily", dailyDate: t.dailyDate }
        : { level: t.level, replaySeed: t.seed ?? undefined };
      const tableId = await createGame(app, t.displayName || seat.displayName, game);
      app.navigate(`#/play/${SLUG}/${tableId}`);
    } catch (err) {
      showError(err);
    }
  }

  function tick(): void {
    const now = clock.synced ? clock.now() : t.serverTimeMs;
    setText(timeEl, tx("nm.time", { time: clockText(t.elapsedMs(now)) }));
  }

  const timer = setInterval(tick, TICK_MS);
  draw();
  void watch();
  return () => {
    abort.abort();
    clearInterval(timer);
    clearTimeout(endTimer);
    stopKeys();
  };
}
