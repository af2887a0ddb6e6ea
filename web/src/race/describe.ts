/**
 * What the page says, as text: tile labels for screen readers, a line (or a few) per event for
 * the log and the aria-live region, the running standings between boards. Pure functions of
 * the tracker and the events, after the tracker text of libs/match_client/text.py. Nothing
 * here names a face the server did not send: a tile's symbol comes only from the tracker.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { RaceEvent_EndReason } from "../gen/match/v1/race_pb";
import { hex } from "../play/words";
import { capital } from "../sentence";
import { isOut } from "./timing";
import { BOARDS, Outcome, Phase, Status, TileState, type RaceTracker, type Tile } from "./tracker";
import { symbolName } from "./symbols";
import { t } from "../i18n";

/** One thing to say; `quiet` lines go to the visible log only, not the aria-live region. */
export interface Line {
  readonly text: string;
  readonly quiet?: boolean;
}

const OUTCOME_KEYS: Record<number, string> = {
  [Outcome.UNSPECIFIED]: "race.outcome.playing",
  [Outcome.CLEARED]: "race.outcome.cleared",
  [Outcome.DISQUALIFIED]: "race.outcome.disqualified",
  [Outcome.OUT_OF_TURNS]: "race.outcome.outOfTurns",
  [Outcome.RESIGNED]: "race.outcome.resigned",
  [Outcome.BOARD_ENDED]: "race.outcome.boardEnded",
  [Outcome.OUT]: "race.outcome.out",
  [Outcome.NOT_PLAYED]: "race.outcome.notPlayed",
};

/** A player's outcome on a board, in a few words ("" for one this page does not know). */
export function outcomeText(outcome: number): string {
  const key = OUTCOME_KEYS[outcome];
  return key ? t(key) : "";
}

const END_KEYS: Record<number, string> = {
  [RaceEvent_EndReason.ALL_DONE]: "race.end.allDone",
  [RaceEvent_EndReason.GRACE_OVER]: "race.end.graceOver",
  [RaceEvent_EndReason.TIME_CAP]: "race.end.timeCap",
};

/** Why a board ended ("" for no reason given). */
export function endText(reason: number): string {
  const key = END_KEYS[reason];
  return key ? t(key) : "";
}

export function seconds(ms: number): string {
  return t("race.seconds", { s: (ms / 1000).toFixed(1) });
}

/** `down`, `up` or `found`: the tile's `data-state`. */
export function tileState(tile: Tile): "down" | "up" | "found" {
  if (tile.state === TileState.FOUND) return "found";
  if (tile.state === TileState.SHOWING) return "up";
  return "down";
}

/** What a screen reader says for a tile: its number, and its symbol only while it is showing. */
export function tileLabel(tile: Tile): string {
  const state = tileState(tile);
  if (state === "found") return t("race.tile.found", { n: tile.number });
  if (state === "up" && tile.symbol !== undefined) return t("race.tile.up", { n: tile.number, symbol: symbolName(tile.symbol) });
  return t("race.tile.down", { n: tile.number });
}

export function who(tr: RaceTracker, player: string): string {
  return player === tr.player ? t("race.you") : tr.name(player);
}

/** `{me, name}` for a message that says "you" or a player's name (`{me, select, yes {...} other {...}}`). */
function whom(tr: RaceTracker, player: string): { me: "yes" | "no"; name: string } {
  return { me: player === tr.player ? "yes" : "no", name: tr.name(player) };
}

/** Where the game stands on the current board, in a few words (beside "Board 2 of 3"). */
export function phaseText(tr: RaceTracker): string {
  switch (tr.phase) {
    case Phase.WAITING_FOR_PLAYERS:
      return tr.expired ? t("race.phase.expired") : t("race.phase.waiting");
    case Phase.READY:
      return isOut(tr) ? t("race.phase.readyOthers") : t("race.phase.ready");
    case Phase.COUNTDOWN:
      return t("race.phase.starting");
    case Phase.PLAYING:
      if (isOut(tr)) return t("race.phase.underWayOut");
      if (tr.status === Status.DONE) return t("race.phase.yourBoardOver", { outcome: outcomeText(tr.outcome) });
      return t("race.phase.underWay");
    case Phase.BETWEEN_BOARDS:
      return t("race.phase.over");
    case Phase.GAME_OVER:
      return t("race.phase.gameOver");
    default:
      return "";
  }
}

/** A player's place over the boards revealed so far (display only; the end's is the server's). */
export interface RunningStanding {
  readonly place: number;
  readonly player: string;
  readonly pairs: number;
  readonly timeMs: number;
  readonly turns: number;
  readonly out: boolean;
}

