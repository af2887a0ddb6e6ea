/**
 * ConcentrationTracker: a Concentration table as everybody at it sees it, folded from what the
 * server sends (Watch snapshots and events, FlipCard replies). A port of the terminal client's
 * fold, libs/match_client/concentration.py, the reference for what each event means.
 *
 * Pure: no I/O, no clock, no DOM. It holds only what the server sent: a card has a face only
 * while it is up or taken. A face flipped earlier is not kept once the card goes back down
 * (remembering it is the player's game, not the page's). Events are applied once each and in
 * number order (a reply's events wait for the stream to fill any gap before them).
 */

import { t } from "../i18n";
import type { EventEnvelope, TableEvent } from "../gen/match/v1/common_pb";
import {
  ConcentrationSettings_Matching as Matching,
  ConcentrationSettings_Pictures as Pictures,
  ConcentrationView_CardState as CardState,
  ConcentrationView_Phase as ViewPhase,
  type ConcentrationEvent,
  type ConcentrationSettings,
  type ConcentrationView,
} from "../gen/match/v1/concentration_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import { InOrder } from "../play/follow";

export { Matching, Pictures };

export type Phase = "waiting" | "playing" | "over";
export type State = "down" | "up" | "taken";

export interface Card {
  readonly number: number;
  readonly state: State;
  readonly face?: string; // only while up or taken
  readonly takenBy?: string;
}

export interface SeatLine {
  player: string;
  pairs: number;
  tries: number;
  cpu: boolean;
  takeoverAtMs: number; // dropped: the CPU takes the seat then unless they return
}

export interface Standing {
  readonly player: string;
  readonly place: number;
  readonly pairs: number;
  readonly tries: number;
}

/** Cards on the table for these settings: the deck's size plus two jokers. */
export function deckSize(s: { cards: number; jokers: boolean } | null): number {
  if (s === null) return 0;
  return (s.cards || 52) + (s.jokers ? 2 : 0);
}

/** Cards per row of the layout: 13 for 52 cards, 9 for 36, 6 for 24 (as the terminal's). */
export function columnsFor(size: number): number {
  for (const across of [13, 9, 6]) if (size % across === 0 && size / across <= 6) return across;
  return Math.min(size, Math.max(1, Math.ceil(Math.sqrt(size * 2))));
}

export class ConcentrationTracker {
  player: string; // "" for a spectator
  tableId: string;
  gameId = "";
  serverTimeMs = 0;
  phase: Phase = "waiting";
  seatsTotal = 0; // the table's seats (from TableCreated or the lobby)
  settings: ConcentrationSettings | null = null;
  cards: Card[] = [];
  seats: SeatLine[] = [];
  names = new Map<string, string>();
  bots = new Set<string>(); // seated by the CPU fill
  turn = "";
  deadlineMs = 0; // when the current flip's wait ends by itself; 0: no limit
  turnDownAtMs = 0; // a miss shows until then
  standings: Standing[] = [];
  winners: string[] = [];
  draw = false;
  commitment = "";
  dealVersion = "";
  seed: Uint8Array | null = null;
  expired = false;
  /** Anything (a snapshot or an event) applied yet. */
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

  get up(): number[] {
    return this.cards.filter((c) => c.state === "up").map((c) => c.number);
  }

  seat(player: string): SeatLine | undefined {
    return this.seats.find((s) => s.player === player);
  }

  name(player: string): string {
    return this.names.get(player) || player;
  }

  /** "you" for the viewer, else the player's name. */
  who(player: string): string {
    return player && player === this.player ? t("race.you") : this.name(player);
  }

  get iAmCpu(): boolean {
    return this.seat(this.player)?.cpu ?? false;
  }

  /** The viewer may flip now: their turn, no miss showing, their seat not the CPU's. */
  get myTurn(): boolean {
    return this.phase === "playing" && this.player !== "" && this.turn === this.player && !this.turnDownAtMs && !this.iAmCpu;
  }

  /** A card the viewer may flip now. */
  flippable(card: number): boolean {
    return this.myTurn && this.cards[card - 1]?.state === "down" && this.up.length < 2;
  }

  // --- input -------------------------------------------------------------------------------

  /** Apply events (Watch or a reply); returns those applied now, in order. */
  applyEvents(envs: Iterable<EventEnvelope>): EventEnvelope[] {
    return this.order.foldAll(envs, (env) => this.applyOne(env));
  }

