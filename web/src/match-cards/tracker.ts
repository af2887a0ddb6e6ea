/**
 * MatchCardsTracker: one player's copy of a Match Cards game, folded from what the server sends
 * this seat (Watch snapshots and events, the replies to TurnCard and TurnOffNotice). A port of
 * the terminal client's fold, libs/match_client/match_cards.py, the reference for each event.
 *
 * Pure: no I/O, no clock, no DOM. A card has a picture only while it is turned or found, as the
 * server sent it; a card turned back down has none (remembering it is the game). Of the others
 * at a challenge table it holds counts only (OpponentProgress). Events are applied once each
 * and in number order.
 */

import { t } from "../i18n";
import { Visibility, type EventEnvelope, type TableEvent } from "../gen/match/v1/common_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import {
  MatchCardsSettings_Difficulty as Difficulty,
  MatchCardsSettings_Mode as Mode,
  MatchCardsView_CardState as CardState,
  MatchCardsView_Phase as ViewPhase,
  type MatchCardsEvent,
  type MatchCardsSettings,
  type MatchCardsView,
} from "../gen/match/v1/match_cards_pb";
import { InOrder } from "../play/follow";

export { Difficulty, Mode };

export type Phase = "waiting" | "playing" | "over";
export type State = "down" | "up" | "found";

/** Cards per row by board size (docs/rules-match-cards.md); a snapshot's `columns` wins. */
export const COLUMNS: Readonly<Record<number, number>> = { 12: 4, 18: 6, 20: 5, 30: 6, 60: 10 };
export const SIZES: Readonly<Record<"pairs" | "triples", readonly number[]>> = { pairs: [12, 20, 30, 60], triples: [12, 18, 30, 60] };
/** The limit of failed attempts: [mode, cards] -> [easy, medium, hard] (settings.LIMITS). */
export const LIMITS: Readonly<Record<string, readonly [number, number, number]>> = {
  "pairs-12": [20, 16, 11], "pairs-20": [36, 28, 19], "pairs-30": [54, 41, 28], "pairs-60": [108, 82, 55],
  "triples-12": [22, 17, 12], "triples-18": [32, 25, 17], "triples-30": [56, 43, 29], "triples-60": [112, 85, 57],
};

/** The Hard look-alike subjects, whose ids are `<subject>-<version>` (`cat-grey`). */
const LOOKALIKES = ["cat", "dog", "owl", "fish", "parrot", "butterfly", "snake", "chicken", "apple", "pear", "grape", "melon", "tomato", "plum", "cherry"];

/** The name a screen reader says for a picture id: `cat-grey` -> `cat, grey`, `dragon-fruit` -> `dragon fruit`. */
export function pictureName(id: string): string {
  for (const s of LOOKALIKES) {
    if (id.startsWith(`${s}-`)) return `${s}, ${id.slice(s.length + 1).replace(/-/g, " ")}`;
  }
  return id.replace(/-/g, " ");
}

export interface Card {
  readonly number: number;
  readonly state: State;
  readonly picture?: string; // the id, only while up or found
  readonly name?: string; // its name for people
}

export interface PlayerLine {
  player: string;
  turned: number;
  groups: number;
  failed: number;
  finished: boolean;
  won: boolean;
  timeMs: number;
}

export interface Standing {
  readonly player: string;
  readonly place: number;
  readonly won: boolean;
  readonly groups: number;
  readonly failed: number;
  readonly timeMs: number;
}

export function groupSize(settings: MatchCardsSettings | null): number {
  return settings?.mode === Mode.TRIPLES ? 3 : 2;
}

function line(player: string): PlayerLine {
  return { player, turned: 0, groups: 0, failed: 0, finished: false, won: false, timeMs: 0 };
}

export class MatchCardsTracker {
  player: string;
  tableId: string;
  gameId = "";
  serverTimeMs = 0;
  phase: Phase = "waiting";
  seatsTotal = 1;
  isPrivate = false; // a private table: no bot takes its empty seats (the referee's no_bot_here)
  settings: MatchCardsSettings | null = null;
  limit = 0;
  groupsTotal = 0;
  startedAtMs = 0;
  endsAtMs = 0;
  columns = 0;
  cards: Card[] = [];
  compareAtMs = 0; // the attempt is being compared until then
  noticeOn = false;
  notice: { cards: number[]; same: boolean } | null = null;
  players: PlayerLine[] = [];
  names = new Map<string, string>();
  bots = new Set<string>();
  standings: Standing[] = [];
  code = "";
  replay = false;
  commitment = "";
  dealVersion = "";
  seed: Uint8Array | null = null;
  expired = false;
  started = false;
  private order = new InOrder();

