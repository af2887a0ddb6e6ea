/**
 * What the page says, as text: tile labels for screen readers, a line (or a few) per event for
 * the log and the aria-live region, the running standings between boards. Pure functions of
 * the tracker and the events, after the tracker text of libs/match_client/text.py. Nothing
 * here names a face the server did not send: a tile's symbol comes only from the tracker.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { RaceEvent_EndReason } from "../gen/match/v1/race_pb";
import { count, hex } from "../play/words";
import { capital } from "../sentence";
import { isOut } from "./timing";
import { BOARDS, Outcome, Phase, Status, TileState, type RaceTracker, type Tile } from "./tracker";
import { symbolName } from "./symbols";

/** One thing to say; `quiet` lines go to the visible log only, not the aria-live region. */
export interface Line {
  readonly text: string;
  readonly quiet?: boolean;
}

export const OUTCOME_TEXT: Record<number, string> = {
  [Outcome.UNSPECIFIED]: "still playing",
  [Outcome.CLEARED]: "cleared",
  [Outcome.DISQUALIFIED]: "disqualified (cleared in under 12 s)",
  [Outcome.OUT_OF_TURNS]: "out of turns",
  [Outcome.RESIGNED]: "resigned",
  [Outcome.BOARD_ENDED]: "still playing when the board ended",
  [Outcome.OUT]: "out of the game",
  [Outcome.NOT_PLAYED]: "not played",
};

export const END_TEXT: Record<number, string> = {
  [RaceEvent_EndReason.UNSPECIFIED]: "",
  [RaceEvent_EndReason.ALL_DONE]: "every player is done with it",
  [RaceEvent_EndReason.GRACE_OVER]: "the 20 seconds to finish after the first clear are up",
  [RaceEvent_EndReason.TIME_CAP]: "the two minutes are up",
};

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
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
  if (state === "found") return `Tile ${tile.number}, found`;
  if (state === "up" && tile.symbol !== undefined) return `Tile ${tile.number}, ${symbolName(tile.symbol)}`;
  return `Tile ${tile.number}, face down`;
}

export function who(t: RaceTracker, player: string): string {
  return player === t.player ? "you" : t.name(player);
}

