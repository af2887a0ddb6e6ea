/**
 * What the Number Match page says: each event as a sentence (announced and logged), the
 * settings, the counters, the end. A port of the lines of libs/match_client/number_match.py.
 * Pure: give it the tracker after the event was folded.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { numbersLeft, rowCount, where } from "./board";
import { clockText, count } from "../play/words";
import { HINTS, HintKind, LEVELS, OUTCOMES, Undone, type NumberMatchTracker } from "./tracker";

/** `4 additions left`, or `additions: no limit` (Classic). */
export function additionsText(left: number | null): string {
  return left === null ? "additions: no limit" : `${count(left, "addition")} left`;
}

export function settingsText(t: NumberMatchTracker): string {
  const name = t.level;
  const level = LEVELS[name]!;
  const limit = level.additions === null ? "additions without limit" : count(level.additions, "addition");
  let text = `${name}, ${level.numbers} numbers, ${limit}, ${HINTS} hints`;
  if (t.dailyDate) text = `the daily puzzle of ${t.dailyDate} (${text})`;
  if (t.replay || (t.settings?.replaySeed.length ?? 0) > 0) text += ", the board of a finished game played again (not ranked)";
  return text;
}

export function hintText(t: NumberMatchTracker, kind: number, first: number, second: number): string {
  if (kind === HintKind.PAIR) {
    const a = t.board[first - 1];
    const b = t.board[second - 1];
    const numbers = a && b ? `${a} and ${b}, ` : "";
    return `Hint: ${numbers}${where(first)} and ${where(second)}: a pair that keeps the board clearable`;
  }
  if (kind === HintKind.ADD) return "Hint: no pair keeps the board clearable: time to add numbers (A)";
  return "Hint: the board can no longer be cleared with the additions left: undo (U), or end the game and play its board again";
}

export function statusLine(t: NumberMatchTracker, nowMs: number): string {
  return `Score ${t.score}, ${count(numbersLeft(t.board), "number")} in ${count(rowCount(t.board), "row")}, ` +
    `${additionsText(t.additionsLeft)}, ${count(t.hintsLeft, "hint")} left, time ${clockText(t.elapsedMs(nowMs))}`;
}

/** The sentence one event gives (already folded into `t`), or "" for nothing worth saying. */
export function eventText(env: EventEnvelope, t: NumberMatchTracker): string {
  if (env.body.case === "table") {
    return env.body.value.event.case === "seedRevealed" ? "The game's seed is published" : "";
  }
  if (env.body.case !== "numberMatch") return "";
  const ev = env.body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return `The game starts: ${settingsText(t)}`;
    case "cellsPaired": {
      const e = ev.value;
      const [a, b] = t.lastPair;
      const rows = e.rowsRemoved ? `, ${count(e.rowsRemoved, "row")} removed` : "";
      return `Pair: ${a} and ${b} (${where(e.first)} and ${where(e.second)}), +${e.points}${rows}; score ${e.score}`;
    }
    case "numbersAdded": {
      const e = ev.value;
      const left = e.additionsLeft === undefined ? "" : `; ${count(e.additionsLeft, "addition")} left`;
      return `Numbers added: ${count(e.count, "number")} copied after the last one${left}`;
    }
    case "hintGiven": {
      const e = ev.value;
      return `${hintText(t, e.kind, e.first, e.second)} (${count(e.hintsLeft, "hint")} left)`;
    }
    case "moveUndone": {
      const e = ev.value;
      const what = e.undone === Undone.ADD ? "addition (you get it back)" : "pair";
      return `Undone: the last ${what}; score ${e.score}`;
    }
    case "gameOver":
      return `The game is over: ${OUTCOMES[ev.value.outcome] ?? "over"}. Score ${ev.value.score}`;
    default:
      return "";
  }
}

/** What a snapshot says when the page (re)connects. */
export function snapshotText(t: NumberMatchTracker, nowMs: number): string {
  if (!t.started) return "Waiting for the game to start";
  if (t.gameOver) return `The game is over: ${OUTCOMES[t.outcome] ?? "over"}. Score ${t.score}`;
  return `The game: ${settingsText(t)}. ${statusLine(t, nowMs)}`;
}

/** The witness as steps: `1-2, +, 3-4`. */
export function witnessText(t: NumberMatchTracker): string {
  return t.witness.map((s) => (s.add ? "+" : `${s.first}-${s.second}`)).join(", ");
}