/**
 * The standings over the revealed boards, ranked as the game's end ranks them: more pairs,
 * then less time; equal on both shares the place; players out of the game below the rest.
 */
export function runningStandings(t: RaceTracker): RunningStanding[] {
  if (t.revealed.length === 0) return [];
  const totals = new Map<string, [number, number, number]>();
  for (const p of t.players.keys()) totals.set(p, [0, 0, 0]);
  for (const rb of t.revealed) {
    for (const r of rb.results) {
      const total = totals.get(r.player) ?? [0, 0, 0];
      totals.set(r.player, [total[0] + r.pairs, total[1] + r.timeMs, total[2] + r.turns]);
    }
  }
  const out = (p: string): boolean => t.players.get(p)?.out ?? false;
  const key = (p: string): [number, number, number] => {
    const [pairs, time] = totals.get(p)!;
    return [out(p) ? 1 : 0, -pairs, time];
  };
  const cmp = (a: string, b: string): number => {
    const [ka, kb] = [key(a), key(b)];
    return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
  };
  const ranked = [...totals.keys()].sort(cmp);
  const rows: RunningStanding[] = [];
  ranked.forEach((player, i) => {
    const prev = rows[rows.length - 1];
    const place = prev !== undefined && cmp(ranked[i - 1]!, player) === 0 ? prev.place : i + 1;
    const [pairs, timeMs, turns] = totals.get(player)!;
    rows.push({ place, player, pairs, timeMs, turns, out: out(player) });
  });
  return rows;
}

/** A player's counts on the current board before an event (see `describeEvent`). */
export interface Counts {
  readonly pairs: number;
  readonly turns: number;
  readonly hints: number;
}

/**
 * The lines one event gives, for the tracker's player (call after applying it). `before`:
 * the players' counts on the board before the event, so that an opponent's move that changes
 * no count says nothing, and one that found no pair stays out of the aria-live region (it is
 * shown, and logged quietly).
 */
