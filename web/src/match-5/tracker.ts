/**
 * MatchFiveTracker: one seat's MATCH 5 table as its stream tells it. A port of
 * libs/match_client/match_five.py's MatchFiveTracker (with following.py's TableFollower), the
 * reference for what each event means. Pure: no I/O, no clock, no DOM.
 *
 * Feed it the Watch stream (`applyWatch`) and each command's reply (`applyReply`). Every event
 * is folded once and in number order (`InOrder`): a reply's event that comes before another
 * player's event just ahead of it waits until the stream brings that one. The seat's view
 * leaves out what the replies carried (`skip_answered`), so a reply may be the only copy.
 */

import { t } from "../i18n";
import { InOrder } from "../play/follow";
import type { EventEnvelope, TableEvent } from "../gen/match/v1/common_pb";
import type { Table } from "../gen/match/v1/lobby_pb";
import {
  MatchFiveView_Phase,
  type MatchFiveEvent,
  type MatchFiveEvent_CombinationClosed,
  type MatchFiveEvent_CombinationOpened,
  type MatchFiveEvent_RoundScored,
  type MatchFiveEvent_Standing,
  type MatchFiveSettings,
  type MatchFiveView,
} from "../gen/match/v1/match_five_pb";
import type { MatchFiveServiceWatchResponse } from "../gen/match/v1/match_five_service_pb";

export const Phase = MatchFiveView_Phase;
export type Phase = MatchFiveView_Phase;

export const COLOURS = ["red", "yellow", "green", "blue", "purple"] as const;
/** The 10 combinations, numbered 1..10: the pairs of the five colours in order. */
export const COMBINATIONS: readonly (readonly [string, string])[] = COLOURS.flatMap((a, i) =>
  COLOURS.slice(i + 1).map((b) => [a, b] as const));
export const ROUNDS = 2;
export const WRITING_SECONDS = 180;
export const VOTE_SECONDS = 45;
export const NO_VOTE = 0;
export const ACCEPT = 1;
export const CONTEST = 2;
export const MAX_LINK = 60;

export interface Combination {
  readonly number: number;
  readonly colours: readonly [string, string];
  categories: [string, string];
  /** The player's own link this round ("" none). */
  link: string;
}

export interface PlayerLine {
  readonly player: string;
  links: number;
  done: boolean;
  total: number;
  roundPoints: number;
}

/** A ballot: a link (`own` and `target` 0), or a "Match!" by `player` of `target` with `own`. */
export interface Ballot {
  readonly ballot: number;
  readonly player: string;
  readonly text: string;
  readonly group: number;
  readonly own: number;
  readonly target: number;
  yourVote: number;
  votes: number;
}

export function isCall(b: Ballot): boolean {
  return b.target > 0;
}

function ballot(init: Partial<Ballot> & { ballot: number; player: string }): Ballot {
  return { text: "", group: 0, own: 0, target: 0, yourVote: NO_VOTE, votes: 0, ...init };
}

function combinations(categories: readonly string[] = []): Map<number, Combination> {
  const byColour = new Map(COLOURS.map((c, i) => [c, categories[i] ?? ""]));
  const m = new Map<number, Combination>();
  COMBINATIONS.forEach((pair, i) => {
    m.set(i + 1, { number: i + 1, colours: pair, categories: [byColour.get(pair[0] as never) ?? "", byColour.get(pair[1] as never) ?? ""], link: "" });
  });
  return m;
}