  constructor(player = "", tableId = "") {
    this.player = player;
    this.tableId = tableId;
  }

  // --- derived -----------------------------------------------------------------------------

  get eventNumber(): number {
    return this.order.eventNumber;
  }

  get gameOver(): boolean {
    return this.phase === "over";
  }

  get size(): number {
    return this.cards.length;
  }

  get group(): number {
    return groupSize(this.settings);
  }

  get up(): number[] {
    return this.cards.filter((c) => c.state === "up").map((c) => c.number);
  }

  get me(): PlayerLine {
    return this.line(this.player);
  }

  /** The viewer's own game is over (won, lost, or the table's). */
  get finished(): boolean {
    return this.me.finished || this.gameOver;
  }

  /** A card the viewer may turn now. */
  turnable(card: number): boolean {
    return this.phase === "playing" && !this.finished && !this.compareAtMs && this.cards[card - 1]?.state === "down" && this.up.length < this.group;
  }

  name(player: string): string {
    return this.names.get(player) || player;
  }

  who(player: string): string {
    return player === this.player && player ? t("race.you") : this.name(player);
  }

  /** The time counter: from the start, stopped at the viewer's end. */
  elapsedMs(nowMs: number): number {
    if (this.me.finished) return this.me.timeMs;
    if (!this.startedAtMs || this.gameOver) return 0;
    return Math.max(0, nowMs - this.startedAtMs);
  }

  line(player: string): PlayerLine {
    let found = this.players.find((p) => p.player === player);
    if (found === undefined) {
      found = line(player);
      this.players.push(found);
    }
    return found;
  }

  // --- input -------------------------------------------------------------------------------

  applyEvents(envs: Iterable<EventEnvelope>): EventEnvelope[] {
    return this.order.foldAll(envs, (env) => this.applyOne(env));
  }

