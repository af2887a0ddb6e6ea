/**
 * The race's page, `#/play/race/<table_id>`: the seat this browser holds there (its token in
 * localStorage), the Watch stream folded by RaceTracker, and the board as 20 buttons.
 *
 * Everything shown comes from the tracker, which holds only what the server sent. The stream
 * is resumed after a drop from the last event applied (backoff between tries); a reload starts
 * again from a snapshot (a Watch after a number beyond the table's last event).
 */

import type { App, Page } from "../app";
import { fill, h, setAttr, setText } from "../dom";
import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { RaceCounters } from "../gen/match/v1/views_pb";
import { ServerClock } from "../play/clock";
import { batched } from "../play/draw";
import { follow, SNAPSHOT_AFTER } from "../play/follow";
import { pageKeys } from "../play/keys";
import { GameLog } from "../play/log";
import { noSeat } from "../play/seat";
import { RematchOffer } from "../play/rematch";
import { seedBlock } from "../play/seed";
import { backLinks } from "../play/setup";
import { bearer, command, refusalCode } from "../rpc";
import { capital } from "../sentence";
import type { KeptSeat } from "../store";
import { type Counts, describeEvent, describeSnapshot, outcomeText, phaseText, runningStandings, seconds, tileLabel, tileState, who, type Line } from "./describe";
import { move, moveForKey } from "./grid";
import { symbolEmoji, symbolName } from "./symbols";
import { announcements, clockLine, deadline, fractionLeft, isOut, isReady, pausedMs } from "./timing";
import { BOARDS, Phase, RaceTracker, type Revealed, Status, TILES } from "./tracker";
import { t as tx } from "../i18n";
/** A seat taken this long ago or less, and not yet followed in this tab, is followed from the
 * table's first event: its story is short and every line of it is said. Otherwise (a reload,
 * an old seat) the page starts from a snapshot, and says where the game stands. */
const FRESH_SEAT_MS = 120_000;
const TICK_MS = 100;
const LOG_LINES = 200;

/** The last board revealed (the game's last board once it is over), if any was. */
function lastRevealed(t: RaceTracker): Revealed | undefined {
  return t.revealed.reduce<Revealed | undefined>((a, r) => (a === undefined || r.board > a.board ? r : a), undefined);
}

/** Above the last board's layout: which board it is, and how the player did on it. */
function revealedLine(t: RaceTracker, last: Revealed): string {
  const mine = last.results.find((r) => r.player === t.player);
  return mine
    ? tx("race.revealedMine", { board: last.board, pairs: mine.found, turns: mine.turns })
    : tx("race.revealedBoard", { board: last.board });
}

export const racePage: Page = (root, app, args) => {
  const tableId = args[0] ?? "";
  const seat = app.store.seat(tableId);
  if (!tableId || tableId === "new") {
    app.navigate("#/");
    return () => {};
  }
  if (seat === undefined) {
    return noSeat(root, tx("games.race.title"), tx("race.noSeat", { table: tableId }));
  }
  return mountRace(root, app, seat);
};

