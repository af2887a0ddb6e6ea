/**
 * Match Cards in words: each card's label for a screen reader, the counters, a line per event
 * (after libs/match_client/match_cards.py's event_lines). Pure. A picture comes only from the
 * tracker, which has one only while the card is turned or found.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { CardShow } from "../play/card-grid";
import { clockText, count, listText } from "../play/words";
import { capital } from "../sentence";
import { Difficulty, Mode, type Card, type MatchCardsTracker } from "./tracker";

/** An emoji beside a picture's name (look-alikes share their subject's: the name tells them apart). */
const EMOJI: Readonly<Record<string, string>> = {
  giraffe: "🦒", donkey: "🫏", ant: "🐜", bear: "🐻", bee: "🐝", camel: "🐫", cow: "🐄", crab: "🦀", deer: "🦌",
  dolphin: "🐬", duck: "🦆", eagle: "🦅", elephant: "🐘", fox: "🦊", frog: "🐸", goat: "🐐", hedgehog: "🦔",
  horse: "🐎", kangaroo: "🦘", koala: "🐨", lion: "🦁", monkey: "🐒", mouse: "🐁", octopus: "🐙", panda: "🐼",
  penguin: "🐧", pig: "🐖", rabbit: "🐇", sheep: "🐑", snail: "🐌", tiger: "🐅", turtle: "🐢", whale: "🐋",
  zebra: "🦓", cat: "🐈", dog: "🐕", owl: "🦉", fish: "🐟", parrot: "🦜", butterfly: "🦋", snake: "🐍",
  chicken: "🐔", guava: "🍈", apricot: "🍑", avocado: "🥑", banana: "🍌", blackberry: "🫐", blueberry: "🫐",
  coconut: "🥥", cranberry: "🍒", date: "🌴", "dragon-fruit": "🐉", elderberry: "🍇", fig: "🟣",
  gooseberry: "🟢", grapefruit: "🍊", kiwi: "🥝", lemon: "🍋", lime: "🍋‍🟩", lychee: "🔴", mango: "🥭",
  nectarine: "🍑", orange: "🍊", papaya: "🥭", "passion-fruit": "🟣", peach: "🍑", persimmon: "🟠",
  pineapple: "🍍", pomegranate: "🔴", quince: "🍐", raspberry: "🍓", strawberry: "🍓", watermelon: "🍉",
  apple: "🍎", pear: "🍐", grape: "🍇", melon: "🍈", tomato: "🍅", plum: "🟣", cherry: "🍒",
};

export function pictureEmoji(id: string): string {
  return EMOJI[id] ?? EMOJI[id.split("-")[0] ?? ""] ?? "❔";
}

/** `Card 7, face down`, `Card 7, cat, grey`, `Card 7, found: cat, grey`. */
export function cardLabel(card: Card): string {
  if (card.state === "down" || !card.picture) return `Card ${card.number}, face down`;
  if (card.state === "up") return `Card ${card.number}, ${card.name}`;
  return `Card ${card.number}, found: ${card.name}`;
}

export function cardShows(t: MatchCardsTracker): CardShow[] {
  return t.cards.map((c) => {
    const label = cardLabel(c);
    if (c.state === "down" || !c.picture) return { state: "down", label, playable: t.turnable(c.number) };
    return { state: c.state, label, face: pictureEmoji(c.picture), name: c.name ?? "", playable: false };
  });
}

export function difficultyText(d: Difficulty | undefined): string {
  return d === Difficulty.HARD ? "hard" : d === Difficulty.MEDIUM ? "medium" : "easy";
}

export function settingsText(t: MatchCardsTracker): string {
  const s = t.settings;
  if (s === null) return "";
  const mode = s.mode === Mode.TRIPLES ? "triples" : "pairs";
  const replay = t.replay || s.code ? ", a replay of a game code (not ranked)" : "";
  return `${t.size || s.cards || 12} cards in ${mode}, ${difficultyText(s.difficulty)}, ${s.pictures || "animals"}` +
    (t.limit ? `, ${t.limit} failed attempts lose` : "") + replay;
}

/** The three counters: groups found, the time, failed attempts of the limit. */
export function countersText(t: MatchCardsTracker, nowMs: number): string {
  const noun = t.group === 3 ? "triple" : "pair";
  return `${capital(noun)}s ${t.me.groups} of ${t.groupsTotal} · Time ${clockText(t.elapsedMs(nowMs))} · Failed attempts ${t.me.failed} of ${t.limit}`;
}

export function statusText(t: MatchCardsTracker): string {
  if (t.expired) return "The table expired: its game did not start in time";
  if (!t.started) return "Connecting...";
  if (t.phase === "waiting") return "Waiting for players";
  if (t.gameOver) return t.me.won ? "You won: every group found" : "The game is over";
  if (t.me.finished) return `${t.me.won ? "You won" : "Your game is over"}: waiting for the others to finish`;
  if (t.compareAtMs) return "Comparing the cards...";
  const left = t.group - t.up.length;
  return t.up.length === 0 ? `Turn ${t.group} cards: find the ${t.group === 3 ? "triples" : "pairs"}` : `Turn ${count(left, "more card")}`;
}

