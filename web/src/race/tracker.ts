/**
 * RaceTracker: one player's view of a race game, kept up to date from what the server sends.
 *
 * A port of libs/match_client/tracker.py (the terminal client's fold), which is the reference
 * for what each event means. Pure: no I/O, no clock, no DOM. Feed it the Watch stream
 * (`applyWatch`) and the events of command replies (`applyEvents`); it holds the latest
 * RaceView snapshot with every later event applied, so it knows what a fresh snapshot would
 * say. It only ever holds what the server sent: a tile has a symbol only while the server says
 * it is up on the viewer's own board.
 *
 * Events are numbered per table with no gaps. A command's reply usually carries events before
 * the Watch stream delivers them, so each number is applied once, in whatever order they come:
 * `eventNumber` is the highest number up to which every event has been applied (resume a Watch
 * from it), and an event already applied is skipped.
 */

import { Visibility, type EventEnvelope, type TableEvent } from "../gen/match/v1/common_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import { RaceEvent_Outcome, type RaceEvent, type RaceEvent_BoardResult, type RaceEvent_Standing } from "../gen/match/v1/race_pb";
import type { WatchResponse } from "../gen/match/v1/race_service_pb";
import { RaceView_Phase, RaceView_Status, RaceView_TileState, type RaceCounters, type RaceView } from "../gen/match/v1/views_pb";

export const Phase = RaceView_Phase;
export const Status = RaceView_Status;
export const TileState = RaceView_TileState;
export const Outcome = RaceEvent_Outcome;
export type Phase = RaceView_Phase;
export type Status = RaceView_Status;
export type TileState = RaceView_TileState;
export type Outcome = RaceEvent_Outcome;

export const TILES = 20;
export const COLUMNS = 4;
export const ROWS = 5;
export const BOARDS = 3;
export const CAP_MS = 120_000;
export const DEFAULT_HINTS_PER_BOARD = 3;

const PRIVATE_KINDS = new Set(["tilesTurnedDown", "tileTurned", "pairFound", "attemptMissed", "hintGiven"]);

// Phases within one board, in the order they come (a stale event never moves a board back).
const PHASE_RANK: Record<number, number> = {
  [Phase.UNSPECIFIED]: 0,
  [Phase.WAITING_FOR_PLAYERS]: 0,
  [Phase.READY]: 1,
  [Phase.COUNTDOWN]: 2,
  [Phase.PLAYING]: 3,
  [Phase.BETWEEN_BOARDS]: 4,
  [Phase.GAME_OVER]: 5,
};

/** One of the viewer's own tiles: `symbol` only while it is up (showing or found). */
export interface Tile {
  readonly number: number;
  readonly state: TileState;
  readonly symbol?: number;
}

/** A player's counts on one board. */
export interface Progress {
  readonly board: number;
  readonly pairs: number;
  readonly turns: number;
  readonly hints: number;
}

/** What the viewer knows of a player at the table (the viewer included). */
export interface PlayerInfo {
  player: string;
  displayName: string;
  isBot: boolean;
  out: boolean; // out of the game: missed a Ready or resigned
  ready: boolean; // pressed Ready for the current board
  done: boolean; // their current board is over for them
  boards: Map<number, Progress>;
}

/** One player's result on a revealed board (times as numbers). */
export interface BoardResult {
  readonly player: string;
  readonly outcome: Outcome;
  readonly pairs: number; // as scored: 0 when disqualified
  readonly found: number;
  readonly turns: number;
  readonly timeMs: number;
  readonly hints: number;
}

/** A board after its reveal: the whole layout (`layout[0]` is tile 1) and the results. */
export interface Revealed {
  readonly board: number;
  readonly layout: readonly number[];
  readonly results: readonly BoardResult[];
}

/** One player's place in the final ranking (GameEnded). */
export interface Standing {
  readonly player: string;
  readonly place: number;
  readonly pairs: number;
  readonly timeMs: number;
  readonly turns: number;
  readonly hints: number;
  readonly out: boolean;
}

export function playerName(info: PlayerInfo): string {
  return info.displayName || info.player;
}

