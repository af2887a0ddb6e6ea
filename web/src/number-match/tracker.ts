/**
 * NumberMatchTracker: the player's Number Match table, kept up to date from what the server
 * sends. A port of libs/match_client/number_match.py's NumberMatchTracker (with
 * following.py's TableFollower), the reference for what each event means. Pure: no I/O, no
 * clock, no DOM.
 *
 * Feed it the Watch stream (`applyWatch`) and each command's reply (`applyReply`: its events,
 * then the view after them). A snapshot or a reply's view wins; events are folded with the
 * board's rules (board.ts), an undo from the boards kept before each move. An undo it has no
 * board for (right after a snapshot) leaves it `stale` until the next view.
 */

import { t } from "../i18n";
import type { EventEnvelope, TableEvent } from "../gen/match/v1/common_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import {
  NumberMatchEvent_HintKind,
  NumberMatchEvent_Outcome,
  NumberMatchEvent_Undone,
  NumberMatchSettings_Level,
  NumberMatchView_Phase,
  type NumberMatchEvent,
  type NumberMatchSettings,
  type NumberMatchView,
} from "../gen/match/v1/number_match_pb";
import type { NumberMatchServiceWatchResponse } from "../gen/match/v1/number_match_service_pb";
import { InOrder } from "../play/follow";
import { addNumbers, removePair } from "./board";

export const HintKind = NumberMatchEvent_HintKind;
export const Outcome = NumberMatchEvent_Outcome;
export const Undone = NumberMatchEvent_Undone;
export const Level = NumberMatchSettings_Level;
export const Phase = NumberMatchView_Phase;

export const HINTS = 3;

/** Each level's numbers at the start and additions (null: no limit). */
export const LEVELS: Record<string, { value: NumberMatchSettings_Level; numbers: number; additions: number | null }> = {
  easy: { value: Level.EASY, numbers: 27, additions: 5 },
  medium: { value: Level.MEDIUM, numbers: 36, additions: 5 },
  hard: { value: Level.HARD, numbers: 45, additions: 4 },
  expert: { value: Level.EXPERT, numbers: 54, additions: 3 },
  classic: { value: Level.CLASSIC, numbers: 27, additions: null },
};

const OUTCOME_KEYS: Record<number, string> = {
  [Outcome.CLEARED]: "nm.outcome.cleared",
  [Outcome.NO_MOVES]: "nm.outcome.noMoves",
  [Outcome.GAVE_UP]: "nm.outcome.gaveUp",
  [Outcome.IDLE]: "nm.outcome.idle",
};

/** How a game ended, in a few words (in the player's language). */
export function outcomeText(outcome: number): string {
  const key = OUTCOME_KEYS[outcome];
  return key ? t(key) : t("nm.outcome.over");
}

export interface Step {
  readonly add: boolean;
  readonly first: number;
  readonly second: number;
}

export interface Hint {
  readonly kind: NumberMatchEvent_HintKind;
  readonly first: number;
  readonly second: number;
}

interface Before {
  readonly board: number[];
  readonly additionsLeft: number | null;
}

/** `easy` .. `classic`; unset: easy, or hard for a daily puzzle (the server's default). */
export function levelName(settings: { level: NumberMatchSettings_Level; dailyDate: string } | null | undefined): string {
  if (!settings || !settings.level) return settings?.dailyDate ? "hard" : "easy";
  return Object.entries(LEVELS).find(([, l]) => l.value === settings.level)?.[0] ?? "easy";
}

export class NumberMatchTracker {
  private order = new InOrder(); // events folded in number order, each once
  player: string;
  tableId: string;
  gameId = "";
  serverTimeMs = 0;
  displayName = "";
  settings: NumberMatchSettings | null = null;
  /** Anything (a snapshot or an event) folded yet. */
  received = false;
  started = false;
  gameOver = false;
  board: number[] = [];
  startBoard: number[] = [];
  additions: number | null = null;
  additionsLeft: number | null = null;
  hintsLeft = 0;
  score = 0;
  moves = 0;
  startedAtMs = 0;
  hint: Hint | null = null;
  outcome: NumberMatchEvent_Outcome = Outcome.UNSPECIFIED;
  timeMs = 0;
  hintsUsed: number | null = null;
  witnessCommitment = "";
  witness: Step[] = [];
  replay = false;
  commitment = "";
  dealVersion = "";
  seed: Uint8Array | null = null;
  /** The folded board may be wrong (an undo with no board kept): the next view puts it right. */
  stale = false;
  /** The numbers of the last pair folded. */
  lastPair: [number, number] = [0, 0];
  /** Rows the last pair removed. */
  lastRowsRemoved = 0;
  private history: Before[] = [];

