/**
 * What the MATCH 5 page says: each event as sentences (announced and logged), the ballots, the
 * results. A port of the lines of libs/match_client/match_five.py. Pure: give it the tracker
 * after the event was folded.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { MatchFiveEvent_CombinationClosed } from "../gen/match/v1/match_five_pb";
import { clockText, count } from "../play/words";
import { ACCEPT, COLOURS, isCall, Phase, ROUNDS, type Ballot, type MatchFiveTracker } from "./tracker";

export function quoted(text: string): string {
  return `“${text}”`;
}

/** `your` or `Bob's`. */
export function possessive(t: MatchFiveTracker, player: string): string {
  return player && player === t.player ? "your" : `${t.name(player)}'s`;
}

/** `You` or `Bob`, at the start of a sentence. */
export function subject(t: MatchFiveTracker, player: string): string {
  return player && player === t.player ? "You" : t.name(player);
}

/** `3, red and blue (Job / City)`. */
export function combinationText(t: MatchFiveTracker, n: number): string {
  const c = t.combinations.get(n);
  if (c === undefined) return String(n);
  const cats = c.categories[0] && c.categories[1] ? ` (${c.categories[0]} / ${c.categories[1]})` : "";
  return `${n}, ${c.colours[0]} and ${c.colours[1]}${cats}`;
}

export function settingsText(t: MatchFiveTracker): string {
  return `${ROUNDS} rounds, the sand timer ${t.writingSeconds} s, each combination's vote ${t.voteSeconds} s`;
}

export function categoriesText(t: MatchFiveTracker): string {
  return COLOURS.map((c, i) => `${c}: ${t.categories[i] ?? "?"}`).join(", ");
}

export function ballotText(t: MatchFiveTracker, b: Ballot): string {
  if (isCall(b)) {
    const own = t.everyBallot.get(b.own);
    const target = t.everyBallot.get(b.target);
    const ownText = own ? ` ${quoted(own.text)}` : "";
    const targetText = target ? ` ${quoted(target.text)}` : "";
    const targetName = target ? `${possessive(t, target.player)} ` : "";
    return `Match! ${subject(t, b.player)} called ${targetName}link${targetText} (ballot ${b.target}) a match of ${own ? possessive(t, own.player) + " " : ""}link${ownText} (ballot ${b.own})`;
  }
  const grouped = b.group
    ? [...t.ballots.values()].filter((o) => o.group === b.group && o.ballot !== b.ballot && !isCall(o)).map((o) => o.ballot)
    : [];
  const same = grouped.length ? `, the same link as ballot ${grouped.join(" and ")}` : "";
  return `${subject(t, b.player)} wrote ${quoted(b.text)}${same}`;
}

export function timerText(t: MatchFiveTracker, nowMs: number): string {
  if (t.gameOver) return "The game is over";
  if (t.expired) return "The table expired";
  if (!t.started) return "The game starts when every seat is taken";
  if (t.phase === Phase.WRITING && t.deadlineMs) return `Sand timer: ${clockText(t.deadlineMs - nowMs)} left`;
  if (t.phase === Phase.READING && t.combination && t.deadlineMs) return `The vote on combination ${t.combination}: ${clockText(t.deadlineMs - nowMs)} left`;
  return "";
}

export function closedLines(t: MatchFiveTracker, closed: MatchFiveEvent_CombinationClosed): string[] {
  if (!closed.results.length) return [`Combination ${combinationText(t, closed.combination)}: nobody wrote a link for it`];
  const scores = new Map(closed.scores.map((s) => [s.ballot, s]));
  const out = [`Combination ${combinationText(t, closed.combination)} closed:`];
  for (const r of closed.results) {
    const b = t.everyBallot.get(r.ballot);
    const votes = `${r.accepts} to ${r.contests}`;
    if (b !== undefined && isCall(b)) {
      out.push(`Match! of ballots ${b.own} and ${b.target}: ${r.accepted ? "agreed" : "not agreed"}, ${votes}`);
      continue;
    }
    const who = b ? `${possessive(t, b.player)} ${quoted(b.text)}` : `ballot ${r.ballot}`;
    const tie = r.authorIgnored ? ", a tie settled without the author's vote" : "";
    const s = scores.get(r.ballot);
    const pts = s ? `: ${count(s.points, "point")}${s.matching ? ", a matching link" : ""}` : "";
    out.push(`${who[0]!.toUpperCase()}${who.slice(1)} ${r.accepted ? "accepted" : "refused"}, ${votes}${tie}${pts}`);
  }
  return out;
}

