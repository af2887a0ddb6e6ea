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
import { clockText, count } from "../play/words";
import { bearer, clockLeft, command, refusalCode } from "../rpc";
import type { KeptSeat } from "../store";
import { ballotText, categoriesText, closedLines, combinationText, eventLines, settingsText, timerText, voteText } from "./describe";
import { ACCEPT, COLOURS, CONTEST, isCall, MatchFiveTracker, MAX_LINK, Phase, ROUNDS } from "./tracker";

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
  return s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;
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
  const submit = h("button", { id: "join-game", type: "submit" }, "Join the table");
  const go = submitting(app, error, () => [submit], async () => {
    const typed = codeInput.value.trim();
    if (!typed) {
      codeInput.focus();
      throw new FormProblem("Type the invite code a friend gave you");
    }
    const displayName = chooseName(app.store, name.value);
    const tableId = await join(app, displayName, { case: "inviteCode", value: typed.toUpperCase() });
    app.navigate(`#/play/${SLUG}/${tableId}`);
  });
  return h("form", { id: "join-form", class: "panel m5-setup", onsubmit: go },
    h("h2", {}, "Join with a code"),
    h("label", { for: "join-code" }, "Invite code"),
    codeInput,
    h("p", { id: "join-help", class: "muted" }, "The code the table's host shares, 12 letters and digits, e.g. K7QM4XRAP2HW."),
    submit);
}

// --- the setup ---------------------------------------------------------------------------------

function mountSetup(root: HTMLElement, app: App, code: string): () => void {
  const name = nameField(app.store);
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const seats = h("select", { id: "seats", name: "seats" }, ...options([2, 3, 4, 5, 6, 7, 8], 3, (v) => `${v} players`));
  const writing = h("select", { id: "writing-seconds", name: "writing-seconds" }, ...options(WRITING_CHOICES, 180, seconds));
  const vote = h("select", { id: "vote-seconds", name: "vote-seconds" }, ...options(VOTE_CHOICES, 45, seconds));
  const priv = h("input", { id: "private", type: "checkbox", checked: true });
  const submit = h("button", { id: "create-game", type: "submit", class: "primary" }, "Make the table");

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
      h("p", {}, "The party word game for 2 to 8. Five dice give five categories; while the sand timer runs, write a link for each ",
        "of the 10 pairs of colours (a carnivore that lives in water? Shark!). Then the table reads them, one combination at a time, ",
        "and votes: an accepted link scores 1, a link that matches another's scores 2. Two rounds."),
      h("label", { for: "display-name" }, "Your name at the table"),
      name,
      error),
    h("form", { id: "new-table", class: "panel m5-setup", onsubmit: create },
      h("h2", {}, "A new table"),
      h("div", { class: "fields" },
        h("label", {}, "Players ", seats),
        h("label", {}, "Sand timer ", writing),
        h("label", {}, "Vote on each combination ", vote)),
      h("label", { class: "check" }, priv, " Private: friends join with the invite code (otherwise the table is listed)"),
      submit),
    joinForm(app, name, code, error),
    seatsGoing(app.store, SLUG, "Your tables", (s) => `as ${s.displayName}, seat ${s.seat}`),
    backLinks());
  name.focus();
  return () => {};
}