export function noticeText(same: boolean): string {
  return same ? "Same picture" : "Different pictures";
}

/** What to say about one event, already folded into `t`. */
export function describeEvent(env: EventEnvelope, t: MatchCardsTracker): string[] {
  const body = env.body;
  if (body.case === "table") {
    const ev = body.value.event;
    if (ev.case === "playerSeated" && ev.value.playerId !== t.player) return [`${ev.value.displayName}${ev.value.isBot ? " (bot)" : ""} sits at seat ${ev.value.seat}`];
    if (ev.case === "seedRevealed") return ["The seed is published"];
    if (ev.case === "tableExpired") return ["The table expired: its game did not start in time"];
    return [];
  }
  if (body.case !== "matchCards") return [];
  const ev = body.value.event;
  const mine = ev.case !== undefined && "player" in ev.value && ev.value.player === t.player;
  switch (ev.case) {
    case "gameStarted":
      return [`The game starts: ${settingsText(t)}` + (ev.value.players.length > 1 ? `, ${ev.value.players.length} players on their own copies` : "")];
    case "cardTurned":
      return mine ? [`Card ${ev.value.card}: ${t.cards[ev.value.card - 1]?.name ?? ""}` + (ev.value.compareAt !== undefined ? " (comparing for 1.5 s)" : "")] : [];
    case "groupFound": {
      if (!mine) return [];
      const name = t.cards[(ev.value.cards[0] ?? 0) - 1]?.name ?? "";
      return [`Found: ${name}, cards ${listText(ev.value.cards)}. ${ev.value.groups} of ${t.groupsTotal}`, ...(ev.value.notice ? [noticeText(true)] : [])];
    }
    case "attemptFailed":
      if (!mine) return [];
      return [`No match: cards ${listText(ev.value.cards)} turn face down. ${ev.value.failed} of ${t.limit} failed attempts`, ...(ev.value.notice ? [noticeText(false)] : [])];
    case "noticeTurnedOff":
      return mine ? ["The Same/Different pictures notice is off for the rest of the game"] : [];
    case "playerFinished": {
      const e = ev.value;
      if (mine) {
        let how = e.won ? "you found every group" : "you reached the limit of failed attempts";
        if (!e.won && e.failed < t.limit) how = "the hour is up";
        return [`Your game is over: ${how} (${clockText(Number(e.timeMs))})`];
      }
      return [`${t.name(e.player)} finished: ${e.won ? "found every group" : "lost"}, ${count(e.groups, "group")}, ${count(e.failed, "failed attempt")}`];
    }
    case "opponentProgress":
      return ev.value.turned ? [] : [`${t.name(ev.value.player)}: ${count(ev.value.groups, "group")} found, ${count(ev.value.failed, "failed attempt")}`];
    case "gameEnded":
      return ["The game is over", ...(ev.value.code ? [`The game's code: ${ev.value.code}`] : [])];
    default:
      return [];
  }
}

export function standingLines(t: MatchCardsTracker): string[] {
  return t.standings.map((s) =>
    `${s.place}. ${capital(t.who(s.player))}: ${count(s.groups, "group")}, ${count(s.failed, "failed attempt")}, ${clockText(s.timeMs)}${s.won ? " (won)" : ""}`);
}

export function othersLines(t: MatchCardsTracker): string[] {
  return t.players.filter((p) => p.player !== t.player).map((p) => {
    const state = p.finished ? `finished, ${p.won ? "won" : "lost"} in ${clockText(p.timeMs)}` : p.turned ? `${count(p.turned, "card")} turned` : "playing";
    return `${t.name(p.player)}${t.bots.has(p.player) ? " (bot)" : ""}: ${count(p.groups, "group")} found, ${count(p.failed, "failed attempt")} (${state})`;
  });
}

export function resultText(t: MatchCardsTracker): string {
  const me = t.me;
  const base = me.won
    ? `You won: every group found in ${clockText(me.timeMs)}, with ${count(me.failed, "failed attempt")}.`
    : `You lost: ${count(me.groups, "group")} found of ${t.groupsTotal}, ${me.failed} of ${t.limit} failed attempts.`;
  const mine = t.standings.find((s) => s.player === t.player);
  return t.standings.length > 1 && mine ? `${base} You placed ${mine.place} of ${t.standings.length}.` : base;
}

export function describeSnapshot(t: MatchCardsTracker, nowMs: number): string[] {
  if (t.phase === "waiting") return [`Waiting for players: ${t.players.length || 1} of ${t.seatsTotal} seats taken`];
  if (t.phase === "over") return ["The game is over", resultText(t)];
  return [`${statusText(t)}. ${countersText(t, nowMs)}`];
}