  constructor(player = "", tableId = "") {
    this.player = player;
    this.tableId = tableId;
  }

  // --- derived ---------------------------------------------------------------------------------

  /** Every event up to this one has been folded (or a snapshot covered it). */
  get eventNumber(): number {
    return this.order.eventNumber;
  }

  get level(): string {
    return levelName(this.settings);
  }

  get dailyDate(): string {
    return this.settings?.dailyDate ?? "";
  }

  get canUndo(): boolean {
    return this.moves > 0 && !this.gameOver;
  }

  get cleared(): boolean {
    return this.outcome === Outcome.CLEARED;
  }

  get usedHints(): number {
    return this.hintsUsed ?? HINTS - this.hintsLeft;
  }

  get playing(): boolean {
    return this.started && !this.gameOver;
  }

  /** The cells of the last hint's pair, while it applies. */
  hinted(): [number, number] | null {
    if (this.hint === null || this.hint.kind !== HintKind.PAIR) return null;
    return [this.hint.first, this.hint.second];
  }

  /** The time counter: from the start, stopped at the end. */
  elapsedMs(nowMs: number): number {
    if (this.gameOver) return this.timeMs;
    if (!this.startedAtMs) return 0;
    return Math.max(0, nowMs - this.startedAtMs);
  }

  // --- folding ---------------------------------------------------------------------------------

  noteTable(table: Table): void {
    for (const s of table.taken) if (s.playerId === this.player) this.displayName = s.displayName;
    this.commitment = this.commitment || table.commitment;
    this.gameId = this.gameId || table.gameId;
    if (table.settings.case === "numberMatch" && !this.started) this.settings = table.settings.value;
  }

  /** The table as the server sees it (a Watch snapshot, or a reply's view): everything wins. */
  applySnapshot(view: NumberMatchView): void {
    const board = [...view.board];
    if (board.join(",") !== this.board.join(",")) this.history = [];
    this.received = true;
    this.tableId = view.tableId || this.tableId;
    this.order.reset(Math.max(this.eventNumber, Number(view.eventNumber)));
    this.serverTimeMs = Number(view.serverTimeMs) || this.serverTimeMs;
    this.player = view.you || this.player;
    if (view.settings) this.settings = view.settings;
    this.started = view.phase !== Phase.WAITING_FOR_PLAYERS && view.phase !== Phase.UNSPECIFIED;
    this.gameOver = view.phase === Phase.GAME_OVER;
    this.board = board;
    this.additionsLeft = view.additionsLeft ?? null;
    this.additions = LEVELS[levelName(view.settings)]?.additions ?? null;
    this.hintsLeft = view.hintsLeft;
    this.score = view.score;
    this.moves = view.moves;
    this.startedAtMs = Number(view.startedAtMs) || this.startedAtMs;
    this.hint = view.hint && view.hint.kind ? { kind: view.hint.kind, first: view.hint.first, second: view.hint.second } : null;
    this.outcome = view.outcome;
    this.timeMs = Number(view.timeMs);
    this.witnessCommitment = view.witnessCommitment || this.witnessCommitment;
    const witness = view.witness.map((s) => ({ add: s.add, first: s.first, second: s.second }));
    if (witness.length) this.witness = witness;
    this.replay = view.replay;
    this.commitment = view.commitment || this.commitment;
    if (view.seed !== undefined && view.seed.length) this.seed = view.seed;
    this.stale = false;
  }

  /** A reply's view, unless the stream has already brought later events; true if applied. */
  applyView(view: NumberMatchView | undefined): boolean {
    if (view === undefined || !view.eventNumber) return false;
    if (Number(view.eventNumber) < this.eventNumber) return false;
    this.applySnapshot(view);
    return true;
  }

  /** Fold one event (and any it was the missing one before); true if anything was folded. */
  applyEvent(env: EventEnvelope): boolean {
    return this.applyEvents([env]).length > 0;
  }

  /**
   * Fold each event once its turn comes: in number order, once, and one after a gap only when
   * the events before it are here (a reply and the stream may bring them in either order).
   * `each` is called right after each is folded, so it can be told as things stood then.
   * The events folded now, in order.
   */
  applyEvents(envs: Iterable<EventEnvelope>, each?: (env: EventEnvelope) => void): EventEnvelope[] {
    const sorted = [...envs].sort((a, b) => Number(a.eventNumber - b.eventNumber));
    return this.order.foldAll(sorted, (env) => {
      this.fold(env);
      each?.(env);
    });
  }