  /** Start again from a snapshot: everything it says replaces what was known. */
  applySnapshot(view: ConcentrationView): void {
    this.started = true;
    this.order.reset(Number(view.eventNumber));
    this.tableId = view.tableId || this.tableId;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(view.serverTimeMs));
    this.player = view.you || this.player;
    if (view.settings) this.settings = view.settings;
    this.phase = view.phase === ViewPhase.GAME_OVER ? "over" : view.phase === ViewPhase.PLAYING ? "playing" : "waiting";
    this.cards = view.cards.map((c) => {
      const state: State = c.state === CardState.UP ? "up" : c.state === CardState.TAKEN ? "taken" : "down";
      const card: Card = { number: c.card, state };
      if (state === "down") return card;
      return { ...card, face: c.face, ...(c.takenBy ? { takenBy: c.takenBy } : {}) };
    });
    this.seats = view.seats.map((s) => {
      if (s.displayName) this.names.set(s.player, s.displayName);
      return { player: s.player, pairs: s.pairs, tries: s.tries, cpu: s.cpu, takeoverAtMs: Number(s.takeoverAtMs) };
    });
    this.seatsTotal = Math.max(this.seatsTotal, this.seats.length);
    this.turn = view.turn;
    this.deadlineMs = Number(view.deadlineMs);
    this.turnDownAtMs = Number(view.turnDownAtMs);
    this.standings = view.standings.map((s) => ({ player: s.player, place: s.place, pairs: s.pairs, tries: s.tries }));
    this.winners = [...view.winners];
    this.draw = view.draw;
    this.commitment = view.commitment || this.commitment;
    if (view.seed !== undefined) this.seed = view.seed;
  }

  /** Names, seats, the commitment and the settings from the lobby's Table (never a face). */
  noteTable(table: Table): void {
    this.tableId = table.tableId || this.tableId;
    this.gameId = table.gameId || this.gameId;
    this.commitment = this.commitment || table.commitment;
    this.seatsTotal = table.seats || this.seatsTotal;
    for (const s of table.taken) {
      this.names.set(s.playerId, s.displayName);
      if (s.isBot) this.bots.add(s.playerId);
    }
    if (table.settings.case === "concentration" && this.settings === null) this.settings = table.settings.value;
  }

  // --- internals ---------------------------------------------------------------------------

  private applyOne(env: EventEnvelope): void {
    this.started = true;
    if (env.tableId) this.tableId = env.tableId;
    if (env.gameId) this.gameId = env.gameId;
    this.serverTimeMs = Math.max(this.serverTimeMs, Number(env.serverTimeMs));
    if (env.body.case === "table") this.table(env.body.value);
    else if (env.body.case === "concentration") this.game(env.body.value);
  }

  private table(e: TableEvent): void {
    const ev = e.event;
    switch (ev.case) {
      case "tableCreated":
        this.seatsTotal = ev.value.seats || this.seatsTotal;
        if (ev.value.settings.case === "concentration") this.settings = ev.value.settings.value;
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

  private count(player: string, change: { pairs?: number; tries?: number }): void {
    const s = this.seat(player);
    if (s === undefined) return;
    if (change.pairs !== undefined) s.pairs = change.pairs;
    if (change.tries !== undefined) s.tries = change.tries;
  }

  private game(event: ConcentrationEvent): void {
    const ev = event.event;
    switch (ev.case) {
      case "gameStarted": {
        const e = ev.value;
        this.phase = "playing";
        if (e.settings) this.settings = e.settings;
        this.dealVersion = e.dealVersion || this.dealVersion;
        const size = deckSize(this.settings);
        this.cards = Array.from({ length: size }, (_, i) => ({ number: i + 1, state: "down" as State }));
        this.seats = e.players.map((p) => ({ player: p, pairs: 0, tries: 0, cpu: e.cpus.includes(p), takeoverAtMs: 0 }));
        this.seatsTotal = Math.max(this.seatsTotal, this.seats.length);
        break;
      }
      case "turnBegan":
        this.turn = ev.value.player;
        this.deadlineMs = Number(ev.value.deadline ?? 0n);
        this.turnDownAtMs = 0;
        break;
      case "cardFlipped":
        this.setCard(ev.value.card, { number: ev.value.card, state: "up", face: ev.value.face });
        break;
      case "secondCardDue":
        this.deadlineMs = Number(ev.value.deadline ?? 0n);
        break;
      case "pairTaken":
        for (const n of ev.value.cards) {
          const face = this.cards[n - 1]?.face ?? "";
          this.setCard(n, { number: n, state: "taken", face, takenBy: ev.value.player });
        }
        this.count(ev.value.player, { pairs: ev.value.pairs, tries: ev.value.tries });
        break;
      case "attemptMissed":
        this.turnDownAtMs = Number(ev.value.turnDownAt);
        this.deadlineMs = 0;
        this.count(ev.value.player, { tries: ev.value.tries });
        break;
      case "cardsTurnedDown":
        for (const n of ev.value.cards) this.setCard(n, { number: n, state: "down" });
        this.turnDownAtMs = 0;
        break;
      case "timeRanOut":
        if (ev.value.card !== undefined) this.setCard(ev.value.card, { number: ev.value.card, state: "down" });
        this.count(ev.value.player, { tries: ev.value.tries });
        this.deadlineMs = 0;
        break;
      case "playerDropped": {
        const s = this.seat(ev.value.player);
        if (s) s.takeoverAtMs = Number(ev.value.takeoverAt);
        break;
      }
      case "playerReturned": {
        const s = this.seat(ev.value.player);
        if (s) s.takeoverAtMs = 0;
        break;
      }
      case "seatHandedToCpu": {
        const s = this.seat(ev.value.player);
        if (s) { s.cpu = true; s.takeoverAtMs = 0; }
        break;
      }
      case "gameEnded":
        this.phase = "over";
        this.turn = "";
        this.deadlineMs = 0;
        this.turnDownAtMs = 0;
        this.standings = ev.value.standings.map((s) => ({ player: s.player, place: s.place, pairs: s.pairs, tries: s.tries }));
        this.winners = [...ev.value.winners];
        this.draw = ev.value.draw;
        break;
      default:
        break;
    }
  }
}