function mountRace(root: HTMLElement, app: App, seat: KeptSeat): () => void {
  const { api, store } = app;
  const tracker = new RaceTracker(seat.playerId, seat.tableId);
  const clock = new ServerClock();
  const said = new Set<string>();
  const abort = new AbortController();
  const redraw = batched(() => draw());
  let focused = 1;
  let resignArmed = false;
  let connection = tx("race.connecting");

  // --- the page's elements -------------------------------------------------------------------
  const tiles: HTMLButtonElement[] = [];
  const board = h("div", {
    id: "board", class: "board", role: "group",
    "aria-label": tx("race.boardLabel"),
    "aria-describedby": "keys",
  });
  for (let n = 1; n <= TILES; n++) {
    const b = h("button", { type: "button", class: "tile", "data-tile": n, "data-state": "down", tabindex: n === 1 ? 0 : -1 });
    b.addEventListener("click", () => void turn(n));
    b.addEventListener("focus", () => { focused = n; roving(); });
    tiles.push(b);
    board.append(b);
  }
  board.addEventListener("keydown", (ev) => {
    const m = moveForKey(ev.key, ev.ctrlKey);
    if (m === null) return;
    ev.preventDefault();
    focused = move(focused, m);
    roving();
    tiles[focused - 1]!.focus();
  });

  const readyButton = h("button", { id: "ready", type: "button", class: "primary", onclick: () => void pressReady() }, tx("race.ready"));
  const readyWarning = h("p", { id: "ready-warning", class: "warning" });
  const readyPanel = h("div", { id: "ready-panel", class: "ready-panel", hidden: true }, readyButton, readyWarning);
  const startNow = h("button", { id: "start-now", type: "button", hidden: true, onclick: () => void startTable() }, tx("race.startNow"));
  const waitingPanel = h("div", { id: "waiting-panel", class: "panel", hidden: true });
  const hintButton = h("button", { id: "hint", type: "button", onclick: () => void hint() }, tx("race.hint"));
  const resignButton = h("button", { id: "resign", type: "button", class: "link danger", onclick: () => void resign() }, tx("race.resign"));
  const myCounts = h("p", { id: "my-counts" });
  const clockEl = h("p", { id: "clock", role: "timer", "aria-live": "off" });
  const bar = h("div", { class: "bar-fill" });
  const pauseEl = h("p", { id: "pause", class: "pause", "aria-hidden": "true" });
  const players = h("div", { id: "players" });
  const standings = h("div", { id: "standings" });
  const revealed = h("div", { id: "revealed" });
  const gameOver = h("section", { id: "game-over", class: "panel", hidden: true });
  const rematch = new RematchOffer(app, "race", seat.tableId, seat);
  const errorEl = h("p", { id: "race-error", class: "error", role: "alert" });
  const log = new GameLog(app, LOG_LINES, errorEl);
  const connEl = h("p", { id: "connection", class: "muted" });
  const boardNumber = h("span", { id: "board-number" }, "");
  const phaseEl = h("span", { id: "phase" });

  root.replaceChildren(h("section", { class: "race", "data-table-id": seat.tableId },
    h("header", { class: "race-head" },
      h("h1", {}, tx("games.race.title")),
      h("p", { class: "status-line" }, boardNumber, " · ", phaseEl),
      connEl),
    waitingPanel,
    h("div", { class: "clock-row" }, clockEl, h("div", { class: "bar", "aria-hidden": "true" }, bar), pauseEl),
    readyPanel,
    errorEl,
    h("div", { class: "play" },
      h("div", { class: "board-wrap" },
        h("div", { class: "board-bar" }, myCounts, h("div", { class: "actions" }, hintButton, resignButton)),
        board,
        h("p", { id: "keys", class: "keys" },
          tx("race.keys"))),
      h("aside", { class: "side" },
        gameOver,
        h("h2", {}, tx("race.players")), players,
        h("h2", { id: "standings-heading" }, tx("race.standings")), standings)),
    revealed,
    log.details(),
    backLinks()));

  // --- saying things ---------------------------------------------------------------------------
  function say(lines: Line[]): void {
    for (const line of lines) log.say(line.text, line.quiet);
  }

  function showError(err: unknown): void {
    log.error(err);
  }

  // --- what the server sends -------------------------------------------------------------------
  function counts(): Map<string, Counts> {
    const m = new Map<string, Counts>();
    for (const info of tracker.players.values()) {
      const p = info.boards.get(tracker.board);
      m.set(info.player, { pairs: p?.pairs ?? 0, turns: p?.turns ?? 0, hints: p?.hints ?? 0 });
    }
    return m;
  }

  function applyEvents(envs: EventEnvelope[], live: boolean): void {
    for (const env of envs) {
      const before = counts();
      if (!tracker.applyEvent(env)) continue;
      if (live) clock.observe(Number(env.serverTimeMs));
      say(describeEvent(env, tracker, before));
    }
    redraw();
  }

  // --- commands ----------------------------------------------------------------------------------
  async function run<T extends { events: EventEnvelope[]; counters?: RaceCounters }>(
    call: (headers: Record<string, string>) => Promise<T>,
  ): Promise<void> {
    errorEl.textContent = "";
    try {
      const res = await command(call, seat.token, { msLeft: timeLeftMs, signal: abort.signal });
      if (res.counters) clock.observe(Number(res.counters.serverTimeMs));
      applyEvents(res.events, true);
      tracker.applyCounters(res.counters);
      redraw();
    } catch (err) {
      showError(err);
      if (refusalCode(err) === "paused") redraw();
    }
  }

  /** How long a move can still matter: until the Ready deadline or the board's end, as the
   * page's clock reads the referee's (a move is not sent again past it: see rpc.command). */
  function timeLeftMs(): number | undefined {
    const d = deadline(tracker);
    return d && clock.synced ? d.atMs - clock.now() : undefined;
  }

  async function turn(tile: number): Promise<void> {
    focused = tile;
    await run((headers) => api.race.turnTile({ tableId: seat.tableId, tile }, { headers }));
  }

  async function pressReady(): Promise<void> {
    await run((headers) => api.race.pressReady({ tableId: seat.tableId }, { headers }));
  }

  async function hint(): Promise<void> {
    await run((headers) => api.race.requestHint({ tableId: seat.tableId }, { headers }));
  }

  async function resign(): Promise<void> {
    if (!resignArmed) {
      resignArmed = true;
      resignButton.textContent = tx("race.resignConfirm");
      say([{ text: tx("race.resignAgain") }]);
      setTimeout(() => { resignArmed = false; resignButton.textContent = tx("race.resign"); }, 5000);
      return;
    }
    resignArmed = false;
    resignButton.textContent = tx("race.resign");
    await run((headers) => api.race.resign({ tableId: seat.tableId }, { headers }));
  }

  async function startTable(): Promise<void> {
    errorEl.textContent = "";
    try {
      const res = await command((headers) => api.lobby.startTable({ tableId: seat.tableId }, { headers }), seat.token);
      if (res.table) tracker.noteTable(res.table);
      say([{ text: tx("race.botTaking") }]);
      redraw();
    } catch (err) {
      showError(err);
    }
  }

  const stopKeys = pageKeys((ev) => {
    if (ev.key === "r" || ev.key === "R") {
      ev.preventDefault();
      void pressReady();
    } else if (ev.key === "h" || ev.key === "H") {
      ev.preventDefault();
      void hint();
    }
  });

  // --- the stream ----------------------------------------------------------------------------------
  async function watch(): Promise<void> {
    // Names and settings first (a snapshot names the others, not the table's settings).
    try {
      const res = await api.lobby.getTable({ tableId: seat.tableId }, { headers: bearer(seat.token), signal: abort.signal });
      if (res.table) tracker.noteTable(res.table);
    } catch {
      // the stream says what matters; the table's settings are a nicety
    }
    const followed = `match.followed.${seat.tableId}`;
    let fresh = Date.now() - seat.savedAtMs < FRESH_SEAT_MS;
    try {
      fresh = fresh && sessionStorage.getItem(followed) === null;
      sessionStorage.setItem(followed, "1");
    } catch {
      // no session storage: a reload replays the short story of a fresh seat, nothing worse
    }
    await follow({
      signal: abort.signal,
      open: (signal) => api.race.watch(
        { tableId: seat.tableId, afterEventNumber: tracker.started ? BigInt(tracker.eventNumber) : fresh ? 0n : SNAPSHOT_AFTER },
        { headers: bearer(seat.token), signal }),
      item: ({ item }) => {
        if (item.case === "snapshot") {
          clock.observe(Number(item.value.serverTimeMs));
          tracker.applySnapshot(item.value);
          say(describeSnapshot(tracker, clock.now()));
          redraw();
        } else if (item.case === "event") {
          applyEvents([item.value], true);
        }
      },
      finished: () => tracker.gameOver || tracker.expired, // the seed is out: nothing more can happen
      connection: (text) => { if (text !== connection) { connection = text; redraw(); } },
      fatal: (err) => {
        if (refusalCode(err) === "table_expired") tracker.expired = true;
        showError(err);
        redraw();
      },
    });
  }

  // --- drawing -------------------------------------------------------------------------------------
  function roving(): void {
    tiles.forEach((b, i) => setAttr(b, "tabindex", i + 1 === focused ? "0" : "-1"));
  }

  function draw(): void {
    const t = tracker;
    setText(boardNumber, t.board ? tx("race.boardOf", { board: t.board, boards: BOARDS }) : tx("race.boardsToPlay", { boards: BOARDS })); // no "Board 0"
    setAttr(boardNumber, "data-board", String(t.board));
    setText(phaseEl, t.started ? phaseText(t) : tx("race.connecting"));
    setText(connEl, connection);
    root.querySelector(".race")?.setAttribute("data-phase", Phase[t.phase] ?? "");

    // Waiting for players.
    const waiting = t.started && t.phase === Phase.WAITING_FOR_PLAYERS && !t.expired;
    waitingPanel.hidden = !waiting;
    if (waiting) {
      const names = [...t.players.values()].map((p) => (p.player === t.player ? tx("race.nameYou", { name: seat.displayName }) : p.isBot ? tx("home.botName", { name: p.displayName }) : p.displayName));
      fill(waitingPanel,
        h("h2", {}, tx("race.phase.waiting")),
        h("p", {}, tx("race.seated", { names: names.join(", ") || tx("race.you") })),
        t.fillAtMs ? h("p", { class: "muted" }, tx("race.botFills")) : null,
        startNow);
      startNow.hidden = seat.seat !== 1 || t.isPrivate;
    }

    // Ready.
    const readyOpen = t.phase === Phase.READY && !isOut(t);
    const refocus = !readyOpen && !readyPanel.hidden && document.activeElement === readyButton;
    readyPanel.hidden = !readyOpen;
    // Ready is gone: the keyboard goes on from the board (once the panel is hidden, so that
    // focusing a tile of the bottom row does not scroll the page as the board starts).
    if (refocus) tiles[focused - 1]!.focus();
    // The button says whether Ready can be pressed now, shown or not (the countdown may come
    // with the press's own reply, and hide it at once).
    const canPress = readyOpen && !isReady(t);
    if (readyOpen) setText(readyButton, canPress ? tx("race.readyFor", { board: t.board }) : tx("race.readyWaiting"));
    setAttr(readyButton, "aria-disabled", canPress ? null : "true");
    setAttr(readyButton, "aria-describedby", "ready-warning");

    // The board. Once the game is over it shows the last board's layout, as its reveal gave
    // it to everybody (never a face before that).
    const playing = t.phase === Phase.PLAYING && t.status === Status.PLAYING;
    const showing = t.showing;
    const hinted = t.lastHint !== null && showing.includes(t.lastHint.tile) ? t.lastHint.partner : 0;
    const last = t.gameOver ? lastRevealed(t) : undefined;
    setAttr(board, "aria-label", last
      ? tx("race.layoutLabel", { board: last.board })
      : tx("race.boardLabel"));
    board.classList.toggle("revealed", last !== undefined);
    for (const b of tiles) {
      const n = Number(b.dataset.tile);
      const symbol = last?.layout[n - 1];
      if (last !== undefined && symbol !== undefined) {
        setAttr(b, "data-state", "revealed");
        setAttr(b, "aria-label", tx("race.tile.up", { n, symbol: symbolName(symbol) }));
        setAttr(b, "data-hint", null);
        setAttr(b, "aria-disabled", "true");
        const shown = `revealed|${last.board}|${symbol}`;
        if (b.dataset.content !== shown) {
          b.dataset.content = shown;
          fill(b,
            h("span", { class: "num", "aria-hidden": "true" }, String(n)),
            h("span", { class: "face", "aria-hidden": "true" }, symbolEmoji(symbol)),
            h("span", { class: "name", "aria-hidden": "true" }, symbolName(symbol)));
        }
        continue;
      }
      const tile = t.tiles.get(n)!;
      const state = tileState(tile);
      setAttr(b, "data-state", state);
      setAttr(b, "aria-label", tileLabel(tile));
      setAttr(b, "data-hint", n === hinted ? "true" : null);
      setAttr(b, "aria-disabled", playing && state === "down" ? null : "true");
      const content = state !== "down" && tile.symbol !== undefined
        ? `${n}|${tile.symbol}`
        : `${n}`;
      if (b.dataset.content !== content) {
        b.dataset.content = content;
        if (state !== "down" && tile.symbol !== undefined) {
          fill(b,
            h("span", { class: "num", "aria-hidden": "true" }, String(n)),
            h("span", { class: "face", "aria-hidden": "true" }, symbolEmoji(tile.symbol)),
            h("span", { class: "name", "aria-hidden": "true" }, symbolName(tile.symbol)));
        } else {
          fill(b, h("span", { class: "num", "aria-hidden": "true" }, String(n)));
        }
      }
    }
    board.classList.toggle("inactive", !playing);

    // My counts, hint, resign.
    const parts = [tx("race.pairs", { n: t.pairs }), tx("race.turns", { n: t.turns })];
    if (t.hasBot && (t.hintsPerBoard ?? 0) > 0) parts.push(tx("race.hintsLeft", { n: t.hintsLeft }));
    if (t.phase === Phase.PLAYING && t.outcome) parts.push(outcomeText(t.outcome));
    setText(myCounts, t.board && !t.boardEnded ? tx("race.youCounts", { parts: parts.join(", ") }) : last ? revealedLine(t, last) : "");
    const hintsHere = t.hasBot && (t.hintsPerBoard ?? 0) > 0;
    hintButton.hidden = !hintsHere || t.gameOver;
    setText(hintButton, tx("race.hintLeft", { n: t.hintsLeft }));
    setAttr(hintButton, "aria-disabled", playing && showing.length === 1 && t.hintsLeft > 0 ? null : "true");
    setAttr(hintButton, "title", tx("race.hintTitle"));
    resignButton.hidden = !t.started || t.gameOver || isOut(t) || t.phase === Phase.WAITING_FOR_PLAYERS;

    drawPlayers();
    drawStandings();
    drawRevealed();
    drawGameOver();
    tick();
  }

  function statusText(player: string): string {
    const s = tracker.statusOf(player);
    // The view says DONE when no board is under way: before the game nobody is done yet.
    if (tracker.phase === Phase.WAITING_FOR_PLAYERS && s !== Status.OUT) return tx("race.status.waiting");
    switch (s) {
      case Status.WAITING: return tx("race.status.notReady");
      case Status.READY: return tx("race.status.ready");
      case Status.PLAYING: return tx("race.status.playing");
      case Status.DONE: return tx("race.status.done");
      case Status.OUT: return tx("race.outcome.out");
      default: return "";
    }
  }

  function drawPlayers(): void {
    const t = tracker;
    const rows = [...t.players.values()].map((p) => {
      const prog = p.boards.get(t.board);
      const name = p.player === t.player ? tx("race.youName", { name: seat.displayName }) : p.isBot ? tx("home.botName", { name: p.displayName }) : p.displayName;
      return h("tr", { "data-player": p.player, class: p.player === t.player ? "me" : "" },
        h("th", { scope: "row" }, name || p.player),
        h("td", {}, statusText(p.player)),
        h("td", { class: "num" }, prog ? String(prog.pairs) : "-",
          prog ? h("meter", { min: 0, max: 10, value: prog.pairs, "aria-hidden": "true" }) : null),
        h("td", { class: "num" }, prog ? String(prog.turns) : "-"));
    });
    fill(players, h("table", { class: "grid-table" },
      h("caption", { class: "sr-only" }, tx("race.everybody", { board: t.board || 1 })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, tx("race.col.player")), h("th", { scope: "col" }, tx("race.col.now")),
        h("th", { scope: "col" }, tx("race.col.pairs")), h("th", { scope: "col" }, tx("race.col.turns")))),
      h("tbody", {}, ...rows)));
  }

  function drawStandings(): void {
    const t = tracker;
    const heading = root.querySelector("#standings-heading");
    if (t.standings.length) {
      if (heading) setText(heading, tx("race.finalStandings"));
      fill(standings, h("ol", { class: "standings" }, ...t.standings.map((s) =>
        h("li", { "data-player": s.player, "data-place": s.place },
          tx("race.finalRow", { place: s.place, who: who(t, s.player), pairs: s.pairs, time: seconds(s.timeMs), turns: s.turns }) +
          (s.hints ? `, ${tx("race.hints", { n: s.hints })}` : "") + (s.out ? `, ${tx("race.outcome.out")}` : "")))));
      return;
    }
    const rows = runningStandings(t);
    if (rows.length === 0) {
      if (heading) setText(heading, tx("race.standings"));
      fill(standings, h("p", { class: "muted" }, tx("race.afterFirst")));
      return;
    }
    const done = Math.max(...t.revealed.map((r) => r.board));
    if (heading) setText(heading, tx("race.standingsAfter", { board: done, boards: BOARDS }));
    fill(standings, h("ol", { class: "standings" }, ...rows.map((r) =>
      h("li", { "data-player": r.player, "data-place": r.place },
        tx("race.runningRow", { place: r.place, who: who(t, r.player), pairs: r.pairs, time: seconds(r.timeMs) }) + (r.out ? `, ${tx("race.outcome.out")}` : "")))));
  }

  let revealedDrawn = "";
  function drawRevealed(): void {
    const key = tracker.revealed.map((r) => r.board).join(",");
    if (key === revealedDrawn) return;
    revealedDrawn = key;
    fill(revealed, ...[...tracker.revealed].reverse().map((rb) =>
      h("section", { class: "panel revealed", "data-board": rb.board },
        h("h2", {}, tx("race.revealedBoard", { board: rb.board })),
        h("div", { class: "mini-board", role: "list", "aria-label": tx("race.layoutOf", { board: rb.board }) },
          ...rb.layout.map((symbol, i) => h("span", { role: "listitem", class: "mini-tile", "aria-label": tx("race.tile.up", { n: i + 1, symbol: symbolName(symbol) }) },
            h("span", { "aria-hidden": "true" }, symbolEmoji(symbol)),
            h("small", { "aria-hidden": "true" }, `${i + 1} ${symbolName(symbol)}`)))),
        h("ul", {}, ...rb.results.map((r) => h("li", {},
          `${capital(who(tracker, r.player))}: ${outcomeText(r.outcome)}, ${tx("race.pairs", { n: r.pairs })}` +
          (r.found !== r.pairs ? ` ${tx("race.foundN", { n: r.found })}` : "") + `, ${tx("race.turns", { n: r.turns })}, ${seconds(r.timeMs)}` +
          (r.hints ? `, ${tx("race.hints", { n: r.hints })}` : "")))))));
  }

  let overSeen: boolean | null = null; // whether the game was over at the last draw
  function drawGameOver(): void {
    const t = tracker;
    const over = t.gameOver;
    gameOver.hidden = !over;
    // The game ends while the player looks at the board: bring the result into view (a page
    // opened on a finished game starts at its top, where the result is).
    if (over && overSeen === false) gameOver.scrollIntoView({ block: "nearest" });
    if (t.started) overSeen = over;
    if (!over) return;
    store.markFinished(t.tableId);
    const mine = t.standings.find((s) => s.player === t.player);
    const gameId = t.gameId || t.tableId;
    const content = `${t.seed?.length ?? 0}|${mine?.place ?? ""}|${gameId}`;
    if (gameOver.dataset.content === content) return;
    gameOver.dataset.content = content;
    fill(gameOver,
      h("h2", {}, tx("race.phase.gameOver")),
      mine ? h("p", { id: "my-place" }, tx("race.placed", { place: mine.place, of: t.standings.length, pairs: mine.pairs })) : null,
      ...seedBlock({ seed: t.seed, commitment: t.commitment, gameId, again: tx("race.again") }),
      rematch.el,
      h("p", {}, h("a", { href: "#/" }, tx("race.playAgain"))));
    rematch.over();
  }

  let lastFraction = "";
  function tick(): void {
    const t = tracker;
    const now = clock.synced ? clock.now() : t.serverTimeMs;
    setText(clockEl, clockLine(t, now));
    const d = deadline(t);
    setAttr(clockEl, "data-kind", d?.kind ?? null);
    setAttr(clockEl, "data-left-ms", d ? String(Math.max(Math.round(d.atMs - now), 0)) : null);
    const frac = d ? `${(fractionLeft(d, t, now) * 100).toFixed(1)}%` : "0%";
    if (frac !== lastFraction) {
      lastFraction = frac;
      bar.style.width = frac;
    }
    bar.dataset.kind = d?.kind ?? "";
    const pause = pausedMs(t, now);
    setText(pauseEl, pause ? tx("race.pausedFor", { s: (pause / 1000).toFixed(1) }) : "");
    board.classList.toggle("paused", pause > 0);
    if (t.phase === Phase.READY && !isOut(t) && d?.kind === "ready") {
      setText(readyWarning, isReady(t)
        ? tx("race.readyNote")
        : tx("race.pressWithin", { secs: Math.max(Math.ceil((d.atMs - now) / 1000), 0) }));
    }
    if (clock.synced) say(announcements(t, now, said).map((text) => ({ text })));
  }

  const timer = setInterval(tick, TICK_MS);
  draw();
  void watch();
  return () => {
    abort.abort();
    clearInterval(timer);
    stopKeys();
    rematch.stop();
  };
}
