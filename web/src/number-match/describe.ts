/**
 * What the Number Match page says: each event as a sentence (announced and logged), the
 * settings, the counters, the end. A port of the lines of libs/match_client/number_match.py.
 * Pure: give it the tracker after the event was folded.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import { numbersLeft, rowCount, where } from "./board";
import { t } from "../i18n";
import { clockText } from "../play/words";
import { HINTS, HintKind, LEVELS, outcomeText, Undone, type NumberMatchTracker } from "./tracker";

/** `4 additions left`, or `additions: no limit` (Classic). */
export function additionsText(left: number | null): string {
  return left === null ? t("nm.additionsNoLimit") : t("nm.additionsLeft", { n: left });
}

/** A level's name: `easy` -> `Easy` (`Leicht`, `Εύκολο`). */
export function levelName(key: string): string {
  return t(`nm.level.${key}`);
}

export function settingsText(tr: NumberMatchTracker): string {
  const name = tr.level;
  const level = LEVELS[name]!;
  const limit = level.additions === null ? t("nm.additionsWithoutLimit") : t("nm.additions", { n: level.additions });
  let text = t("nm.settings", { level: t(`nm.levelLower.${name}`), numbers: level.numbers, limit, hints: HINTS });
  if (tr.dailyDate) text = t("nm.daily", { date: tr.dailyDate, settings: text });
  if (tr.replay || (tr.settings?.replaySeed.length ?? 0) > 0) text += t("nm.replayed");
  return text;
}

export function hintText(tr: NumberMatchTracker, kind: number, first: number, second: number): string {
  if (kind === HintKind.PAIR) {
    const a = tr.board[first - 1];
    const b = tr.board[second - 1];
    return a && b
      ? t("nm.hintPairNumbers", { a, b, first: where(first), second: where(second) })
      : t("nm.hintPair", { first: where(first), second: where(second) });
  }
  if (kind === HintKind.ADD) return t("nm.hintAdd");
  return t("nm.hintStuck");
}

export function statusLine(tr: NumberMatchTracker, nowMs: number): string {
  return t("nm.status", { score: tr.score, numbers: numbersLeft(tr.board), rows: rowCount(tr.board), additions: additionsText(tr.additionsLeft), hints: tr.hintsLeft, time: clockText(tr.elapsedMs(nowMs)) });
}

export function eventText(env: EventEnvelope, tr: NumberMatchTracker): string {
  if (env.body.case === "table") {
    return env.body.value.event.case === "seedRevealed" ? t("nm.ev.seed") : "";
  }
  if (env.body.case !== "numberMatch") return "";
  const ev = env.body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return t("nm.ev.starts", { settings: settingsText(tr) });
    case "cellsPaired": {
      const e = ev.value;
      const [a, b] = tr.lastPair;
      return t("nm.ev.pair", { a: a ?? 0, b: b ?? 0, first: where(e.first), second: where(e.second), points: e.points, rows: e.rowsRemoved, score: e.score });
    }
    case "numbersAdded": {
      const e = ev.value;
      const text = t("nm.ev.added", { n: e.count });
      return e.additionsLeft === undefined ? text : `${text}; ${t("nm.additionsLeft", { n: e.additionsLeft })}`;
    }
    case "hintGiven": {
      const e = ev.value;
      return `${hintText(tr, e.kind, e.first, e.second)} (${t("nm.hintsLeft", { n: e.hintsLeft })})`;
    }
    case "moveUndone": {
      const e = ev.value;
      return t("nm.ev.undone", { what: e.undone === Undone.ADD ? "add" : "pair", score: e.score });
    }
    case "gameOver":
      return t("nm.ev.over", { outcome: outcomeText(ev.value.outcome), score: ev.value.score });
    default:
      return "";
  }
}

export function snapshotText(tr: NumberMatchTracker, nowMs: number): string {
  if (!tr.started) return t("nm.waitingStart");
  if (tr.gameOver) return t("nm.ev.over", { outcome: outcomeText(tr.outcome), score: tr.score });
  return t("nm.snapshot", { settings: settingsText(tr), status: statusLine(tr, nowMs) });
}

export function witnessText(tr: NumberMatchTracker): string {
  return tr.witness.map((s) => (s.add ? "+" : `${s.first}-${s.second}`)).join(", ");
}