function progress(board: number, pairs = 0, turns = 0, hints = 0): Progress {
  return { board, pairs, turns, hints };
}

function downTiles(): Map<number, Tile> {
  const tiles = new Map<number, Tile>();
  for (let t = 1; t <= TILES; t++) tiles.set(t, { number: t, state: TileState.DOWN });
  return tiles;
}

function result(r: RaceEvent_BoardResult): BoardResult {
  return {
    player: r.player,
    outcome: r.outcome,
    pairs: r.pairs,
    found: r.found,
    turns: r.turns,
    timeMs: Number(r.timeMs),
    hints: r.hints,
  };
}

function standing(s: RaceEvent_Standing): Standing {
  return {
    player: s.player,
    place: s.place,
    pairs: s.pairs,
    timeMs: Number(s.timeMs),
    turns: s.turns,
    hints: s.hints,
    out: s.out,
  };
}

export class RaceTracker {
  player: string;
  tableId: string;
  gameId = "";
  eventNumber = 0; // every event up to this one has been applied
  serverTimeMs = 0; // the latest server time seen
  phase: Phase = Phase.WAITING_FOR_PLAYERS;
  board = 0;
  readyDeadlineMs = 0;
  startsAtMs = 0;
  endsAtMs = 0;
  boardEnded = false;
  takenBy = "";
  tiles: Map<number, Tile> = downTiles();
  turns = 0;
  pairs = 0;
  hintsLeft = 0;
  hintsPerBoard: number | null = null;
  hasBot = false;
  pausedUntilMs = 0;
  outcome: Outcome = Outcome.UNSPECIFIED;
  lastHint: { tile: number; partner: number } | null = null;
  players = new Map<string, PlayerInfo>();
  revealed: Revealed[] = [];
  standings: Standing[] = [];
  dealVersion = "";
  commitment = "";
  seed: Uint8Array | null = null;
  fillAtMs = 0;
  isPrivate = false; // a private table: no bot takes its empty seats (the referee's no_bot_here)
  readyWindowMs = 0; // how long each Ready stays open (from the table's settings or events)
  botStrength = "";
  expired = false;
  /** Whether anything (a snapshot or an event) has been applied yet. */
  started = false;
  private applied = new Set<number>(); // numbers above eventNumber already applied

  constructor(player = "", tableId = "") {
    this.player = player;
    this.tableId = tableId;
  }

  // --- derived -----------------------------------------------------------------------------

  get me(): PlayerInfo {
    return this.info(this.player);
  }

  get status(): Status {
    return this.statusOf(this.player);
  }

  get opponents(): PlayerInfo[] {
    return [...this.players.values()].filter((p) => p.player !== this.player);
  }

  get gameOver(): boolean {
    return this.phase === Phase.GAME_OVER;
  }

  get found(): number[] {
    return [...this.tiles.values()].filter((t) => t.state === TileState.FOUND).map((t) => t.number);
  }

  /** The viewer's tiles up but not found: one of an attempt, or the two of a miss. */
  get showing(): number[] {
    return [...this.tiles.values()].filter((t) => t.state === TileState.SHOWING).map((t) => t.number);
  }

  name(player: string): string {
    const info = this.players.get(player);
    return info ? playerName(info) : player;
  }

  /** A player's state on the current board, as the server's player_view states it. */
  statusOf(player: string): Status {
    const info = this.players.get(player);
    if (info === undefined) return Status.UNSPECIFIED;
    if (info.out) return Status.OUT;
    if (this.phase === Phase.READY) return info.ready ? Status.READY : Status.WAITING;
    if (this.phase === Phase.COUNTDOWN) return Status.READY;
    if (this.phase === Phase.PLAYING && !info.done && !this.boardEnded) return Status.PLAYING;
    return Status.DONE;
  }

  // --- input -------------------------------------------------------------------------------

  /** Apply one Watch item; returns the events newly applied (none for a snapshot). */
  applyWatch(item: WatchResponse): EventEnvelope[] {
    if (item.item.case === "snapshot") {
      this.applySnapshot(item.item.value);
      return [];
    }
    if (item.item.case === "event") return this.applyEvents([item.item.value]);
    return [];
  }