export class MatchFiveTracker {
  player: string;
  tableId: string;
  gameId = "";
  private order = new InOrder(); // every event up to its eventNumber is folded
  serverTimeMs = 0;
  names = new Map<string, string>();
  seats = 0;
  inviteCode = "";
  commitment = "";
  dealVersion = "";
  seed: Uint8Array | null = null;
  settings: MatchFiveSettings | null = null;
  received = false;
  phase: Phase = Phase.WAITING_FOR_PLAYERS;
  started = false;
  expired = false;
  round = 0;
  categories: string[] = [];
  combinations: Map<number, Combination> = combinations();
  deadlineMs = 0;
  /** The open combination (reading), 0 otherwise. */
  combination = 0;
  /** The open combination's ballots. */
  ballots = new Map<number, Ballot>();
  /** Every ballot seen this game. */
  everyBallot = new Map<number, Ballot>();
  players: PlayerLine[] = [];
  closed: MatchFiveEvent_CombinationClosed[] = [];
  read: MatchFiveEvent_CombinationOpened[] = [];
  rounds: MatchFiveEvent_RoundScored[] = [];
  standings: MatchFiveEvent_Standing[] = [];

  constructor(player = "", tableId = "") {
    this.player = player;
    this.tableId = tableId;
  }

  // --- derived ---------------------------------------------------------------------------------

  get gameOver(): boolean {
    return this.phase === Phase.GAME_OVER;
  }

  get writingSeconds(): number {
    return this.settings?.writingSeconds || WRITING_SECONDS;
  }

  get voteSeconds(): number {
    return this.settings?.voteSeconds || VOTE_SECONDS;
  }

  get me(): PlayerLine {
    return this.line(this.player);
  }

  name(player: string): string {
    if (player && player === this.player) return t("race.you");
    return this.names.get(player) || player;
  }

  line(player: string): PlayerLine {
    let found = this.players.find((p) => p.player === player);
    if (found === undefined) {
      found = { player, links: 0, done: false, total: 0, roundPoints: 0 };
      this.players.push(found);
    }
    return found;
  }

  /** Points so far: the rounds scored and this round's closed combinations. */
  points(player: string): number {
    const p = this.line(player);
    return p.total + p.roundPoints;
  }

  /** The ballots of the open combination, in order. */
  openBallots(): Ballot[] {
    return [...this.ballots.values()].sort((a, b) => a.ballot - b.ballot);
  }

  /** The player's own links in the open combination. */
  myLinks(): number[] {
    return this.openBallots().filter((b) => b.player === this.player && !isCall(b)).map((b) => b.ballot);
  }

  /** The open ballots the player may still vote on (not their own "Match!" calls). */
  toVote(): number[] {
    return this.openBallots().filter((b) => b.yourVote === NO_VOTE && !(isCall(b) && b.player === this.player)).map((b) => b.ballot);
  }

  /** "Match!" is possible on this ballot: another's link, the player has one here, not grouped with it, not called yet. */
  canCall(b: Ballot): boolean {
    if (isCall(b) || b.player === this.player) return false;
    const mine = this.myLinks().map((n) => this.ballots.get(n)!);
    if (mine.length === 0) return false;
    return mine.some((m) => !(m.group && m.group === b.group) &&
      !this.openBallots().some((c) => isCall(c) && ((c.own === m.ballot && c.target === b.ballot) || (c.own === b.ballot && c.target === m.ballot))));
  }

  winners(): string[] {
    return this.standings.filter((s) => s.place === 1).map((s) => s.player);
  }

  // --- folding ---------------------------------------------------------------------------------

  noteTable(table: Table): void {
    for (const s of table.taken) {
      this.names.set(s.playerId, s.displayName);
      if (!this.started) this.line(s.playerId);
    }
    this.commitment = this.commitment || table.commitment;
    this.gameId = this.gameId || table.gameId;
    this.seats = table.seats || this.seats;
    this.inviteCode = table.inviteCode || this.inviteCode;
    if (table.settings.case === "matchFive" && !this.started) this.settings = table.settings.value;
  }