export function describeEvent(env: EventEnvelope, tr: RaceTracker, before?: ReadonlyMap<string, Counts>): Line[] {
  const body = env.body;
  if (body.case === "table") {
    const e = body.value.event;
    switch (e.case) {
      case "playerSeated":
        return [{ text: t("race.ev.seated", { me: e.value.playerId === tr.player ? "yes" : "no", name: e.value.displayName, seat: e.value.seat, bot: e.value.isBot ? "yes" : "no" }) }];
      case "playerLeft":
        return [{ text: t("race.ev.left", { ...whom(tr, e.value.playerId), seat: e.value.seat }) }];
      case "seedRevealed":
        return [{ text: t("race.ev.seedPublished", { seed: hex(e.value.seed) }) }];
      case "fillRequested":
        return [{ text: t("race.ev.filling") }];
      case "botsAssigned":
        return [{ text: t("race.ev.botStrength", { strength: e.value.strength }), quiet: true }];
      case "tableExpired":
        return [{ text: t("race.ev.expired") }];
      case "seedCommitted":
        return [{ text: t("race.ev.commitment", { commitment: e.value.commitment }), quiet: true }];
      default:
        return [];
    }
  }
  if (body.case !== "race") return [];
  const e = body.value.event;
  switch (e.case) {
    case "gameStarted": {
      const names = e.value.players.map((p) => (e.value.bots.includes(p) ? t("home.botName", { name: who(tr, p) }) : who(tr, p))).join(", ");
      return [{ text: t("race.ev.gameStarts", { names }) }];
    }
    case "readyOpened": {
      const v = e.value;
      const secs = Math.round(Number(v.deadline - v.at) / 1000);
      if (isOut(tr)) return [{ text: t("race.ev.readyOthers", { board: v.board }) }];
      return [{ text: t("race.ev.pressReady", { board: v.board, boards: BOARDS, secs }) }];
    }
    case "playerReady":
      return [{ text: t("race.ev.ready", whom(tr, e.value.player)) }];
    case "playerMissedReady":
      return [{ text: t("race.ev.missedReady", whom(tr, e.value.player)) }];
    case "countdownStarted": {
      const v = e.value;
      return [{ text: t("race.ev.startsIn", { board: v.board, secs: Math.round(Number(v.startsAt - v.at) / 1000) }) }];
    }
    case "boardStarted":
      return [{ text: tr.status === Status.PLAYING ? t("race.ev.go", { board: e.value.board }) : t("race.ev.started", { board: e.value.board }) }];
    case "tilesTurnedDown": {
      const [a, b] = e.value.tiles;
      return [{ text: t("race.ev.turnedDown", { a: a ?? 0, b: b ?? 0 }), quiet: true }];
    }
    case "tileTurned":
      return [{ text: t("race.ev.tileTurned", { n: e.value.tile, symbol: symbolName(e.value.symbol) }) }];
    case "pairFound": {
      const [a, b] = e.value.tiles;
      return [{ text: t("race.ev.pairFound", { a: a ?? 0, b: b ?? 0, symbol: symbolName(e.value.symbol), pairs: e.value.pairs }) }];
    }
    case "attemptMissed": {
      const [a, b] = e.value.tiles;
      return [{ text: t("race.ev.missed", { a: a ?? 0, b: b ?? 0, paused: seconds(Number(e.value.pausedUntil - e.value.at)) }) }];
    }
    case "hintGiven":
      return [{ text: t("race.ev.hint", { n: e.value.tile, partner: e.value.partner }) }];
    case "opponentMoved": {
      const v = e.value;
      const was = before?.get(v.player);
      if (was !== undefined && was.pairs === v.pairs && was.turns === v.turns && was.hints === v.hints) return [];
      const text = v.hints
        ? t("race.ev.opponentHints", { name: tr.name(v.player), pairs: v.pairs, turns: v.turns, hints: v.hints })
        : t("race.ev.opponent", { name: tr.name(v.player), pairs: v.pairs, turns: v.turns });
      return [{ text, quiet: was === undefined ? v.pairs === 0 : v.pairs <= was.pairs }];
    }
    case "turnsExhausted":
      return [{ text: t("race.ev.turnsUsed", { ...whom(tr, e.value.player), board: e.value.board }) }];
    case "boardCleared":
      return [{ text: t("race.ev.cleared", { ...whom(tr, e.value.player), time: seconds(Number(e.value.elapsedMs)) }) }];
    case "clearDisqualified":
      return [{ text: t("race.ev.disqualified", { ...whom(tr, e.value.player), time: seconds(Number(e.value.elapsedMs)) }) }];
    case "boardTaken": {
      const v = e.value;
      if (v.player === tr.player) return [{ text: t("race.ev.youTook", { board: v.board }) }];
      return [{ text: t("race.ev.took", { name: tr.name(v.player), board: v.board, secs: Math.round(Number(v.graceUntil - v.at) / 1000) }) }];
    }
    case "playerResigned":
      return [{ text: t("race.ev.resigned", whom(tr, e.value.player)) }];
    case "boardEnded":
      return [{ text: t("race.ev.boardEnded", { board: e.value.board, why: endText(e.value.reason) }) }];
    case "boardRevealed": {
      const v = e.value;
      const lines: Line[] = [{ text: t("race.ev.revealed", { board: v.board }) }];
      for (const r of tr.revealed.find((rb) => rb.board === v.board)?.results ?? []) {
        lines.push({ text: t("race.ev.result", { who: capital(who(tr, r.player)), outcome: outcomeText(r.outcome), pairs: r.pairs, turns: r.turns, time: seconds(r.timeMs) }) });
      }
      if (v.board < BOARDS && !tr.gameOver) {
        const rows = runningStandings(tr);
        if (rows.length) {
          lines.push({ text: t("race.ev.standings", { board: v.board, rows: rows.map((r) => t("race.standingRow", { place: r.place, who: who(tr, r.player), pairs: r.pairs })).join(", ") }) });
        }
      }
      return lines;
    }
    case "gameEnded": {
      const rows = e.value.standings.map((s) => t("race.standingRow", { place: s.place, who: who(tr, s.player), pairs: s.pairs }));
      return [{ text: t("race.ev.gameOver", { rows: rows.join(", ") }) }];
    }
    default:
      return [];
  }
}

/** What a fresh snapshot says (`nowMs`: the server's clock, for the time Ready has left). */
export function describeSnapshot(tr: RaceTracker, nowMs: number): Line[] {
  if (tr.phase === Phase.READY && !isOut(tr) && tr.status === Status.WAITING && tr.readyDeadlineMs) {
    const secs = Math.max(Math.ceil((tr.readyDeadlineMs - nowMs) / 1000), 0);
    return [{ text: t("race.ev.pressReady", { board: tr.board, boards: BOARDS, secs }) }];
  }
  const during = tr.board && tr.phase !== Phase.GAME_OVER && tr.phase !== Phase.WAITING_FOR_PLAYERS;
  const lines: Line[] = [{ text: during ? t("race.boardPhase", { board: tr.board, boards: BOARDS, phase: phaseText(tr) }) : phaseText(tr) }];
  if (tr.phase === Phase.PLAYING && tr.status === Status.PLAYING) {
    lines.push({ text: t("race.youHave", { pairs: tr.pairs, turns: tr.turns }) });
  }
  return lines;
}
