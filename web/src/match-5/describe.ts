/**
 * What the MATCH 5 page says: each event as sentences (announced and logged), the ballots, the
 * results. A port of the lines of libs/match_client/match_five.py. Pure: give it the tracker
 * after the event was folded.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { MatchFiveEvent_CombinationClosed } from "../gen/match/v1/match_five_pb";
import { t } from "../i18n";
import { clockText } from "../play/words";
import { ACCEPT, COLOURS, isCall, Phase, ROUNDS, type Ballot, type MatchFiveTracker } from "./tracker";

export function quoted(text: string): string {
  return t("m5.quoted", { text });
}

/** `{me, name}` for a message that says "you"/"your" to the viewer and a name for the others. */
function whom(tr: MatchFiveTracker, player: string): { me: "yes" | "no"; name: string } {
  return { me: player !== "" && player === tr.player ? "yes" : "no", name: tr.name(player) };
}

export function possessive(tr: MatchFiveTracker, player: string): string {
  return t("m5.possessive", whom(tr, player));
}

export function subject(tr: MatchFiveTracker, player: string): string {
  return t("m5.subject", whom(tr, player));
}

/** A category colour's name (`red`) in the player's language. */
export function colourName(colour: string): string {
  return t(`m5.colour.${colour}`);
}

export function combinationText(tr: MatchFiveTracker, n: number): string {
  const c = tr.combinations.get(n);
  if (c === undefined) return String(n);
  const cats = c.categories[0] && c.categories[1] ? ` (${c.categories[0]} / ${c.categories[1]})` : "";
  return `${t("m5.combination", { n, a: colourName(c.colours[0]), b: colourName(c.colours[1]) })}${cats}`;
}

export function settingsText(tr: MatchFiveTracker): string {
  return t("m5.settings", { rounds: ROUNDS, writing: tr.writingSeconds, vote: tr.voteSeconds });
}

export function categoriesText(tr: MatchFiveTracker): string {
  return COLOURS.map((c, i) => `${colourName(c)}: ${tr.categories[i] ?? "?"}`).join(", ");
}

export function ballotText(tr: MatchFiveTracker, b: Ballot): string {
  if (isCall(b)) {
    const own = tr.everyBallot.get(b.own);
    const target = tr.everyBallot.get(b.target);
    return t("m5.call", {
      who: subject(tr, b.player),
      target: target ? t("m5.linkOf", { whose: possessive(tr, target.player), text: quoted(target.text) }) : t("m5.aLink"), targetBallot: b.target,
      own: own ? t("m5.linkOf", { whose: possessive(tr, own.player), text: quoted(own.text) }) : t("m5.aLink"), ownBallot: b.own,
    });
  }
  const grouped = b.group
    ? [...tr.ballots.values()].filter((o) => o.group === b.group && o.ballot !== b.ballot && !isCall(o)).map((o) => o.ballot)
    : [];
  const same = grouped.length ? t("m5.sameAs", { ballots: grouped.join(` ${t("m5.and")} `) }) : "";
  return t("m5.wrote", { ...whom(tr, b.player), text: quoted(b.text) }) + same;
}

export function timerText(tr: MatchFiveTracker, nowMs: number): string {
  if (tr.gameOver) return t("race.phase.gameOver");
  if (tr.expired) return t("m5.expired");
  if (!tr.started) return t("m5.startsWhenFull");
  if (tr.phase === Phase.WRITING && tr.deadlineMs) return t("m5.sandTimer", { left: clockText(tr.deadlineMs - nowMs) });
  if (tr.phase === Phase.READING && tr.combination && tr.deadlineMs) return t("m5.voteTimer", { n: tr.combination, left: clockText(tr.deadlineMs - nowMs) });
  return "";
}

export function closedLines(tr: MatchFiveTracker, closed: MatchFiveEvent_CombinationClosed): string[] {
  if (!closed.results.length) return [t("m5.nobodyWrote", { combination: combinationText(tr, closed.combination) })];
  const scores = new Map(closed.scores.map((s) => [s.ballot, s]));
  const out = [t("m5.closed", { combination: combinationText(tr, closed.combination) })];
  for (const r of closed.results) {
    const b = tr.everyBallot.get(r.ballot);
    const votes = t("m5.votes", { accepts: r.accepts, contests: r.contests });
    if (b !== undefined && isCall(b)) {
      out.push(t("m5.callResult", { own: b.own, target: b.target, agreed: r.accepted ? "yes" : "no", votes }));
      continue;
    }
    const who = b ? t("m5.whoseLink", { whose: possessive(tr, b.player), text: quoted(b.text) }) : t("m5.ballotN", { n: r.ballot });
    const tie = r.authorIgnored ? t("m5.tie") : "";
    const s = scores.get(r.ballot);
    const pts = s ? t("m5.points", { n: s.points, matching: s.matching ? "yes" : "no" }) : "";
    out.push(`${who[0]!.toUpperCase()}${who.slice(1)} ${t("m5.verdict", { accepted: r.accepted ? "yes" : "no" })}, ${votes}${tie}${pts}`);
  }
  return out;
}