  applySnapshot(view: MatchFiveView): void {
    this.received = true;
    this.tableId = view.tableId || this.tableId;
    this.order.reset(Number(view.eventNumber));
    this.serverTimeMs = Number(view.serverTimeMs);
    this.player = view.you || this.player;
    if (view.settings) this.settings = view.settings;
    this.phase = view.phase || Phase.WAITING_FOR_PLAYERS;
    this.started = this.phase !== Phase.WAITING_FOR_PLAYERS;
    this.round = view.round;
    this.categories = [...view.categories];
    this.combinations = combinations(this.categories);
    for (const c of view.combinations) {
      const mine = this.combinations.get(c.combination);
      if (mine === undefined) continue;
      if (c.categories.length === 2) mine.categories = [c.categories[0]!, c.categories[1]!];
      mine.link = c.yourLink;
    }
    this.deadlineMs = Number(view.deadlineMs);
    this.combination = view.combination;
    this.closed = [...view.closed];
    this.read = [...view.read];
    this.rounds = [...view.rounds];
    this.standings = [...view.standings];
    for (const opened of this.read) {
      for (const link of opened.links) {
        this.everyBallot.set(link.ballot, ballot({ ballot: link.ballot, player: link.player, text: link.text, group: link.group }));
      }
    }
    this.ballots = new Map();
    for (const b of view.ballots) {
      const one = ballot({ ballot: b.ballot, player: b.player, text: b.text, group: b.group, own: b.own, target: b.target, yourVote: b.yourVote, votes: b.votes });
      this.ballots.set(b.ballot, one);
      this.everyBallot.set(b.ballot, one);
    }
    const seated = this.players.filter((p) => !view.players.some((v) => v.player === p.player));
    this.players = [];
    for (const p of view.players) {
      if (p.displayName) this.names.set(p.player, p.displayName);
      this.players.push({ player: p.player, links: p.links, done: p.done, total: p.total, roundPoints: 0 });
    }
    if (!this.started) this.players.push(...seated); // seated before the snapshot knew them
    // The view's totals are the rounds scored; a round's closed combinations add to them only
    // while it is not scored yet (at the end, round 2 is scored and its combinations are in it).
    const scored = this.rounds.some((r) => r.round === this.round);
    for (const closed of this.closed) {
      if (closed.round === this.round && !scored) for (const s of closed.scores) this.line(s.player).roundPoints += s.points;
    }
    this.seats = Math.max(this.seats, this.players.length);
    this.commitment = view.commitment || this.commitment;
    if (view.seed !== undefined && view.seed.length) this.seed = view.seed;
  }

  /** The last event folded: every one up to it is. */
  get eventNumber(): number {
    return this.order.eventNumber;
  }

  /** Fold one event (and any waiting for it) unless folded already; true if it was folded now. */
  applyEvent(env: EventEnvelope): boolean {
    return this.applyEvents([env]).includes(env);
  }

  /** Fold the events not folded yet, each once and in number order (one after a gap waits);
   * the ones folded now, in order. */
  applyEvents(envs: Iterable<EventEnvelope>): EventEnvelope[] {
    return this.order.foldAll(envs, (env) => this.fold(env));
  }

  private fold(env: EventEnvelope): void {
    this.received = true;
    this.serverTimeMs = Number(env.serverTimeMs) || this.serverTimeMs;
    if (env.gameId) this.gameId = env.gameId;
    if (env.body.case === "table") this.table(env.body.value);
    else if (env.body.case === "matchFive") this.game(env.body.value);
  }

  /** One item of the stream: "snapshot", or the events folded now (an event may bring ones
   * of a reply that waited for it). */
  applyWatch(item: MatchFiveServiceWatchResponse): EventEnvelope[] | "snapshot" {
    if (item.item.case === "snapshot") {
      this.applySnapshot(item.item.value);
      return "snapshot";
    }
    if (item.item.case === "event") return this.applyEvents([item.item.value]);
    return [];
  }

  /** A command's events; the ones folded now, in order. */
  applyReply(envs: readonly EventEnvelope[]): EventEnvelope[] {
    return this.applyEvents(envs);
  }