/** Where the game stands on the current board, in a few words (beside "Board 2 of 3"). */
export function phaseText(t: RaceTracker): string {
  switch (t.phase) {
    case Phase.WAITING_FOR_PLAYERS:
      return t.expired ? "The table expired: its game did not start in time" : "Waiting for players";
    case Phase.READY:
      return isOut(t) ? "Ready is open for the others (you are out of the game)" : "Ready is open";
    case Phase.COUNTDOWN:
      return "Starting";
    case Phase.PLAYING:
      if (isOut(t)) return "Under way (you are out of the game)";
      if (t.status === Status.DONE) return `Your board is over: ${OUTCOME_TEXT[t.outcome] ?? ""}`;
      return "Under way";
    case Phase.BETWEEN_BOARDS:
      return "Over";
    case Phase.GAME_OVER:
      return "The game is over";
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
export function describeEvent(env: EventEnvelope, t: RaceTracker, before?: ReadonlyMap<string, Counts>): Line[] {
  const body = env.body;
  if (body.case === "table") {
    const e = body.value.event;
    switch (e.case) {
      case "playerSeated":
        return [{ text: `${e.value.playerId === t.player ? "You" : e.value.displayName} sat down at seat ${e.value.seat}${e.value.isBot ? " (bot)" : ""}` }];
      case "playerLeft":
        return [{ text: `${capital(who(t, e.value.playerId))} left seat ${e.value.seat}` }];
      case "seedRevealed":
        return [{ text: `The seed is published: ${hex(e.value.seed)}` }];
      case "fillRequested":
        return [{ text: "The bot is filling the empty seats" }];
      case "botsAssigned":
        return [{ text: `The bot plays at ${e.value.strength} strength this game`, quiet: true }];
      case "tableExpired":
        return [{ text: "The table expired: its game did not start in time. Make a new table or join another" }];
      case "seedCommitted":
        return [{ text: `Seed commitment (SHA-256): ${e.value.commitment}`, quiet: true }];
      default:
        return [];
    }
  }
  if (body.case !== "race") return [];
  const e = body.value.event;
  switch (e.case) {
    case "gameStarted": {
      const names = e.value.players.map((p) => who(t, p) + (e.value.bots.includes(p) ? " (bot)" : "")).join(", ");
      return [{ text: `The game starts: three boards. Players: ${names}` }];
    }
    case "readyOpened": {
      const v = e.value;
      const secs = Math.round(Number(v.deadline - v.at) / 1000);
      if (isOut(t)) return [{ text: `Board ${v.board}: Ready is open for the others (you are out of the game)` }];
      return [{ text: `Board ${v.board} of ${BOARDS}: press Ready within ${secs} s. Miss it and you are out of the game` }];
    }
    case "playerReady":
      return [{ text: e.value.player === t.player ? "You are ready" : `${t.name(e.value.player)} is ready` }];
    case "playerMissedReady":
      return [{
        text: e.value.player === t.player
          ? "You did not press Ready in time and are out of the game"
          : `${t.name(e.value.player)} did not press Ready in time and is out of the game`,
      }];
    case "countdownStarted": {
      const v = e.value;
      return [{ text: `Board ${v.board} starts in ${Math.round(Number(v.startsAt - v.at) / 1000)} s` }];
    }
    case "boardStarted":
      return [{ text: t.status === Status.PLAYING ? `Board ${e.value.board}: go!` : `Board ${e.value.board} has started` }];
    case "tilesTurnedDown": {
      const [a, b] = e.value.tiles;
      return [{ text: `Tiles ${a} and ${b} turned back down`, quiet: true }];
    }
    case "tileTurned":
      return [{ text: `Tile ${e.value.tile}: ${symbolName(e.value.symbol)}` }];
    case "pairFound": {
      const [a, b] = e.value.tiles;
      return [{ text: `Pair found: tiles ${a} and ${b}, ${symbolName(e.value.symbol)}. ${count(e.value.pairs, "pair")}` }];
    }
    case "attemptMissed": {
      const [a, b] = e.value.tiles;
      return [{ text: `No pair: tiles ${a} and ${b} differ. Paused ${seconds(Number(e.value.pausedUntil - e.value.at))}` }];
    }
    case "hintGiven":
      return [{ text: `Hint: the partner of tile ${e.value.tile} is tile ${e.value.partner}` }];
    case "opponentMoved": {
      const v = e.value;
      const was = before?.get(v.player);
      if (was !== undefined && was.pairs === v.pairs && was.turns === v.turns && was.hints === v.hints) return [];
      const text = `${t.name(v.player)}: ${count(v.pairs, "pair")}, ${count(v.turns, "turn")}` + (v.hints ? `, ${count(v.hints, "hint")}` : "");
      return [{ text, quiet: was === undefined ? v.pairs === 0 : v.pairs <= was.pairs }];
    }
    case "turnsExhausted":
      return [{
        text: e.value.player === t.player
          ? `You used all 80 turns: board ${e.value.board} is over for you`
          : `${t.name(e.value.player)} used all 80 turns`,
      }];
    case "boardCleared":
      return [{ text: `${capital(who(t, e.value.player))} cleared the board in ${seconds(Number(e.value.elapsedMs))}` }];
    case "clearDisqualified":
      return [{ text: `${capital(who(t, e.value.player))} cleared the board in ${seconds(Number(e.value.elapsedMs))}, under 12 s: disqualified on this board` }];
    case "boardTaken": {
      const v = e.value;
      if (v.player === t.player) return [{ text: `You took board ${v.board}` }];
      return [{ text: `${t.name(v.player)} took board ${v.board}: ${Math.round(Number(v.graceUntil - v.at) / 1000)} s left to finish` }];
    }
    case "playerResigned":
      return [{ text: e.value.player === t.player ? "You resigned" : `${t.name(e.value.player)} resigned` }];
    case "boardEnded":
      return [{ text: `Board ${e.value.board} ended: ${END_TEXT[e.value.reason] ?? ""}` }];
    case "boardRevealed": {
      const v = e.value;
      const lines: Line[] = [{ text: `Board ${v.board} revealed` }];
      for (const r of t.revealed.find((rb) => rb.board === v.board)?.results ?? []) {
        lines.push({ text: `${capital(who(t, r.player))}: ${OUTCOME_TEXT[r.outcome] ?? ""}, ${count(r.pairs, "pair")}, ${count(r.turns, "turn")}, ${seconds(r.timeMs)}` });
      }
      if (v.board < BOARDS && !t.gameOver) {
        const rows = runningStandings(t);
        if (rows.length) {
          lines.push({ text: `Standings after board ${v.board}: ` + rows.map((r) => `${r.place}. ${who(t, r.player)} ${count(r.pairs, "pair")}`).join(", ") });
        }
      }
      return lines;
    }
    case "gameEnded": {
      const rows = e.value.standings.map((s) => `${s.place}. ${who(t, s.player)} ${count(s.pairs, "pair")}`);
      return [{ text: `The game is over. ${rows.join(", ")}` }];
    }
    default:
      return [];
  }
}

/** What a fresh snapshot says (`nowMs`: the server's clock, for the time Ready has left). */
export function describeSnapshot(t: RaceTracker, nowMs: number): Line[] {
  if (t.phase === Phase.READY && !isOut(t) && t.status === Status.WAITING && t.readyDeadlineMs) {
    const secs = Math.max(Math.ceil((t.readyDeadlineMs - nowMs) / 1000), 0);
    return [{ text: `Board ${t.board} of ${BOARDS}: press Ready within ${secs} s. Miss it and you are out of the game` }];
  }
  const during = t.board && t.phase !== Phase.GAME_OVER && t.phase !== Phase.WAITING_FOR_PLAYERS;
  const lines: Line[] = [{ text: during ? `Board ${t.board} of ${BOARDS}: ${phaseText(t)}` : phaseText(t) }];
  if (t.phase === Phase.PLAYING && t.status === Status.PLAYING) {
    lines.push({ text: `You have ${count(t.pairs, "pair")} in ${count(t.turns, "turn")}` });
  }
  return lines;
}