/** What one event says (already folded into `t`); empty for nothing to say. */
export function eventLines(env: EventEnvelope, t: MatchFiveTracker): string[] {
  if (env.body.case === "table") {
    const e = env.body.value.event;
    if (e.case === "playerSeated") {
      return [e.value.playerId === t.player ? `You sit at seat ${e.value.seat}` : `${e.value.displayName} sits at seat ${e.value.seat}`];
    }
    if (e.case === "playerLeft") return [`${t.name(e.value.playerId)} left the table`];
    if (e.case === "seedRevealed") return ["The game's seed is published"];
    if (e.case === "tableExpired") return ["The table expired: its game did not start in time"];
    return [];
  }
  if (env.body.case !== "matchFive") return [];
  const ev = env.body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return [`The game starts: ${settingsText(t)}. Players: ${ev.value.players.map((p) => t.name(p)).join(", ")}`];
    case "roundStarted":
      return [`Round ${ev.value.round} of ${ROUNDS}: the dice are rolled and the sand timer turned, ${clockText(Number(ev.value.writingEndsAt - ev.value.at))}. Categories: ${categoriesText(t)}`];
    case "linkWritten":
      return ev.value.player === t.player ? [`Your link for ${combinationText(t, ev.value.combination)}: ${quoted(ev.value.text)}`] : [];
    case "linkErased":
      return ev.value.player === t.player ? [`Your link for ${combinationText(t, ev.value.combination)} is erased`] : [];
    case "writingProgress":
      return [`${t.name(ev.value.player)} has ${count(ev.value.links, "link")}`];
    case "playerDone": {
      const e = ev.value;
      const mine = e.player === t.player;
      if (e.combination === 0) {
        return mine
          ? [`You are done writing, with ${count(t.me.links, "link")}: the reading starts once everybody is done, or when the sand timer runs out`]
          : [`${t.name(e.player)} is done writing (${count(t.line(e.player).links, "link")})`];
      }
      return [`${subject(t, e.player)} ${mine ? "are" : "is"} done with combination ${e.combination}`];
    }
    case "combinationOpened": {
      const e = ev.value;
      if (!e.links.length) return [];
      const ballots = t.openBallots().map((b) => `ballot ${b.ballot}: ${ballotText(t, b)}`);
      return [`Reading combination ${combinationText(t, e.combination)}: ${count(e.links.length, "link")}. ${ballots.join("; ")}. The vote closes in ${clockText(Number(e.votesEndAt - e.at))}`];
    }
    case "voteCast": {
      const e = ev.value;
      const b = t.everyBallot.get(e.ballot);
      if (e.player !== t.player) return [`${t.name(e.player)} voted on ballot ${e.ballot}`];
      if (b && isCall(b)) return [`You ${e.accept ? "agree" : "do not agree"} that ballot ${e.ballot} is a match`];
      return [`You ${e.accept ? "accept" : "contest"} ballot ${e.ballot}${b ? ` (${quoted(b.text)})` : ""}`];
    }
    case "matchCalled": {
      const b = t.everyBallot.get(ev.value.ballot);
      return [b ? `Ballot ${b.ballot}: ${ballotText(t, b)}` : `Ballot ${ev.value.ballot}: Match!`];
    }
    case "combinationClosed":
      return [closedLines(t, ev.value).join(" ")];
    case "roundScored":
      return [`Round ${ev.value.round} score box: ` + ev.value.scores.map((s) =>
        `${t.name(s.player)} ${count(s.points, "point")} (${count(s.matching, "matching link")}), total ${s.total}`).join("; ")];
    case "gameEnded": {
      const winners = t.winners().map((p) => t.name(p));
      const who = winners.length === 1 ? `The winner: ${winners[0]}` : winners.length ? `Sharing the victory: ${winners.join(", ")}` : "";
      return [`The game is over. ${who}`];
    }
    default:
      return [];
  }
}

/** Your vote as words. */
export function voteText(v: number, call: boolean): string {
  if (!v) return "";
  if (call) return v === ACCEPT ? "You agree" : "You do not agree";
  return v === ACCEPT ? "You accepted it" : "You contested it";
}