  applySnapshot(view: MatchCardsView): void {
    this.started = true;
    this.order.reset(Number(view.eventNumber));
    this.tableId = view.tableId || this.tableId;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(view.serverTimeMs));
    this.player = view.you || this.player;
    if (view.settings) this.settings = view.settings;
    this.phase = view.phase === ViewPhase.GAME_OVER ? "over" : view.phase === ViewPhase.PLAYING ? "playing" : "waiting";
    this.limit = view.limit;
    this.groupsTotal = view.groupsTotal;
    this.startedAtMs = Number(view.startedAtMs);
    this.endsAtMs = Number(view.endsAtMs);
    this.columns = view.columns;
    this.cards = view.cards.map((c) => {
      const state: State = c.state === CardState.UP ? "up" : c.state === CardState.FOUND ? "found" : "down";
      if (state === "down" || !c.picture?.id) return { number: c.card, state };
      return { number: c.card, state, picture: c.picture.id, name: c.picture.name || pictureName(c.picture.id) };
    });
    this.compareAtMs = Number(view.compareAtMs);
    this.noticeOn = view.noticeOn;
    this.notice = view.notice ? { cards: [...view.notice.cards], same: view.notice.same } : null;
    this.players = view.players.map((p) => {
      if (p.displayName) this.names.set(p.player, p.displayName);
      return { player: p.player, turned: p.turned, groups: p.groups, failed: p.failed, finished: p.finished, won: p.won, timeMs: Number(p.timeMs) };
    });
    this.seatsTotal = Math.max(this.seatsTotal, this.players.length);
    this.standings = view.standings.map((s) => ({ player: s.player, place: s.place, won: s.won, groups: s.groups, failed: s.failed, timeMs: Number(s.timeMs) }));
    this.code = view.code;
    this.replay = view.replay;
    this.commitment = view.commitment || this.commitment;
    if (view.seed !== undefined) this.seed = view.seed;
  }

  noteTable(table: Table): void {
    this.tableId = table.tableId || this.tableId;
    this.gameId = table.gameId || this.gameId;
    this.commitment = this.commitment || table.commitment;
    this.seatsTotal = table.seats || this.seatsTotal;
    this.isPrivate = this.isPrivate || table.visibility === Visibility.PRIVATE;
    for (const s of table.taken) {
      this.names.set(s.playerId, s.displayName);
      if (s.isBot) this.bots.add(s.playerId);
    }
    if (table.settings.case === "matchCards" && this.phase === "waiting" && this.settings === null) this.settings = table.settings.value;
  }

  // --- internals ---------------------------------------------------------------------------

  private applyOne(env: EventEnvelope): void {
    this.started = true;
    if (env.tableId) this.tableId = env.tableId;
    if (env.gameId) this.gameId = env.gameId;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(env.serverTimeMs));
    if (env.body.case === "table") this.table(env.body.value);
    else if (env.body.case === "matchCards") this.game(env.body.value);
  }

  private table(e: TableEvent): void {
    const ev = e.event;
    switch (ev.case) {
      case "tableCreated":
        this.seatsTotal = ev.value.seats || this.seatsTotal;
        this.isPrivate = ev.value.visibility === Visibility.PRIVATE;
        if (ev.value.settings.case === "matchCards" && this.phase === "waiting") this.settings = ev.value.settings.value;
        break;
      case "playerSeated":
        this.names.set(ev.value.playerId, ev.value.displayName);
        if (ev.value.isBot) this.bots.add(ev.value.playerId);
        break;
      case "seedCommitted":
        this.commitment = ev.value.commitment;
        this.dealVersion = ev.value.dealVersion;
        break;
      case "seedRevealed":
        this.seed = ev.value.seed;
        break;
      case "tableExpired":
        this.expired = true;
        break;
      default:
        break;
    }
  }

  private setCard(n: number, card: Card): void {
    if (n >= 1 && n <= this.cards.length) this.cards[n - 1] = card;
  }

  private game(event: MatchCardsEvent): void {
    const ev = event.event;
    const mine = ev.case !== undefined && "player" in ev.value && ev.value.player === this.player;
    switch (ev.case) {
      case "gameStarted": {
        const e = ev.value;
        this.phase = "playing";
        if (e.settings) this.settings = e.settings;
        this.dealVersion = e.dealVersion || this.dealVersion;
        this.limit = e.limit;
        this.startedAtMs = Number(e.at);
        this.endsAtMs = Number(e.endsAt);
        const size = this.settings?.cards || 12;
        this.columns = COLUMNS[size] ?? 6;
        this.groupsTotal = Math.floor(size / this.group);
        this.cards = Array.from({ length: size }, (_, i) => ({ number: i + 1, state: "down" as State }));
        this.players = e.players.map(line);
        this.seatsTotal = Math.max(this.seatsTotal, this.players.length);
        this.noticeOn = this.settings?.difficulty === Difficulty.HARD;
        this.notice = null;
        break;
      }
      case "cardTurned":
        if (!mine) break;
        this.setCard(ev.value.card, { number: ev.value.card, state: "up", picture: ev.value.picture, name: pictureName(ev.value.picture) });
        this.me.turned += 1;
        if (ev.value.compareAt !== undefined) this.compareAtMs = Number(ev.value.compareAt);
        break;
      case "groupFound":
        if (!mine) break;
        for (const n of ev.value.cards) {
          const c = this.cards[n - 1];
          this.setCard(n, { number: n, state: "found", ...(c?.picture ? { picture: c.picture, name: c.name ?? pictureName(c.picture) } : {}) });
        }
        Object.assign(this.me, { groups: ev.value.groups, turned: 0 });
        this.compareAtMs = 0;
        this.notice = ev.value.notice ? { cards: [...ev.value.cards], same: true } : null;
        break;
      case "attemptFailed":
        if (!mine) break;
        for (const n of ev.value.cards) this.setCard(n, { number: n, state: "down" });
        Object.assign(this.me, { failed: ev.value.failed, turned: 0 });
        this.compareAtMs = 0;
        this.notice = ev.value.notice ? { cards: [...ev.value.cards], same: false } : null;
        break;
      case "noticeTurnedOff":
        if (!mine) break;
        this.noticeOn = false;
        this.notice = null;
        break;
      case "opponentProgress":
        Object.assign(this.line(ev.value.player), { turned: ev.value.turned, groups: ev.value.groups, failed: ev.value.failed });
        break;
      case "playerFinished":
        Object.assign(this.line(ev.value.player), {
          finished: true, won: ev.value.won, groups: ev.value.groups, failed: ev.value.failed, timeMs: Number(ev.value.timeMs), turned: 0,
        });
        if (mine) this.compareAtMs = 0;
        break;
      case "gameEnded":
        this.phase = "over";
        this.compareAtMs = 0;
        this.standings = ev.value.standings.map((s) => ({ player: s.player, place: s.place, won: s.won, groups: s.groups, failed: s.failed, timeMs: Number(s.timeMs) }));
        this.code = ev.value.code;
        this.replay = ev.value.replay;
        break;
      default:
        break;
    }
  }
}