  private table(e: TableEvent): void {
    switch (e.event.case) {
      case "tableCreated": {
        const v = e.event.value;
        this.seats = v.seats || this.seats;
        this.inviteCode = v.inviteCode || this.inviteCode;
        if (v.settings.case === "matchFive" && !this.started) this.settings = v.settings.value;
        break;
      }
      case "playerSeated":
        this.names.set(e.event.value.playerId, e.event.value.displayName);
        if (!this.started) this.line(e.event.value.playerId);
        break;
      case "playerLeft":
        if (!this.started) { const gone = e.event.value.playerId; this.players = this.players.filter((p) => p.player !== gone); }
        break;
      case "seedCommitted":
        this.commitment = e.event.value.commitment;
        this.dealVersion = e.event.value.dealVersion;
        break;
      case "seedRevealed":
        this.seed = e.event.value.seed;
        break;
      case "tableExpired":
        this.expired = true;
        break;
      default:
        break;
    }
  }

  private game(event: MatchFiveEvent): void {
    const ev = event.event;
    switch (ev.case) {
      case "gameStarted": {
        this.started = true;
        if (ev.value.settings) this.settings = ev.value.settings;
        this.players = ev.value.players.map((p) => ({ player: p, links: 0, done: false, total: 0, roundPoints: 0 }));
        break;
      }
      case "roundStarted": {
        const e = ev.value;
        this.started = true;
        this.phase = Phase.WRITING;
        this.round = e.round;
        this.categories = [...e.categories];
        this.combinations = combinations(this.categories);
        this.deadlineMs = Number(e.writingEndsAt);
        this.combination = 0;
        this.ballots = new Map();
        for (const p of this.players) {
          p.links = 0;
          p.done = false;
          p.roundPoints = 0;
        }
        break;
      }
      case "linkWritten": {
        const e = ev.value;
        if (e.player !== this.player) break;
        const c = this.combinations.get(e.combination);
        if (c) c.link = e.text;
        this.me.links = [...this.combinations.values()].filter((x) => x.link).length;
        break;
      }
      case "linkErased": {
        const e = ev.value;
        if (e.player !== this.player) break;
        const c = this.combinations.get(e.combination);
        if (c) c.link = "";
        this.me.links = [...this.combinations.values()].filter((x) => x.link).length;
        break;
      }
      case "writingProgress":
        this.line(ev.value.player).links = ev.value.links;
        break;
      case "playerDone":
        this.line(ev.value.player).done = true;
        break;
      case "combinationOpened": {
        const e = ev.value;
        this.phase = Phase.READING;
        this.combination = e.combination;
        this.deadlineMs = Number(e.votesEndAt);
        this.ballots = new Map();
        for (const link of e.links) {
          const b = ballot({ ballot: link.ballot, player: link.player, text: link.text, group: link.group });
          this.ballots.set(link.ballot, b);
          this.everyBallot.set(link.ballot, b);
        }
        this.read.push(e);
        for (const p of this.players) p.done = false;
        break;
      }
      case "voteCast": {
        const e = ev.value;
        const b = this.ballots.get(e.ballot);
        if (b !== undefined) {
          b.votes += 1;
          if (e.player === this.player) b.yourVote = e.accept ? ACCEPT : CONTEST;
        }
        break;
      }
      case "matchCalled": {
        const e = ev.value;
        const b = ballot({ ballot: e.ballot, player: e.player, own: e.own, target: e.target });
        this.ballots.set(e.ballot, b);
        this.everyBallot.set(e.ballot, b);
        for (const p of this.players) p.done = false; // a new ballot takes back every Done
        break;
      }
      case "combinationClosed": {
        const e = ev.value;
        this.closed.push(e);
        for (const s of e.scores) this.line(s.player).roundPoints += s.points;
        this.combination = 0;
        this.deadlineMs = 0;
        this.ballots = new Map();
        for (const p of this.players) p.done = false;
        break;
      }
      case "roundScored": {
        const e = ev.value;
        this.rounds.push(e);
        for (const s of e.scores) {
          const l = this.line(s.player);
          l.total = s.total;
          l.roundPoints = 0;
        }
        break;
      }
      case "gameEnded":
        this.phase = Phase.GAME_OVER;
        this.combination = 0;
        this.deadlineMs = 0;
        this.standings = [...ev.value.standings];
        break;
      default:
        break;
    }
  }
}
