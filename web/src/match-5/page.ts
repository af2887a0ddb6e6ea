/**
 * MATCH 5's page. `#/play/match-5` (or `/new`): a new table (2 to 8 seats, the timers, private
 * with an invite code or open) and "join with a code"; `#/play/match-5/join/<code>`: the same,
 * the code filled in (the link a host shares). `#/play/match-5/<table_id>`: the table at the
 * seat this browser keeps there (or a way to join it), driven by its Watch stream (folded by
 * MatchFiveTracker): the invite while waiting, the 10 combinations with a text field each while
 * the sand timer runs, then the reading with a vote on each ballot, the scores and the end.
 * Every event is announced; everything is reachable by Tab, and Enter submits.
 */

import { createClient, type Client } from "@connectrpc/connect";
import type { App, Page } from "../app";
import { fill, h, setAttr, setText } from "../dom";
import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { GameKind, Visibility } from "../gen/match/v1/common_pb";
import { MatchFiveService } from "../gen/match/v1/match_five_service_pb";
import { ServerClock } from "../play/clock";
import { batched } from "../play/draw";
import { follow, SNAPSHOT_AFTER } from "../play/follow";
import { GameLog } from "../play/log";
import { chooseName, nameField } from "../play/name";
import { keepSeat, pageLink, seatsGoing } from "../play/seat";
import { RematchOffer } from "../play/rematch";
import { seedBlock } from "../play/seed";
import { backLinks, FormProblem, options, submitting } from "../play/setup";
import { clockText } from "../play/words";
import { bearer, clockLeft, command, refusalCode } from "../rpc";
import type { KeptSeat } from "../store";
import { ballotText, categoriesText, closedLines, colourName, combinationText, eventLines, settingsText, timerText, voteText } from "./describe";
import { ACCEPT, COLOURS, CONTEST, isCall, MatchFiveTracker, MAX_LINK, Phase, ROUNDS } from "./tracker";
import { t as tx } from "../i18n";

const SLUG = "match-5";
const TITLE = "MATCH 5";
const LOG_LINES = 300;
const TICK_MS = 250;
const WRITING_CHOICES = [30, 60, 90, 120, 180, 240, 300, 600];
const VOTE_CHOICES = [10, 20, 30, 45, 60, 90, 120, 300];
const WRITING_MARKS = [60, 10];
const VOTE_MARKS = [10];

type Service = Client<typeof MatchFiveService>;

export const matchFivePage: Page = (root, app, args) => {
  const first = args[0] ?? "";
  if (!first || first === "new") return mountSetup(root, app, "");
  if (first === "join") return mountSetup(root, app, args[1] ?? "");
  const seat = app.store.seat(first);
  if (seat === undefined) return mountJoin(root, app, first);
  return mountGame(root, app, seat);
};

function seconds(s: number): string {
  return s >= 60 && s % 60 === 0 ? tx("m5.minutes", { n: s / 60 }) : tx("common.seconds", { count: s });
}

async function join(app: App, displayName: string, target: { case: "tableId" | "inviteCode"; value: string }): Promise<string> {
  const seat = await command((headers) => app.api.lobby.joinTable({ target, displayName }, { headers }));
  keepSeat(app.store, SLUG, seat, displayName, target.case === "inviteCode" ? target.value : "");
  return seat.tableId;
}

function joinForm(app: App, name: HTMLInputElement, code: string, error: HTMLElement): HTMLFormElement {
  const codeInput = h("input", {
    id: "join-code", name: "join-code", type: "text", autocomplete: "off", autocapitalize: "characters",
    spellcheck: "false", value: code, maxlength: 64, "aria-describedby": "join-help",
  });
  const submit = h("button", { id: "join-game", type: "submit" }, tx("m5.joinTable"));
  const go = submitting(app, error, () => [submit], async () => {
    const typed = codeInput.value.trim();
    if (!typed) {
      codeInput.focus();
      throw new FormProblem(tx("m5.typeCode"));
    }
    const displayName = chooseName(app.store, name.value);
    const tableId = await join(app, displayName, { case: "inviteCode", value: typed.toUpperCase() });
    app.navigate(`#/play/${SLUG}/${tableId}`);
  });
  return h("form", { id: "join-form", class: "panel m5-setup", onsubmit: go },
    h("h2", {}, tx("m5.joinWithCode")),
    h("label", { for: "join-code" }, tx("m5.inviteCode")),
    codeInput,
    h("p", { id: "join-help", class: "muted" }, tx("m5.codeHelp")),
    submit);
}