/** A table this browser holds no seat at: join it (an open table by its id, a private one by code). */
function mountJoin(root: HTMLElement, app: App, tableId: string): () => void {
  const name = nameField(app.store);
  const error = h("p", { id: "setup-error", class: "error", role: "alert" });
  const submit = h("button", { id: "join-table", type: "submit", class: "primary" }, "Take a seat at this table");
  const go = submitting(app, error, () => [submit], async () => {
    const displayName = chooseName(app.store, name.value);
    await join(app, displayName, { case: "tableId", value: tableId });
    app.navigate(`#/play/${SLUG}/${tableId}`);
  });
  fill(root,
    h("form", { id: "join-by-id", class: "panel m5-setup", onsubmit: go },
      h("h1", {}, TITLE),
      h("p", {}, `This browser holds no seat at table ${tableId} yet. Take one (an open table), or join with its invite code below.`),
      h("label", { for: "display-name" }, "Your name at the table"),
      name,
      error,
      submit),
    joinForm(app, name, "", error),
    backLinks(h("a", { href: `#/play/${SLUG}` }, "A new table")));
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
  let connection = "Connecting...";
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
  const categories = h("ul", { id: "categories", class: "m5-categories", "aria-label": "This round's categories" });
  const sheet = h("ol", { id: "sheet", class: "m5-sheet", "aria-label": "Your links: one for each pair of colours" });
  const sheetPanel = h("section", { id: "writing", class: "panel", hidden: true, "aria-labelledby": "writing-heading" },
    h("h2", { id: "writing-heading" }, "Write your links"),
    h("p", { class: "muted" }, `One link for each combination: a word or a few that fit both categories. Enter saves it (emptied: erased); at most ${MAX_LINK} characters; `,
      "each link only once in the game."),
    sheet);
  const doneButton = h("button", { id: "done", type: "button", class: "primary", onclick: () => void done() }, "Done");
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
    h("section", { class: "panel", "aria-labelledby": "players-heading" }, h("h2", { id: "players-heading" }, "Players"), players),
    scores,
    results,
    log.details(),
    backLinks(h("a", { href: `#/play/${SLUG}` }, "A new table"))));

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
        } else if (got !== null) {
          took(got);
          if (got.body.case === "table" && got.body.value.event.case === "playerSeated" && !t.started) void noteTable();
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
    if (t.gameOver) return "The game is over";
    if (!t.started) return `Waiting for players: ${t.players.length} of ${t.seats || "?"} seats taken`;
    if (t.phase === Phase.WRITING) return `Round ${t.round} of ${ROUNDS}, the writing: ${count(t.me.links, "link")} written. Categories: ${categoriesText(t)}`;
    if (t.phase === Phase.READING && t.combination) {
      return `Round ${t.round} of ${ROUNDS}, reading combination ${combinationText(t, t.combination)}: ` +
        t.openBallots().map((b) => `ballot ${b.ballot}: ${ballotText(t, b)}`).join("; ");
    }
    return `Round ${t.round} of ${ROUNDS}`;
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
    setText(roundEl, t.round ? `Round ${t.round} of ${ROUNDS}` : "");
    setText(phaseEl, {
      connecting: "Connecting...", expired: "The table expired", writing: t.me.done ? "Done writing: waiting for the others" : "The writing",
      reading: t.combination ? `Reading combination ${t.combination} of 10` : "The reading", over: "The game is over", waiting: "Waiting for players",
    }[phase] ?? "");
    setText(myPoints, t.started ? `Your points: ${t.points(t.player)}` : "");
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
    const names = t.players.map((p) => (p.player === t.player ? `${t.names.get(p.player) ?? seat.displayName} (you)` : t.name(p.player)));
    const link = t.inviteCode ? pageLink(`#/play/${SLUG}/join/${t.inviteCode}`) : pageLink(`#/play/${SLUG}/${t.tableId}`);
    const key = `${names.join(",")}|${t.seats}|${t.inviteCode}`;
    if (waiting.dataset.content === key) return;
    waiting.dataset.content = key;
    const copy = h("button", { id: "copy-link", type: "button", onclick: () => {
      void navigator.clipboard?.writeText(link).then(() => say("The link is copied"), () => say("Copy the link by hand: the browser would not"));
    } }, "Copy the link");
    fill(waiting,
      h("h2", { id: "waiting-heading" }, "Waiting for players"),
      h("p", { id: "seated" }, `${t.players.length} of ${t.seats || "?"} seats taken: ${names.join(", ") || "you"}. The game starts when every seat is taken.`),
      t.inviteCode
        ? h("p", {}, "Invite code for your friends: ", h("strong", { id: "invite-code", class: "m5-invite" }, t.inviteCode))
        : h("p", {}, "An open table: anybody may take a seat from its link."),
      h("p", {}, "Or send them this link: ", h("a", { id: "invite-link", class: "m5-invite-link", href: link }, link), " ", copy));
  }

  function drawCategories(): void {
    const show = t.started && t.round > 0 && !t.gameOver;
    categories.hidden = !show;
    const key = `${t.round}|${t.categories.join("|")}`;
    if (!show || categories.dataset.content === key) return;
    categories.dataset.content = key;
    fill(categories, ...COLOURS.map((c, i) => h("li", { class: `m5-c-${c}`, "data-colour": c },
      h("span", { class: "muted" }, `${c}: `), h("strong", {}, t.categories[i] ?? "?"))));
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
          "aria-label": `Erase your link for combination ${c.number}`, onclick: () => void erase(c.number, input) }, "Erase");
        const form = h("form", { class: "link-form", "data-combination": c.number, onsubmit: (ev: Event) => {
          ev.preventDefault();
          void saveLink(c.number, input).then(() => {
            const next = sheet.querySelector<HTMLInputElement>(`input.link[data-combination="${c.number + 1}"]`);
            if (next && document.activeElement === input) next.focus();
          });
        } },
        input,
        h("button", { type: "submit", class: "write-link", "aria-label": `Save your link for combination ${c.number}` }, "Save"),
        erase_,
        h("span", { id: `saved-${c.number}`, class: "saved" }));
        return h("li", { "data-combination": c.number },
          h("label", { for: id, class: "m5-pair" },
            `${c.number}. `,
            h("span", { class: `m5-colour m5-c-${c.colours[0]}` }, c.categories[0] || c.colours[0]),
            " + ",
            h("span", { class: `m5-colour m5-c-${c.colours[1]}` }, c.categories[1] || c.colours[1]),
            h("small", {}, ` (${c.colours[0]} and ${c.colours[1]})`)),
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
      if (savedEl) setText(savedEl, state === "sending" ? "Saving..." : state === "unsaved" ? (link ? `Not saved yet (saved: ${link})` : "Not saved yet: press Enter") : link ? `Saved: ${link}` : "No link yet");
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
      h("h2", { id: "reading-heading" }, `Combination ${t.combination} of 10: `,
        c ? h("span", { class: `m5-colour m5-c-${c.colours[0]}` }, c.categories[0] || c.colours[0]) : null, " + ",
        c ? h("span", { class: `m5-colour m5-c-${c.colours[1]}` }, c.categories[1] || c.colours[1]) : null),
      h("p", { class: "muted" }, "Accept a link that fits both categories, contest one that does not. Links the server found equal share a group: ",
        "they match. \"Match!\" asks the table to count another's link as the same as yours."),
      ballots.length
        ? h("ul", { class: "m5-ballots", "aria-label": `The ballots of combination ${t.combination}` }, ...ballots.map((b) => {
          const call = isCall(b);
          const mine = b.player === t.player;
          const canVote = !(call && mine);
          const voted = b.yourVote !== 0;
          const label = ballotText(t, b);
          const acceptWord = call ? "Agree" : "Accept";
          const rejectWord = call ? "Disagree" : "Contest";
          return h("li", { class: "ballot", "data-ballot": b.ballot, "data-call": call ? "true" : null, "data-mine": mine ? "true" : null, "data-your-vote": b.yourVote },
            h("div", {}, h("span", { class: "muted" }, `Ballot ${b.ballot}: `), h("span", { class: "text" }, label)),
            h("div", { class: "muted" }, `${count(b.votes, "vote")} cast${voted ? ". " + voteText(b.yourVote, call) : ""}`),
            h("div", { class: "votes" },
              canVote ? h("button", { type: "button", class: "vote-accept", "aria-pressed": b.yourVote === ACCEPT ? "true" : "false",
                "aria-disabled": voted ? "true" : null, "aria-label": `${acceptWord} ballot ${b.ballot}: ${label}`,
                onclick: () => { if (!voted) void vote(b.ballot, true); } }, acceptWord) : h("span", { class: "muted" }, "The others vote on your call"),
              canVote ? h("button", { type: "button", class: "vote-reject", "aria-pressed": b.yourVote === CONTEST ? "true" : "false",
                "aria-disabled": voted ? "true" : null, "aria-label": `${rejectWord} ballot ${b.ballot}: ${label}`,
                onclick: () => { if (!voted) void vote(b.ballot, false); } }, rejectWord) : null,
              t.canCall(b) ? h("button", { type: "button", class: "call-match", "aria-label": `Match! Call ballot ${b.ballot} a match of your link`,
                onclick: () => void callMatch(b.ballot) }, "Match!") : null));
        }))
        : h("p", {}, "Nobody wrote a link for it."));
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
    setText(doneButton, writing ? (doneAlready ? "Done writing" : "Done writing: read the links") : `Done with combination ${t.combination}`);
    setAttr(doneButton, "aria-disabled", doneAlready ? "true" : null);
    setAttr(doneButton, "aria-describedby", "done-help");
    const left = readingOpen ? t.toVote().length : 0;
    setText(doneHelp, writing
      ? (doneAlready ? "You are done: the reading starts once everybody is, or when the sand timer runs out." : "When your links are written: the reading starts once everybody is done.")
      : readingOpen
        ? (doneAlready ? "Done: the next combination opens once everybody is, or when its timer runs out." : left ? `${count(left, "ballot")} left to vote on. Done when you have voted.` : "You have voted: press Done for the next combination.")
        : "");
    doneHelp.hidden = !(writing || readingOpen);
  }

  function drawPlayers(): void {
    const key = JSON.stringify([t.phase, t.combination, t.players, t.seats, [...t.names]]);
    if (players.dataset.content === key) return;
    players.dataset.content = key;
    const rows = t.players.map((p) => {
      const now = t.phase === Phase.WRITING
        ? `${p.links} of 10 links${p.done ? ", done writing" : ""}`
        : t.phase === Phase.READING && t.combination ? (p.done ? "done" : "voting") : t.started ? "" : "seated";
      return h("tr", { "data-player": p.player, class: p.player === t.player ? "me" : "" },
        h("th", { scope: "row" }, p.player === t.player ? `You (${t.names.get(p.player) ?? seat.displayName})` : t.name(p.player)),
        h("td", {}, now),
        h("td", { class: "num" }, String(t.points(p.player))));
    });
    fill(players, h("table", { class: "grid-table" },
      h("caption", { class: "sr-only" }, "Every player at the table"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Now"), h("th", { scope: "col" }, "Points"))),
      h("tbody", {}, ...rows)));
  }

  function drawScores(): void {
    const key = String(t.rounds.length);
    if (scores.dataset.content === key) return;
    scores.dataset.content = key;
    if (!t.rounds.length) { fill(scores); return; }
    const ids = t.rounds[0]!.scores.map((s) => s.player);
    fill(scores, h("section", { class: "panel", "aria-labelledby": "scores-heading" },
      h("h2", { id: "scores-heading" }, "Score boxes"),
      h("table", { class: "grid-table", id: "score-boxes" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Player"),
          ...t.rounds.map((r) => h("th", { scope: "col" }, `Round ${r.round}`)), h("th", { scope: "col" }, "Total"))),
        h("tbody", {}, ...ids.map((id) => h("tr", { "data-player": id },
          h("th", { scope: "row" }, t.name(id)),
          ...t.rounds.map((r) => {
            const s = r.scores.find((x) => x.player === id);
            return h("td", { class: "num" }, s ? `${s.points} (${count(s.matching, "match", "matches")})` : "-");
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
      h("summary", {}, `The combinations read so far (${withLinks.length})`),
      h("ol", { class: "m5-results", reversed: true }, ...[...withLinks].reverse().map((c) => {
        const [head, ...rest] = closedLines(t, c);
        return h("li", { "data-round": c.round, "data-combination": c.combination }, `Round ${c.round}: ${head}`, h("ul", {}, ...rest.map((l) => h("li", {}, l))));
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
      h("h2", { id: "game-over-heading" }, "The game is over"),
      h("ol", { class: "standings", id: "standings" }, ...t.standings.map((s) => {
        const box = boxes.get(s.player) ?? [];
        return h("li", { "data-player": s.player, "data-place": s.place },
          `${s.place}. ${t.name(s.player)}: ${count(s.points, "point")}${box.length > 1 ? ` (${box.join(" + ")})` : ""}, ${count(s.matching, "matching link")}`);
      })),
      winners.length === 1 ? h("p", { id: "winner" }, `The winner: ${winners[0]}`)
        : winners.length ? h("p", { id: "winner" }, `Sharing the victory: ${winners.join(", ")}`) : null,
      ...seedBlock({
        seed: t.seed, commitment: t.commitment, gameId, named: "The game's seed", verify: true,
        again: "roll the dice again from the seed and re-run every vote",
      }),
      rematch.el,
      h("p", {}, h("a", { href: `#/play/${SLUG}` }, "Play again")));
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
          say(writing ? `The sand timer: ${clockText(left)} left` : `The vote on combination ${t.combination}: ${clockText(left)} left`);
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