export function eventLines(env: EventEnvelope, tr: MatchFiveTracker): string[] {
  if (env.body.case === "table") {
    const e = env.body.value.event;
    if (e.case === "playerSeated") {
      return [t("m5.ev.seated", { me: e.value.playerId === tr.player ? "yes" : "no", name: e.value.displayName, seat: e.value.seat })];
    }
    if (e.case === "playerLeft") return [t("m5.ev.left", whom(tr, e.value.playerId))];
    if (e.case === "seedRevealed") return [t("nm.ev.seed")];
    if (e.case === "tableExpired") return [t("race.phase.expired")];
    return [];
  }
  if (env.body.case !== "matchFive") return [];
  const ev = env.body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return [t("m5.ev.starts", { settings: settingsText(tr), players: ev.value.players.map((p) => tr.name(p)).join(", ") })];
    case "roundStarted":
      return [t("m5.ev.round", { round: ev.value.round, rounds: ROUNDS, time: clockText(Number(ev.value.writingEndsAt - ev.value.at)), categories: categoriesText(tr) })];
    case "linkWritten":
      return ev.value.player === tr.player ? [t("m5.ev.yourLink", { combination: combinationText(tr, ev.value.combination), text: quoted(ev.value.text) })] : [];
    case "linkErased":
      return ev.value.player === tr.player ? [t("m5.ev.erased", { combination: combinationText(tr, ev.value.combination) })] : [];
    case "writingProgress":
      return [t("m5.ev.progress", { name: tr.name(ev.value.player), n: ev.value.links })];
    case "playerDone": {
      const e = ev.value;
      const mine = e.player === tr.player;
      if (e.combination === 0) {
        return mine
          ? [t("m5.ev.youDone", { n: tr.me.links })]
          : [t("m5.ev.theyDone", { name: tr.name(e.player), n: tr.line(e.player).links })];
      }
      return [t("m5.ev.doneWith", { ...whom(tr, e.player), n: e.combination })];
    }
    case "combinationOpened": {
      const e = ev.value;
      if (!e.links.length) return [];
      const ballots = tr.openBallots().map((b) => t("m5.ballotLine", { n: b.ballot, text: ballotText(tr, b) }));
      return [t("m5.ev.reading", { combination: combinationText(tr, e.combination), n: e.links.length, ballots: ballots.join("; "), time: clockText(Number(e.votesEndAt - e.at)) })];
    }
    case "voteCast": {
      const e = ev.value;
      const b = tr.everyBallot.get(e.ballot);
      if (e.player !== tr.player) return [t("m5.ev.voted", { name: tr.name(e.player), n: e.ballot })];
      if (b && isCall(b)) return [t("m5.ev.youAgree", { agree: e.accept ? "yes" : "no", n: e.ballot })];
      return [t("m5.ev.youAccept", { accept: e.accept ? "yes" : "no", n: e.ballot }) + (b ? ` (${quoted(b.text)})` : "")];
    }
    case "matchCalled": {
      const b = tr.everyBallot.get(ev.value.ballot);
      return [b ? t("m5.ev.ballot", { n: b.ballot, text: ballotText(tr, b) }) : t("m5.ev.ballotMatch", { n: ev.value.ballot })];
    }
    case "combinationClosed":
      return [closedLines(tr, ev.value).join(" ")];
    case "roundScored":
      return [t("m5.ev.scored", { round: ev.value.round, scores: ev.value.scores.map((s) =>
        t("m5.scoreRow", { name: tr.name(s.player), points: s.points, matching: s.matching, total: s.total })).join("; ") })];
    case "gameEnded": {
      const winners = tr.winners().map((p) => tr.name(p));
      const who = winners.length === 1 ? t("m5.winner", { name: winners[0]! }) : winners.length ? t("m5.sharing", { names: winners.join(", ") }) : "";
      return [`${t("m5.ev.over")} ${who}`];
    }
    default:
      return [];
  }
}

export function voteText(v: number, call: boolean): string {
  if (!v) return "";
  if (call) return v === ACCEPT ? t("m5.youAgree") : t("m5.youDisagree");
  return v === ACCEPT ? t("m5.youAccepted") : t("m5.youContested");
}
