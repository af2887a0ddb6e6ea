/**
 * The clock a player needs: what runs out next, when, and what to say before it does.
 *
 * A port of libs/match_client/timing.py. Pure: give it the tracker and the server's `now`
 * (play/clock.ts's `ServerClock.now()`, never ahead of the referee's). The
 * deadlines are the server's own instants, as the tracker holds them: the Ready deadline, the
 * countdown's T0, the two-minute cap or the 20 s after the first clear, and the pause after a
 * miss.
 */

import { Phase, Status, type RaceTracker } from "./tracker";
import { t as tx } from "../i18n";

export const READY_WARN_MS = [10_000] as const;
export const BOARD_WARN_MS = [60_000, 30_000, 10_000] as const;
export const GRACE_WARN_MS = [10_000] as const;

/** What runs out next: `finish` is the 20 s everybody else has once someone cleared the board. */
export interface Deadline {
  readonly kind: "ready" | "countdown" | "board" | "finish";
  readonly board: number;
  readonly atMs: number;
}

/** The viewer is out of the game (missed a Ready or resigned). */
export function isOut(t: RaceTracker): boolean {
  return t.players.get(t.player)?.out ?? false;
}

export function isReady(t: RaceTracker): boolean {
  return t.players.get(t.player)?.ready ?? false;
}

export function deadline(t: RaceTracker): Deadline | null {
  if (t.phase === Phase.READY && t.readyDeadlineMs) return { kind: "ready", board: t.board, atMs: t.readyDeadlineMs };
  if (t.phase === Phase.COUNTDOWN && t.startsAtMs) return { kind: "countdown", board: t.board, atMs: t.startsAtMs };
  if (t.phase === Phase.PLAYING && !t.boardEnded && t.endsAtMs) {
    return { kind: t.takenBy ? "finish" : "board", board: t.board, atMs: t.endsAtMs };
  }
  return null;
}

/** `1:42` from a minute up, `9 s` below (whole seconds, rounded up: 0.2 s left is 1 s). */
export function leftText(ms: number): string {
  const s = Math.max(Math.ceil(ms / 1000), 0);
  return s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : tx("race.secs", { s });
}

/** How long the player's board still takes no turn after a miss (0: it takes turns). */
export function pausedMs(t: RaceTracker, nowMs: number): number {
  if (t.phase !== Phase.PLAYING || t.boardEnded) return 0;
  return Math.max(t.pausedUntilMs - nowMs, 0);
}

/** The fraction of the current deadline's span still left (1 full, 0 over), for a bar. */
export function fractionLeft(d: Deadline, t: RaceTracker, nowMs: number): number {
  let span: number;
  if (d.kind === "ready") span = t.readyWindowMs || 30_000;
  else if (d.kind === "countdown") span = 3_000;
  else if (d.kind === "finish") span = 20_000;
  else span = 120_000;
  return Math.min(Math.max((d.atMs - nowMs) / span, 0), 1);
}

/** One line: what runs out next and in how long; "" when nothing is timed. */
export function clockLine(t: RaceTracker, nowMs: number): string {
  const d = deadline(t);
  if (d === null) return "";
  const left = leftText(d.atMs - nowMs);
  let text: string;
  if (d.kind === "ready") {
    if (isOut(t)) text = tx("race.clock.readyOthers", { board: d.board, left });
    else if (isReady(t)) text = tx("race.clock.readyDone", { board: d.board, left });
    else text = tx("race.clock.ready", { board: d.board, left });
  } else if (d.kind === "countdown") {
    text = tx("race.clock.countdown", { board: d.board, left });
  } else if (d.kind === "finish") {
    text = tx("race.clock.finish", { board: d.board, left });
  } else {
    text = tx("race.clock.board", { board: d.board, left });
  }
  const pause = pausedMs(t, nowMs);
  if (pause) text += tx("race.clock.paused", { s: (pause / 1000).toFixed(1) });
  return text;
}

/**
 * The milestone a player should hear now, at most one, each said once: Ready closing (only to
 * a player who has not pressed it and is in the game), the board's last minute, 30 s and
 * 10 s, the last 10 s to finish after a clear. `said` remembers them.
 */
export function announcements(t: RaceTracker, nowMs: number, said: Set<string>): string[] {
  const d = deadline(t);
  if (d === null) return [];
  let marks: readonly number[];
  if (d.kind === "ready") {
    if (isOut(t) || isReady(t) || t.status !== Status.WAITING) return [];
    marks = READY_WARN_MS;
  } else if (d.kind === "board") {
    marks = BOARD_WARN_MS;
  } else if (d.kind === "finish") {
    marks = GRACE_WARN_MS;
  } else {
    return [];
  }
  if (isOut(t)) return [];
  const left = d.atMs - nowMs;
  const key = (m: number): string => `${d.kind}:${d.board}:${m}`;
  const due = marks.filter((m) => left <= m && !said.has(key(m)));
  if (due.length === 0 || left <= 0) return [];
  for (const m of marks) if (left <= m) said.add(key(m));
  const when = leftText(left);
  if (d.kind === "ready") return [tx("race.warn.ready", { when })];
  if (d.kind === "finish") return [tx("race.warn.finish", { when, board: d.board })];
  return [tx("race.warn.board", { when, board: d.board })];
}