// --- the setup ---------------------------------------------------------------------------------

function mountSetup(root: HTMLElement, app: App, code: string): () => void {
  const name = nameField(app.store);
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const seats = h("select", { id: "seats", name: "seats" }, ...options([2, 3, 4, 5, 6, 7, 8], 3, (v) => tx("common.players", { count: v })));
  const writing = h("select", { id: "writing-seconds", name: "writing-seconds" }, ...options(WRITING_CHOICES, 180, seconds));
  const vote = h("select", { id: "vote-seconds", name: "vote-seconds" }, ...options(VOTE_CHOICES, 45, seconds));
  const priv = h("input", { id: "private", type: "checkbox", checked: true });
  const submit = h("button", { id: "create-game", type: "submit", class: "primary" }, tx("conc.makeTable"));

  const create = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(app.store, name.value);
    const made = await command((headers) => app.api.lobby.createTable({
      gameKind: GameKind.MATCH_FIVE,
      seats: Number(seats.value),
      visibility: priv.checked ? Visibility.PRIVATE : Visibility.OPEN,
      displayName,
      settings: { case: "matchFive", value: { writingSeconds: Number(writing.value), voteSeconds: Number(vote.value) } },
    }, { headers }));
    keepSeat(app.store, SLUG, made, displayName, made.inviteCode);
    app.navigate(`#/play/${SLUG}/${made.tableId}`);
  });

  fill(root,
    h("section", { class: "panel" },
      h("h1", {}, TITLE),
      h("p", {}, tx("m5.about"), " ", h("a", { href: "#/rules/match-5" }, tx("rules.link"))),
      h("label", { for: "display-name" }, tx("home.nameLabel")),
      name,
      error),
    h("form", { id: "new-table", class: "panel m5-setup", onsubmit: create },
      h("h2", {}, tx("m5.newTable")),
      h("div", { class: "fields" },
        h("label", {}, `${tx("home.players")} `, seats),
        h("label", {}, `${tx("m5.sandTimerLabel")} `, writing),
        h("label", {}, `${tx("m5.voteLabel")} `, vote)),
      h("label", { class: "check" }, priv, ` ${tx("m5.private")}`),
      submit),
    joinForm(app, name, code, error),
    seatsGoing(app.store, SLUG, tx("m5.yourTables"), (s) => tx("home.seatDetail", { name: s.displayName, seat: s.seat })),
    backLinks());
  name.focus();
  return () => {};
}

/** A table this browser holds no seat at: join it (an open table by its id, a private one by code). */
function mountJoin(root: HTMLElement, app: App, tableId: string): () => void {
  const name = nameField(app.store);
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const submit = h("button", { id: "join-table", type: "submit", class: "primary" }, tx("m5.takeSeat"));
  const go = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(app.store, name.value);
    await join(app, displayName, { case: "tableId", value: tableId });
    app.navigate(`#/play/${SLUG}/${tableId}`);
  });
  fill(root,
    h("form", { id: "join-by-id", class: "panel m5-setup", onsubmit: go },
      h("h1", {}, TITLE),
      h("p", {}, tx("m5.noSeatYet", { table: tableId })),
      h("label", { for: "display-name" }, tx("home.nameLabel")),
      name,
      error,
      submit),
    joinForm(app, name, "", error),
    backLinks(h("a", { href: `#/play/${SLUG}` }, tx("m5.newTableLink"))));
  name.focus();
  return () => {};
}

// --- the game ----------------------------------------------------------------------------------