  /** One item of the Watch stream: "snapshot", or the events it let fold (none, one, or more). */
  applyWatch(item: NumberMatchServiceWatchResponse, each?: (env: EventEnvelope) => void): EventEnvelope[] | "snapshot" {
    if (item.item.case === "snapshot") {
      this.applySnapshot(item.item.value);
      return "snapshot";
    }
    if (item.item.case === "event") return this.applyEvents([item.item.value], each);
    return [];
  }

  private fold(env: EventEnvelope): void {
    this.received = true;
    this.serverTimeMs = Number(env.serverTimeMs) || this.serverTimeMs;
    if (env.gameId) this.gameId = env.gameId;
    if (env.body.case === "table") this.table(env.body.value);
    else if (env.body.case === "numberMatch") this.game(env.body.value);
  }

  /** A command's reply: its events (the new ones are returned), then the table after them. */
  applyReply(reply: { events: EventEnvelope[]; view?: NumberMatchView }): EventEnvelope[] {
    const fresh = this.applyEvents(reply.events);
    this.applyView(reply.view);
    return fresh;
  }

  private table(e: TableEvent): void {
    switch (e.event.case) {
      case "tableCreated":
        if (e.event.value.settings.case === "numberMatch" && !this.started) this.settings = e.event.value.settings.value;
        break;
      case "playerSeated":
        if (e.event.value.playerId === this.player) this.displayName = e.event.value.displayName;
        break;
      case "seedCommitted":
        this.commitment = e.event.value.commitment;
        this.dealVersion = e.event.value.dealVersion;
        break;
      case "seedRevealed":
        this.seed = e.event.value.seed;
        break;
      default:
        break;
    }
  }

  private moved(): void {
    this.history.push({ board: this.board, additionsLeft: this.additionsLeft });
    this.moves += 1;
    this.hint = null;
  }

  private game(event: NumberMatchEvent): void {
    const ev = event.event;
    switch (ev.case) {
      case "gameStarted": {
        const e = ev.value;
        this.started = true;
        if (e.settings) this.settings = e.settings;
        this.dealVersion = e.dealVersion || this.dealVersion;
        this.board = [...e.board];
        this.startBoard = [...e.board];
        this.additions = e.additions ?? null;
        this.additionsLeft = this.additions;
        this.hintsLeft = e.hints;
        this.startedAtMs = Number(e.at);
        this.witnessCommitment = e.witnessCommitment;
        this.replay = e.replay;
        this.score = 0;
        this.moves = 0;
        this.history = [];
        this.hint = null;
        break;
      }
      case "cellsPaired": {
        const e = ev.value;
        const before = this.board;
        this.moved();
        this.lastPair = [before[e.first - 1] ?? 0, before[e.second - 1] ?? 0];
        this.lastRowsRemoved = e.rowsRemoved;
        try {
          this.board = removePair(before, e.first - 1, e.second - 1).board;
        } catch {
          this.stale = true;
        }
        this.score = e.score;
        break;
      }
      case "numbersAdded": {
        const e = ev.value;
        const before = this.board;
        this.moved();
        try {
          this.board = addNumbers(before);
        } catch {
          this.stale = true;
        }
        this.additionsLeft = e.additionsLeft ?? null;
        break;
      }
      case "hintGiven": {
        const e = ev.value;
        this.hintsLeft = e.hintsLeft;
        this.hint = { kind: e.kind, first: e.first, second: e.second };
        break;
      }
      case "moveUndone": {
        const e = ev.value;
        const before = this.history.pop();
        if (before) this.board = before.board;
        else this.stale = true;
        this.moves = Math.max(0, this.moves - 1);
        this.score = e.score;
        this.additionsLeft = e.additionsLeft ?? null;
        this.hint = null;
        break;
      }
      case "gameOver": {
        const e = ev.value;
        this.gameOver = true;
        this.outcome = e.outcome;
        this.score = e.score;
        this.timeMs = Number(e.timeMs);
        this.moves = e.moves;
        this.hintsUsed = e.hintsUsed;
        this.witness = e.witness.map((s) => ({ add: s.add, first: s.first, second: s.second }));
        this.hint = null;
        break;
      }
      default:
        break;
    }
  }
}