  /** Apply events (from Watch or from a command's reply); returns those newly applied. */
  applyEvents(envelopes: Iterable<EventEnvelope>): EventEnvelope[] {
    const out: EventEnvelope[] = [];
    for (const env of envelopes) if (this.applyEvent(env)) out.push(env);
    return out;
  }

  /** Apply one event unless it was applied already; true when it was applied now. */
  applyEvent(env: EventEnvelope): boolean {
    const n = Number(env.eventNumber);
    if (n <= this.eventNumber || this.applied.has(n)) return false;
    this.started = true;
    this.applied.add(n);
    while (this.applied.has(this.eventNumber + 1)) {
      this.eventNumber += 1;
      this.applied.delete(this.eventNumber);
    }
    if (env.tableId) this.tableId = env.tableId;
    if (env.gameId) this.gameId = env.gameId;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(env.serverTimeMs));
    if (env.body.case === "race") this.race(env.body.value);
    else if (env.body.case === "table") this.table(env.body.value);
    return true;
  }

  /** The viewer's counters returned with a command (only for the board the tracker is on). */
  applyCounters(counters: RaceCounters | undefined): void {
    if (counters === undefined) return;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(counters.serverTimeMs));
    if (counters.board !== this.board || this.boardEnded) return;
    this.hintsLeft = counters.hintsLeft;
    this.pausedUntilMs = Math.max(this.pausedUntilMs, Number(counters.pausedUntilMs));
  }

  /** Learn names, bots and settings from the lobby's Table (never a face). */
  noteTable(table: Table): void {
    this.tableId = table.tableId || this.tableId;
    this.gameId = table.gameId || this.gameId;
    this.commitment = table.commitment || this.commitment;
    this.fillAtMs = Number(table.fillAtMs) || this.fillAtMs;
    this.isPrivate = this.isPrivate || table.visibility === Visibility.PRIVATE;
    for (const seat of table.taken) {
      const info = this.info(seat.playerId);
      info.displayName = seat.displayName || info.displayName;
      info.isBot = info.isBot || seat.isBot;
      if (seat.isBot) this.hasBot = true;
    }
    if (table.settings.case === "race" && this.hintsPerBoard === null) {
      const hints = table.settings.value.hintsPerBoard;
      this.readyWindowMs = Number(table.settings.value.readyWindowMs) || this.readyWindowMs;
      this.hintsPerBoard = hints ?? DEFAULT_HINTS_PER_BOARD;
    }
  }

  /** Start again from a snapshot: everything it says replaces what was known. */
  applySnapshot(view: RaceView): void {
    this.started = true;
    const names = new Map([...this.players].map(([p, i]) => [p, [i.displayName, i.isBot] as const]));
    this.player = view.player || this.player;
    this.tableId = view.tableId || this.tableId;
    this.gameId = view.gameId;
    this.eventNumber = Number(view.eventNumber);
    this.applied.clear();
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(view.serverTimeMs));
    this.phase = view.phase;
    this.board = view.board;
    this.readyDeadlineMs = Number(view.readyDeadlineMs);
    this.startsAtMs = Number(view.startsAtMs);
    this.endsAtMs = Number(view.endsAtMs);
    this.boardEnded = view.phase === Phase.BETWEEN_BOARDS || view.phase === Phase.GAME_OVER;
    this.takenBy = "";
    this.tiles = downTiles();
    for (const tv of view.tiles) {
      if (tv.tile >= 1 && tv.tile <= TILES) {
        const tile: Tile = tv.symbol === undefined
          ? { number: tv.tile, state: tv.state }
          : { number: tv.tile, state: tv.state, symbol: tv.symbol };
        this.tiles.set(tv.tile, tile);
      }
    }
    this.turns = view.turns;
    this.pairs = view.pairs;
    this.hintsLeft = view.hintsLeft;
    this.pausedUntilMs = Number(view.pausedUntilMs);
    this.outcome = view.outcome;
    this.lastHint = null;
    if (this.hintsPerBoard === null && (view.phase === Phase.READY || view.phase === Phase.COUNTDOWN)) {
      this.hintsPerBoard = view.hintsLeft; // nobody has a hint before T0
    }
    this.players = new Map();
    const me = this.info(this.player);
    this.setStatus(me, view.status);
    const live = view.phase === Phase.READY || view.phase === Phase.COUNTDOWN || view.phase === Phase.PLAYING;
    if (live && this.board && view.outcome !== Outcome.OUT) {
      me.boards = new Map([[this.board, progress(this.board, view.pairs, view.turns)]]);
    }
    for (const ov of view.opponents) {
      const info = this.info(ov.player);
      info.displayName = ov.displayName;
      info.isBot = ov.isBot;
      if (ov.isBot) this.hasBot = true;
      this.setStatus(info, ov.status);
      info.boards = new Map(ov.boards.map((p) => [p.board, progress(p.board, p.pairs, p.turns, p.hints)]));
    }
    for (const [p, [displayName, isBot]] of names) {
      const info = this.players.get(p);
      if (info !== undefined) {
        info.displayName = info.displayName || displayName;
        info.isBot = info.isBot || isBot;
        if (info.isBot) this.hasBot = true;
      }
    }
    this.revealed = view.revealed.map((rb) => ({
      board: rb.board,
      layout: [...rb.layout],
      results: rb.results.map(result),
    }));
    for (const rb of this.revealed) {
      for (const r of rb.results) {
        const info = this.info(r.player);
        if (!info.boards.has(rb.board)) info.boards.set(rb.board, progress(rb.board, r.found, r.turns, r.hints));
      }
    }
    for (const info of this.players.values()) {
      info.boards = new Map([...info.boards].sort(([a], [b]) => a - b));
    }
    this.standings = view.standings.map(standing);
    this.dealVersion = view.dealVersion || this.dealVersion;
    this.commitment = view.commitment || this.commitment;
    this.seed = view.seed ?? null;
  }

  // --- internals ---------------------------------------------------------------------------

  private info(player: string): PlayerInfo {
    let info = this.players.get(player);
    if (info === undefined) {
      info = { player, displayName: "", isBot: false, out: false, ready: false, done: false, boards: new Map() };
      this.players.set(player, info);
    }
    return info;
  }

  private setStatus(info: PlayerInfo, status: Status): void {
    info.out = status === Status.OUT;
    info.ready = status === Status.READY;
    info.done = status === Status.DONE;
  }

  /** Move to `phase` of `board` unless the tracker is already further on. */
  private advance(board: number, phase: Phase): boolean {
    if (phase === Phase.GAME_OVER) {
      this.phase = phase;
      return true;
    }
    if (this.phase === Phase.GAME_OVER || board < this.board) return false;
    if (board === this.board && (PHASE_RANK[phase] ?? 0) < (PHASE_RANK[this.phase] ?? 0)) return false;
    this.phase = phase;
    return true;
  }

  private resetOwnBoard(): void {
    this.tiles = downTiles();
    this.turns = 0;
    this.pairs = 0;
    this.pausedUntilMs = 0;
    this.outcome = Outcome.UNSPECIFIED;
    this.lastHint = null;
    this.hintsLeft = this.hasBot ? (this.hintsPerBoard ?? 0) : 0;
  }

  private progressOf(player: string, board: number): Progress {
    return this.info(player).boards.get(board) ?? progress(board);
  }

  private mine(player: string, board: number): boolean {
    return player === this.player && board === this.board && !this.boardEnded;
  }

  private setProgress(player: string, board: number, change: { turns?: number; pairs?: number; hints?: number }): void {
    const p = this.progressOf(player, board);
    this.info(player).boards.set(
      board,
      progress(board, change.pairs ?? p.pairs, change.turns ?? p.turns, change.hints ?? p.hints),
    );
  }

  private done(player: string, board: number, outcome: Outcome): void {
    if (board !== this.board || this.boardEnded) return;
    this.info(player).done = true;
    if (player === this.player && this.outcome === Outcome.UNSPECIFIED) this.outcome = outcome;
  }

  private race(event: RaceEvent): void {
    const e = event.event;
    if (e.case === undefined) return;
    if (!this.player && PRIVATE_KINDS.has(e.case)) {
      // Only the viewer's own private events reach a client unredacted: a Watch started from
      // event 1 with only a token learns whose view it is from the first one.
      this.player = (e.value as { player: string }).player;
    }
    switch (e.case) {
      case "gameStarted": {
        const v = e.value;
        for (const p of v.players) this.info(p);
        const order = [...v.players];
        const rest = [...this.players.keys()].filter((q) => !order.includes(q));
        this.players = new Map([...order, ...rest].map((p) => [p, this.info(p)]));
        for (const p of v.bots) this.info(p).isBot = true;
        this.hasBot = v.bots.length > 0;
        this.hintsPerBoard = v.hintsPerBoard;
        this.readyWindowMs = Number(v.readyWindowMs) || this.readyWindowMs;
        this.dealVersion = v.dealVersion || this.dealVersion;
        break;
      }
      case "readyOpened": {
        const v = e.value;
        if (v.board <= this.board || !this.advance(v.board, Phase.READY)) return;
        this.board = v.board;
        this.readyDeadlineMs = Number(v.deadline);
        this.readyWindowMs = Number(v.deadline - v.at) || this.readyWindowMs;
        this.startsAtMs = 0;
        this.endsAtMs = 0;
        this.boardEnded = false;
        this.takenBy = "";
        this.resetOwnBoard();
        if (this.me.out) this.outcome = Outcome.OUT; // out before this board began
        for (const info of this.players.values()) {
          info.ready = false;
          info.done = false;
          if (!info.out) info.boards.set(v.board, progress(v.board));
        }
        break;
      }
      case "playerReady":
        this.info(e.value.player).ready = true;
        break;
      case "playerMissedReady": {
        const v = e.value;
        const info = this.info(v.player);
        info.out = true;
        if (v.board === this.board) {
          info.boards.delete(v.board);
          if (v.player === this.player) this.outcome = Outcome.OUT;
        }
        break;
      }
      case "countdownStarted": {
        const v = e.value;
        if (this.advance(v.board, Phase.COUNTDOWN)) {
          this.board = v.board;
          this.startsAtMs = Number(v.startsAt);
          this.endsAtMs = this.endsAtMs || Number(v.startsAt) + CAP_MS;
          this.readyDeadlineMs = 0;
        }
        break;
      }
      case "boardStarted": {
        const v = e.value;
        if (this.advance(v.board, Phase.PLAYING)) {
          this.startsAtMs = this.startsAtMs || Number(v.at);
          this.endsAtMs = this.endsAtMs || Number(v.at) + CAP_MS;
        }
        break;
      }
      case "tilesTurnedDown": {
        const v = e.value;
        if (this.mine(v.player, v.board)) {
          for (const t of v.tiles) {
            if (this.tiles.get(t)?.state === TileState.SHOWING) this.tiles.set(t, { number: t, state: TileState.DOWN });
          }
        }
        break;
      }
      case "tileTurned": {
        const v = e.value;
        if (v.board === this.board) this.setProgress(v.player, v.board, { turns: v.turn });
        if (this.mine(v.player, v.board) && this.tiles.has(v.tile)) {
          this.tiles.set(v.tile, { number: v.tile, state: TileState.SHOWING, symbol: v.symbol });
          this.turns = Math.max(this.turns, v.turn);
        }
        break;
      }
      case "pairFound": {
        const v = e.value;
        if (v.board === this.board) this.setProgress(v.player, v.board, { pairs: v.pairs });
        if (this.mine(v.player, v.board)) {
          for (const t of v.tiles) {
            if (this.tiles.has(t)) this.tiles.set(t, { number: t, state: TileState.FOUND, symbol: v.symbol });
          }
          this.pairs = Math.max(this.pairs, v.pairs);
        }
        break;
      }
      case "attemptMissed": {
        const v = e.value;
        if (this.mine(v.player, v.board)) this.pausedUntilMs = Math.max(this.pausedUntilMs, Number(v.pausedUntil));
        break;
      }
      case "hintGiven": {
        const v = e.value;
        if (v.board === this.board) this.setProgress(v.player, v.board, { hints: v.hintsUsed });
        if (this.mine(v.player, v.board)) {
          this.lastHint = { tile: v.tile, partner: v.partner };
          this.hintsLeft = this.hintsPerBoard !== null
            ? Math.max(this.hintsPerBoard - v.hintsUsed, 0)
            : Math.max(this.hintsLeft - 1, 0);
        }
        break;
      }
      case "opponentMoved": {
        const v = e.value;
        if (v.board === this.board && !this.boardEnded) {
          this.info(v.player).boards.set(v.board, progress(v.board, v.pairs, v.turns, v.hints));
        }
        break;
      }
      case "turnsExhausted":
        this.done(e.value.player, e.value.board, Outcome.OUT_OF_TURNS);
        break;
      case "boardCleared":
        this.done(e.value.player, e.value.board, Outcome.CLEARED);
        break;
      case "clearDisqualified":
        this.done(e.value.player, e.value.board, Outcome.DISQUALIFIED);
        break;
      case "boardTaken": {
        const v = e.value;
        if (v.board === this.board) {
          this.takenBy = v.player;
          this.endsAtMs = Number(v.graceUntil);
        }
        break;
      }
      case "playerResigned": {
        const v = e.value;
        const info = this.info(v.player);
        if (v.board === this.board && !this.boardEnded && !info.out) this.done(v.player, v.board, Outcome.RESIGNED);
        info.out = true;
        break;
      }
      case "boardEnded": {
        const v = e.value;
        if (v.board === this.board && this.advance(v.board, Phase.BETWEEN_BOARDS)) {
          // As a snapshot says it: the board is over; its faces are gone (the reveal shows
          // the whole layout), the counts move to the results.
          this.boardEnded = true;
          this.resetOwnBoard();
          for (const info of this.players.values()) {
            info.boards.delete(v.board);
            info.done = true;
          }
        }
        break;
      }
      case "boardRevealed": {
        const v = e.value;
        if (this.revealed.every((r) => r.board !== v.board)) {
          this.revealed.push({ board: v.board, layout: [...v.layout], results: v.results.map(result) });
          this.revealed.sort((a, b) => a.board - b.board);
        }
        for (const r of v.results) {
          this.info(r.player).boards.set(v.board, progress(v.board, r.found, r.turns, r.hints));
        }
        break;
      }
      case "gameEnded":
        this.advance(this.board, Phase.GAME_OVER);
        this.boardEnded = true;
        this.standings = e.value.standings.map(standing);
        break;
    }
  }

  private table(event: TableEvent): void {
    const e = event.event;
    switch (e.case) {
      case "tableCreated": {
        this.fillAtMs = Number(e.value.fillAtMs);
        this.isPrivate = e.value.visibility === Visibility.PRIVATE;
        if (e.value.settings.case === "race") {
          this.readyWindowMs = Number(e.value.settings.value.readyWindowMs) || this.readyWindowMs;
          this.hintsPerBoard = e.value.settings.value.hintsPerBoard ?? DEFAULT_HINTS_PER_BOARD;
        }
        break;
      }
      case "playerSeated": {
        const info = this.info(e.value.playerId);
        info.displayName = e.value.displayName;
        info.isBot = e.value.isBot;
        break;
      }
      case "playerLeft":
        if (this.phase === Phase.WAITING_FOR_PLAYERS) this.players.delete(e.value.playerId);
        break;
      case "seedCommitted":
        this.commitment = e.value.commitment;
        this.dealVersion = e.value.dealVersion || this.dealVersion;
        break;
      case "seedRevealed":
        this.seed = e.value.seed;
        this.dealVersion = e.value.dealVersion || this.dealVersion;
        break;
      case "fillRequested":
        this.fillAtMs = Number(e.value.fillAtMs);
        break;
      case "botsAssigned":
        this.botStrength = e.value.strength;
        break;
      case "tableExpired":
        this.expired = true;
        break;
      default:
        break;
    }
  }
}