function mountGame(root: HTMLElement, app: App, seat: KeptSeat): () => void {
  const service: Service = createClient(MatchFiveService, app.api.transport);
  const t = new MatchFiveTracker(seat.playerId, seat.tableId);
  if (seat.inviteCode) t.inviteCode = seat.inviteCode;
  const clock = new ServerClock();
  const abort = new AbortController();
  const redraw = batched(() => draw());
  const said = new Set<string>();
  const pending = new Map<number, string>(); // combination -> the text being sent
  let connection = tx("race.connecting");
  let finishedSaid = false;

  const settingsEl = h("p", { id: "m5-settings", class: "muted" });
  const connEl = h("p", { id: "connection", class: "muted" });
  const errorEl = h("p", { id: "m5-error", class: "error", role: "alert" });
  const roundEl = h("span", { id: "round" });
  const phaseEl = h("span", { id: "phase" });
  const myPoints = h("span", { id: "my-points" });
  const timerEl = h("p", { id: "timer", role: "timer", "aria-live": "off" });
  const bar = h("div", { class: "bar-fill" });
  const waiting = h("section", { id: "waiting", class: "panel", hidden: true, "aria-labelledby": "waiting-heading" });
  const categories = h("ul", { id: "categories", class: "m5-categories", "aria-label": tx("m5.categoriesLabel") });
  const sheet = h("ol", { id: "sheet", class: "m5-sheet", "aria-label": tx("m5.sheetLabel") });
  const sheetPanel = h("section", { id: "writing", class: "panel", hidden: true, "aria-labelledby": "writing-heading" },
    h("h2", { id: "writing-heading" }, tx("m5.writeLinks")),
    h("p", { class: "muted" }, tx("m5.writeHelp", { max: MAX_LINK })),
    sheet);
  const doneButton = h("button", { id: "done", type: "button", class: "primary", onclick: () => void done() }, tx("m5.done"));
  const doneHelp = h("p", { id: "done-help", class: "muted" });
  const reading = h("section", { id: "reading", class: "panel", hidden: true, "aria-labelledby": "reading-heading" });
  const players = h("div", { id: "players" });
  const results = h("div", { id: "results" });
  const scores = h("div", { id: "scores" });
  const gameOver = h("section", { id: "game-over", class: "panel", hidden: true, tabindex: -1, "aria-labelledby": "game-over-heading" });
  const rematch = new RematchOffer(app, SLUG, seat.tableId, seat);
  const log = new GameLog(app, LOG_LINES, errorEl);

  root.replaceChildren(h("section", { class: "m5", "data-table-id": seat.tableId },
    h("header", {}, h("h1", {}, TITLE), settingsEl, connEl),
    h("p", { class: "m5-status" }, roundEl, phaseEl, myPoints),
    h("div", { class: "clock-row" }, timerEl, h("div", { class: "bar", "aria-hidden": "true" }, bar)),
    errorEl,
    waiting,
    categories,
    sheetPanel,
    reading,
    h("div", { class: "nm-actions" }, doneButton),
    doneHelp,
    gameOver,
    h("section", { class: "panel", "aria-labelledby": "players-heading" }, h("h2", { id: "players-heading" }, tx("race.players")), players),
    scores,
    results,
    log.details(),
    backLinks(h("a", { href: `#/play/${SLUG}` }, tx("m5.newTableLink")))));

  // --- saying things ---------------------------------------------------------------------------
  function say(text: string, quiet = false): void {
    log.say(text, quiet);
  }

  function showError(err: unknown): void {
    log.error(err);
  }

  function took(env: EventEnvelope): void {
    clock.observe(Number(env.serverTimeMs));
    const quiet = env.body.case === "matchFive" && (env.body.value.event.case === "writingProgress" || (env.body.value.event.case === "voteCast" && env.body.value.event.value.player !== t.player));
    for (const line of eventLines(env, t)) say(line, quiet);
  }

  // --- commands --------------------------------------------------------------------------------
  async function run(call: (headers: Record<string, string>) => Promise<{ events: EventEnvelope[] }>): Promise<boolean> {
    errorEl.textContent = "";
    try {
      // sent again while the connection is down, until the sand timer or the vote's time ends it
      const reply = await command(call, seat.token, { msLeft: () => clockLeft(t.deadlineMs, clock), signal: abort.signal });
      for (const env of t.applyReply(reply.events)) took(env);
      return true;
    } catch (err) {
      showError(err);
      return false;
    } finally {
      redraw();
    }
  }

  const opts = (headers: Record<string, string>) => ({ headers, signal: abort.signal });

  async function saveLink(combination: number, input: HTMLInputElement): Promise<void> {
    if (t.phase !== Phase.WRITING || t.me.done) return;
    const text = input.value;
    const saved = t.combinations.get(combination)?.link ?? "";
    if (pending.get(combination) === text) return;
    if (text === saved) {
      input.dataset.dirty = "";
      redraw();
      return;
    }
    pending.set(combination, text);
    setAttr(input, "data-state", "sending");
    const ok = text.trim() === ""
      ? (saved ? await run((headers) => service.eraseLink({ tableId: seat.tableId, combination }, opts(headers))) : true)
      : await run((headers) => service.writeLink({ tableId: seat.tableId, combination, text }, opts(headers)));
    pending.delete(combination);
    if (ok && input.value === text) input.dataset.dirty = "";
    redraw();
  }

  async function erase(combination: number, input: HTMLInputElement): Promise<void> {
    input.value = "";
    input.dataset.dirty = "true";
    await saveLink(combination, input);
    input.focus();
  }

  async function done(): Promise<void> {
    if (t.phase === Phase.WRITING) {
      // Links typed but not saved yet go first.
      for (const input of sheet.querySelectorAll<HTMLInputElement>("input.link")) {
        if (input.dataset.dirty === "true") await saveLink(Number(input.dataset.combination), input);
      }
    } else if (t.phase !== Phase.READING || !t.combination) {
      return;
    }
    await run((headers) => service.done({ tableId: seat.tableId }, opts(headers)));
  }

  async function vote(ballot: number, accept: boolean): Promise<void> {
    await run((headers) => service.vote({ tableId: seat.tableId, ballot, accept }, opts(headers)));
  }

  async function callMatch(ballot: number): Promise<void> {
    await run((headers) => service.callMatch({ tableId: seat.tableId, ballot }, opts(headers)));
  }

  // --- the stream ------------------------------------------------------------------------------
  async function noteTable(): Promise<void> {
    try {
      const res = await app.api.lobby.getTable({ tableId: seat.tableId }, { headers: bearer(seat.token), signal: abort.signal });
      if (res.table) t.noteTable(res.table);
      redraw();
    } catch {
      // the stream says what matters
    }
  }

  async function watch(): Promise<void> {
    await noteTable();
    await follow({
      signal: abort.signal,
      open: (signal) => service.watch(
        { tableId: seat.tableId, afterEventNumber: t.received ? BigInt(t.eventNumber) : SNAPSHOT_AFTER },
        { headers: bearer(seat.token), signal }),
      item: (item) => {
        const before = `${t.phase}|${t.round}|${t.combination}`;
        const first = !t.received;
        const got = t.applyWatch(item);
        if (got === "snapshot") {
          if (item.item.case === "snapshot") clock.observe(Number(item.item.value.serverTimeMs));
          if (first || `${t.phase}|${t.round}|${t.combination}` !== before) say(snapshotText(), first && t.gameOver);
        } else {
          for (const env of got) {
            took(env);
            if (env.body.case === "table" && env.body.value.event.case === "playerSeated" && !t.started) void noteTable();
          }
        }
        redraw();
      },
      finished: () => t.gameOver || t.expired,
      connection: (text) => { if (text !== connection) { connection = text; redraw(); } },
      fatal: (err) => {
        if (refusalCode(err) === "table_expired") t.expired = true;
        showError(err);
        redraw();
      },
    });
  }

  function snapshotText(): string {
    if (t.gameOver) return tx("race.phase.gameOver");
    if (!t.started) return tx("conc.waitingSeats", { taken: t.players.length, total: t.seats || "?" });
    if (t.phase === Phase.WRITING) return tx("m5.snapWriting", { round: t.round, rounds: ROUNDS, n: t.me.links, categories: categoriesText(t) });
    if (t.phase === Phase.READING && t.combination) {
      return tx("m5.snapReading", { round: t.round, rounds: ROUNDS, combination: combinationText(t, t.combination),
        ballots: t.openBallots().map((b) => tx("m5.ballotLine", { n: b.ballot, text: ballotText(t, b) })).join("; ") });
    }
    return tx("m5.roundOf", { round: t.round, rounds: ROUNDS });
  }

  // --- drawing ---------------------------------------------------------------------------------
  function phaseName(): string {
    if (!t.received) return "connecting";
    if (t.expired) return "expired";
    switch (t.phase) {
      case Phase.WRITING: return "writing";
      case Phase.READING: return "reading";
      case Phase.GAME_OVER: return "over";
      default: return "waiting";
    }
  }

  function draw(): void {
    const phase = phaseName();
    const m5 = root.querySelector(".m5");
    m5?.setAttribute("data-phase", phase);
    m5?.setAttribute("data-round", String(t.round));
    m5?.setAttribute("data-combination", String(t.combination));
    setText(connEl, connection);
    setText(settingsEl, t.settings ? settingsText(t) : "");
    setText(roundEl, t.round ? tx("m5.roundOf", { round: t.round, rounds: ROUNDS }) : "");
    setText(phaseEl, {
      connecting: tx("race.connecting"), expired: tx("m5.expired"), writing: t.me.done ? tx("m5.doneWaiting") : tx("m5.theWriting"),
      reading: t.combination ? tx("m5.readingN", { n: t.combination }) : tx("m5.theReading"), over: tx("race.phase.gameOver"), waiting: tx("race.phase.waiting"),
    }[phase] ?? "");
    setText(myPoints, t.started ? tx("m5.yourPoints", { n: t.points(t.player) }) : "");
    drawWaiting();
    drawCategories();
    drawSheet();
    drawReading();
    drawDone();
    drawPlayers();
    drawScores();
    drawResults();
    drawGameOver();
    tick();
  }

  function drawWaiting(): void {
    const show = t.received && !t.started && !t.expired;
    waiting.hidden = !show;
    if (!show) return;
    const names = t.players.map((p) => (p.player === t.player ? tx("race.nameYou", { name: t.names.get(p.player) ?? seat.displayName }) : t.name(p.player)));
    const link = t.inviteCode ? pageLink(`#/play/${SLUG}/join/${t.inviteCode}`) : pageLink(`#/play/${SLUG}/${t.tableId}`);
    const key = `${names.join(",")}|${t.seats}|${t.inviteCode}`;
    if (waiting.dataset.content === key) return;
    waiting.dataset.content = key;
    const copy = h("button", { id: "copy-link", type: "button", onclick: () => {
      void navigator.clipboard?.writeText(link).then(() => say(tx("m5.copied")), () => say(tx("m5.copyByHand")));
    } }, tx("m5.copyLink"));
    fill(waiting,
      h("h2", { id: "waiting-heading" }, tx("race.phase.waiting")),
      h("p", { id: "seated" }, tx("m5.seated", { taken: t.players.length, total: t.seats || "?", names: names.join(", ") || tx("race.you") })),
      t.inviteCode
        ? h("p", {}, `${tx("m5.inviteFor")} `, h("strong", { id: "invite-code", class: "m5-invite" }, t.inviteCode))
        : h("p", {}, tx("m5.openTable")),
      h("p", {}, `${tx("m5.orSend")} `, h("a", { id: "invite-link", class: "m5-invite-link", href: link }, link), " ", copy));
  }

  function drawCategories(): void {
    const show = t.started && t.round > 0 && !t.gameOver;
    categories.hidden = !show;
    const key = `${t.round}|${t.categories.join("|")}`;
    if (!show || categories.dataset.content === key) return;
    categories.dataset.content = key;
    fill(categories, ...COLOURS.map((c, i) => h("li", { class: `m5-c-${c}`, "data-colour": c },
      h("span", { class: "muted" }, `${colourName(c)}: `), h("strong", {}, t.categories[i] ?? "?"))));
  }

  function drawSheet(): void {
    const show = t.phase === Phase.WRITING;
    sheetPanel.hidden = !show;
    if (!show) return;
    const key = `${t.round}|${t.categories.join("|")}`;
    if (sheet.dataset.content !== key) {
      sheet.dataset.content = key;
      fill(sheet, ...[...t.combinations.values()].map((c) => {
        const id = `link-${c.number}`;
        const input = h("input", {
          id, class: "link", type: "text", name: id, maxlength: MAX_LINK, autocomplete: "off", "data-combination": c.number,
          "aria-describedby": `saved-${c.number}`, value: c.link,
        });
        input.addEventListener("input", () => { input.dataset.dirty = "true"; setAttr(input, "data-state", "unsaved"); });
        input.addEventListener("change", () => void saveLink(c.number, input));
        const erase_ = h("button", { type: "button", class: "erase-link link", "data-combination": c.number,
          "aria-label": tx("m5.eraseLabel", { n: c.number }), onclick: () => void erase(c.number, input) }, tx("m5.erase"));
        const form = h("form", { class: "link-form", "data-combination": c.number, onsubmit: (ev: Event) => {
          ev.preventDefault();
          void saveLink(c.number, input).then(() => {
            const next = sheet.querySelector<HTMLInputElement>(`input.link[data-combination="${c.number + 1}"]`);
            if (next && document.activeElement === input) next.focus();
          });
        } },
        input,
        h("button", { type: "submit", class: "write-link", "aria-label": tx("m5.saveLabel", { n: c.number }) }, tx("m5.save")),
        erase_,
        h("span", { id: `saved-${c.number}`, class: "saved" }));
        return h("li", { "data-combination": c.number },
          h("label", { for: id, class: "m5-pair" },
            `${c.number}. `,
            h("span", { class: `m5-colour m5-c-${c.colours[0]}` }, c.categories[0] || colourName(c.colours[0])),
            " + ",
            h("span", { class: `m5-colour m5-c-${c.colours[1]}` }, c.categories[1] || colourName(c.colours[1])),
            h("small", {}, ` (${tx("m5.colours", { a: colourName(c.colours[0]), b: colourName(c.colours[1]) })})`)),
          form);
      }));
    }
    const locked = t.me.done;
    for (const input of sheet.querySelectorAll<HTMLInputElement>("input.link")) {
      const n = Number(input.dataset.combination);
      const link = t.combinations.get(n)?.link ?? "";
      const dirty = input.dataset.dirty === "true";
      if (!dirty && document.activeElement !== input && input.value !== link && !pending.has(n)) input.value = link;
      const state = pending.has(n) ? "sending" : dirty && input.value !== link ? "unsaved" : link ? "saved" : "empty";
      setAttr(input, "data-state", state);
      setAttr(input, "data-saved", link || null);
      input.readOnly = locked;
      setAttr(input, "aria-readonly", locked ? "true" : null);
      const savedEl = sheet.querySelector(`#saved-${n}`);
      if (savedEl) setText(savedEl, state === "sending" ? tx("m5.saving") : state === "unsaved" ? (link ? tx("m5.notSavedWas", { link }) : tx("m5.notSaved")) : link ? tx("m5.saved", { link }) : tx("m5.noLink"));
      const li = input.closest("li");
      for (const b of li?.querySelectorAll<HTMLButtonElement>("button") ?? []) setAttr(b, "aria-disabled", locked ? "true" : null);
      const eraseBtn = li?.querySelector<HTMLButtonElement>(".erase-link");
      if (eraseBtn) eraseBtn.hidden = !link;
    }
  }

  function drawReading(): void {
    const show = t.phase === Phase.READING && t.combination > 0;
    reading.hidden = !show;
    setAttr(reading, "data-combination", show ? String(t.combination) : null);
    setAttr(reading, "data-round", show ? String(t.round) : null);
    if (!show) { reading.dataset.content = ""; return; }
    const ballots = t.openBallots();
    const key = `${t.round}|${t.combination}|` + ballots.map((b) => `${b.ballot}:${b.yourVote}:${b.votes}`).join(",") + `|${t.myLinks().length}`;
    if (reading.dataset.content === key) return;
    reading.dataset.content = key;
    const active = document.activeElement as HTMLElement | null;
    const refocus = active && reading.contains(active) ? { ballot: active.closest("li")?.dataset.ballot, cls: active.className } : null;
    const c = t.combinations.get(t.combination);
    fill(reading,
      h("h2", { id: "reading-heading" }, `${tx("m5.combinationOf", { n: t.combination })} `,
        c ? h("span", { class: `m5-colour m5-c-${c.colours[0]}` }, c.categories[0] || colourName(c.colours[0])) : null, " + ",
        c ? h("span", { class: `m5-colour m5-c-${c.colours[1]}` }, c.categories[1] || colourName(c.colours[1])) : null),
      h("p", { class: "muted" }, tx("m5.readingHelp")),
      ballots.length
        ? h("ul", { class: "m5-ballots", "aria-label": tx("m5.ballotsOf", { n: t.combination }) }, ...ballots.map((b) => {
          const call = isCall(b);
          const mine = b.player === t.player;
          const canVote = !(call && mine);
          const voted = b.yourVote !== 0;
          const label = ballotText(t, b);
          const acceptWord = call ? tx("m5.agree") : tx("m5.accept");
          const rejectWord = call ? tx("m5.disagree") : tx("m5.contest");
          return h("li", { class: "ballot", "data-ballot": b.ballot, "data-call": call ? "true" : null, "data-mine": mine ? "true" : null, "data-your-vote": b.yourVote },
            h("div", {}, h("span", { class: "muted" }, `${tx("m5.ballotN", { n: b.ballot })}: `), h("span", { class: "text" }, label)),
            h("div", { class: "muted" }, tx("m5.votesCast", { n: b.votes }) + (voted ? `. ${voteText(b.yourVote, call)}` : "")),
            h("div", { class: "votes" },
              canVote ? h("button", { type: "button", class: "vote-accept", "aria-pressed": b.yourVote === ACCEPT ? "true" : "false",
                "aria-disabled": voted ? "true" : null, "aria-label": tx("m5.voteLabel2", { word: acceptWord, n: b.ballot, label }),
                onclick: () => { if (!voted) void vote(b.ballot, true); } }, acceptWord) : h("span", { class: "muted" }, tx("m5.othersVote")),
              canVote ? h("button", { type: "button", class: "vote-reject", "aria-pressed": b.yourVote === CONTEST ? "true" : "false",
                "aria-disabled": voted ? "true" : null, "aria-label": tx("m5.voteLabel2", { word: rejectWord, n: b.ballot, label }),
                onclick: () => { if (!voted) void vote(b.ballot, false); } }, rejectWord) : null,
              t.canCall(b) ? h("button", { type: "button", class: "call-match", "aria-label": tx("m5.callLabel", { n: b.ballot }),
                onclick: () => void callMatch(b.ballot) }, tx("m5.matchBang")) : null));
        }))
        : h("p", {}, tx("m5.nobodyLink")));
    if (refocus) {
      const again = refocus.ballot
        ? reading.querySelector<HTMLElement>(`li[data-ballot="${refocus.ballot}"] .${refocus.cls.split(" ")[0]}`)
        : null;
      (again ?? reading.querySelector<HTMLElement>("button") ?? doneButton).focus();
    }
  }

  function drawDone(): void {
    const writing = t.phase === Phase.WRITING;
    const readingOpen = t.phase === Phase.READING && t.combination > 0;
    doneButton.hidden = !(writing || readingOpen);
    const doneAlready = t.me.done;
    setText(doneButton, writing ? (doneAlready ? tx("m5.doneWriting") : tx("m5.doneRead")) : tx("m5.doneWith", { n: t.combination }));
    setAttr(doneButton, "aria-disabled", doneAlready ? "true" : null);
    setAttr(doneButton, "aria-describedby", "done-help");
    const left = readingOpen ? t.toVote().length : 0;
    setText(doneHelp, writing
      ? (doneAlready ? tx("m5.help.doneWriting") : tx("m5.help.writing"))
      : readingOpen
        ? (doneAlready ? tx("m5.help.doneReading") : left ? tx("m5.help.left", { n: left }) : tx("m5.help.voted"))
        : "");
    doneHelp.hidden = !(writing || readingOpen);
  }

  function drawPlayers(): void {
    const key = JSON.stringify([t.phase, t.combination, t.players, t.seats, [...t.names]]);
    if (players.dataset.content === key) return;
    players.dataset.content = key;
    const rows = t.players.map((p) => {
      const now = t.phase === Phase.WRITING
        ? tx("m5.linksOf", { n: p.links, done: p.done ? "yes" : "no" })
        : t.phase === Phase.READING && t.combination ? (p.done ? tx("race.status.done") : tx("m5.voting")) : t.started ? "" : tx("m5.seatedWord");
      return h("tr", { "data-player": p.player, class: p.player === t.player ? "me" : "" },
        h("th", { scope: "row" }, p.player === t.player ? tx("race.youName", { name: t.names.get(p.player) ?? seat.displayName }) : t.name(p.player)),
        h("td", {}, now),
        h("td", { class: "num" }, String(t.points(p.player))));
    });
    fill(players, h("table", { class: "grid-table" },
      h("caption", { class: "sr-only" }, tx("m5.everyPlayer")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, tx("race.col.player")), h("th", { scope: "col" }, tx("race.col.now")), h("th", { scope: "col" }, tx("m5.col.points")))),
      h("tbody", {}, ...rows)));
  }

  function drawScores(): void {
    const key = String(t.rounds.length);
    if (scores.dataset.content === key) return;
    scores.dataset.content = key;
    if (!t.rounds.length) { fill(scores); return; }
    const ids = t.rounds[0]!.scores.map((s) => s.player);
    fill(scores, h("section", { class: "panel", "aria-labelledby": "scores-heading" },
      h("h2", { id: "scores-heading" }, tx("m5.scoreBoxes")),
      h("table", { class: "grid-table", id: "score-boxes" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, tx("race.col.player")),
          ...t.rounds.map((r) => h("th", { scope: "col" }, tx("m5.roundN", { n: r.round }))), h("th", { scope: "col" }, tx("m5.col.total")))),
        h("tbody", {}, ...ids.map((id) => h("tr", { "data-player": id },
          h("th", { scope: "row" }, t.name(id)),
          ...t.rounds.map((r) => {
            const s = r.scores.find((x) => x.player === id);
            return h("td", { class: "num" }, s ? tx("m5.boxCell", { points: s.points, n: s.matching }) : "-");
          }),
          h("td", { class: "num" }, String(t.rounds[t.rounds.length - 1]!.scores.find((x) => x.player === id)?.total ?? 0))))))));
  }

  function drawResults(): void {
    const key = String(t.closed.length);
    if (results.dataset.content === key) return;
    results.dataset.content = key;
    const withLinks = t.closed.filter((c) => c.results.length);
    if (!withLinks.length) { fill(results); return; }
    fill(results, h("details", { class: "panel", id: "results-list" },
      h("summary", {}, tx("m5.readSoFar", { n: withLinks.length })),
      h("ol", { class: "m5-results", reversed: true }, ...[...withLinks].reverse().map((c) => {
        const [head, ...rest] = closedLines(t, c);
        return h("li", { "data-round": c.round, "data-combination": c.combination }, `${tx("m5.roundN", { n: c.round })}: ${head}`, h("ul", {}, ...rest.map((l) => h("li", {}, l))));
      }))));
  }

  function drawGameOver(): void {
    const over = t.gameOver;
    gameOver.hidden = !over;
    if (!over) return;
    app.store.markFinished(t.tableId);
    const gameId = t.gameId || t.tableId;
    const key = `${t.seed?.length ?? 0}|${gameId}|${t.standings.length}`;
    if (gameOver.dataset.content === key) return;
    gameOver.dataset.content = key;
    const winners = t.winners().map((p) => t.name(p));
    const boxes = new Map<string, number[]>();
    for (const r of t.rounds) for (const s of r.scores) boxes.set(s.player, [...(boxes.get(s.player) ?? []), s.points]);
    fill(gameOver,
      h("h2", { id: "game-over-heading" }, tx("race.phase.gameOver")),
      h("ol", { class: "standings", id: "standings" }, ...t.standings.map((s) => {
        const box = boxes.get(s.player) ?? [];
        return h("li", { "data-player": s.player, "data-place": s.place },
          tx("m5.standing", { place: s.place, name: t.name(s.player), points: s.points, box: box.length > 1 ? ` (${box.join(" + ")})` : "", matching: s.matching }));
      })),
      winners.length === 1 ? h("p", { id: "winner" }, tx("m5.winner", { name: winners[0]! }))
        : winners.length ? h("p", { id: "winner" }, tx("m5.sharing", { names: winners.join(", ") })) : null,
      ...seedBlock({
        seed: t.seed, commitment: t.commitment, gameId, named: tx("nm.gameSeed"), verify: true,
        again: tx("m5.again"),
      }),
      rematch.el,
      h("p", {}, h("a", { href: `#/play/${SLUG}` }, tx("race.playAgain"))));
    rematch.over();
    if (!finishedSaid) {
      finishedSaid = true;
      const focusedInside = document.activeElement && root.contains(document.activeElement) && (document.activeElement as HTMLElement).offsetParent === null;
      if (focusedInside || document.activeElement === document.body) gameOver.focus();
    }
  }

  let lastWidth = "";
  function tick(): void {
    const now = clock.synced ? clock.now() : t.serverTimeMs;
    setText(timerEl, timerText(t, now));
    const writing = t.phase === Phase.WRITING;
    const voting = t.phase === Phase.READING && t.combination > 0;
    const running = (writing || voting) && t.deadlineMs > 0;
    const length = (writing ? t.writingSeconds : t.voteSeconds) * 1000;
    const left = running ? Math.max(0, t.deadlineMs - now) : 0;
    setAttr(timerEl, "data-left-ms", running ? String(Math.round(left)) : null);
    const width = running ? `${Math.min(100, (left / length) * 100).toFixed(1)}%` : "0%";
    if (width !== lastWidth) { lastWidth = width; bar.style.width = width; }
    if (!running || !clock.synced) return;
    for (const mark of writing ? WRITING_MARKS : VOTE_MARKS) {
      const id = `${t.deadlineMs}|${mark}`;
      if (left <= mark * 1000 && !said.has(id)) {
        said.add(id);
        if (left > 0 && mark * 1000 < length && left > (mark - 3) * 1000) {
          say(writing ? tx("m5.sandLeft", { left: clockText(left) }) : tx("m5.voteLeft", { n: t.combination, left: clockText(left) }));
        }
      }
    }
  }

  const timer = setInterval(tick, TICK_MS);
  draw();
  void watch();
  return () => {
    abort.abort();
    clearInterval(timer);
    rematch.stop();
  };
}
