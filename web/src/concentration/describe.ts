/**
 * Concentration in words: a face's name and glyph, each card's label for a screen reader, a
 * line per event (after libs/match_client/concentration.py's event_lines), the status line.
 * Pure. A face comes only from the tracker, which has one only while the card is up or taken.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { CardShow } from "../play/card-grid";
import { clockText, count, listText } from "../play/words";
import { capital } from "../sentence";
import { Matching, Pictures, type Card, type ConcentrationTracker } from "./tracker";

/** The emoji palette (libs/match_rules/concentration/settings.py PALETTE): name -> emoji. */
export const PALETTE: Readonly<Record<string, string>> = {
  apple: "🍎", banana: "🍌", cherries: "🍒", grapes: "🍇", lemon: "🍋", pear: "🍐", peach: "🍑",
  strawberry: "🍓", watermelon: "🍉", pineapple: "🍍", carrot: "🥕", corn: "🌽", mushroom: "🍄",
  cheese: "🧀", bread: "🍞", pizza: "🍕", cake: "🍰", cookie: "🍪", dog: "🐶", cat: "🐱",
  mouse: "🐭", rabbit: "🐰", fox: "🦊", bear: "🐻", panda: "🐼", koala: "🐨", tiger: "🐯",
  lion: "🦁", cow: "🐮", pig: "🐷", frog: "🐸", monkey: "🐵", chicken: "🐔", penguin: "🐧",
  owl: "🦉", butterfly: "🦋", snail: "🐌", turtle: "🐢", octopus: "🐙", fish: "🐟", sun: "🌞",
  moon: "🌙", star: "⭐", rainbow: "🌈", flower: "🌸", tree: "🌳", rocket: "🚀", balloon: "🎈",
};

const RANKS: Record<string, string> = {
  A: "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
  "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};
const SUITS: Record<string, [string, string]> = { S: ["spades", "♠"], H: ["hearts", "♥"], D: ["diamonds", "♦"], C: ["clubs", "♣"] };

function playingCard(face: string): { name: string; glyph: string; red: boolean } | null {
  if (face === "JK") return { name: "joker", glyph: "🃏", red: false };
  const rank = RANKS[face.charAt(0)];
  const suit = SUITS[face.charAt(1)];
  if (face.length !== 2 || rank === undefined || suit === undefined) return null;
  const r = face.charAt(0) === "T" ? "10" : face.charAt(0);
  return { name: `${rank} of ${suit[0]}`, glyph: `${r}${suit[1]}`, red: face.charAt(1) === "H" || face.charAt(1) === "D" };
}

/** A face for people: `apple`, `ten of diamonds`, `joker`. */
export function faceName(face: string): string {
  if (face in PALETTE) return face;
  return playingCard(face)?.name ?? face;
}

/** What a card shows: an emoji, or rank and suit (`10♦`). */
export function faceGlyph(face: string): string {
  return PALETTE[face] ?? playingCard(face)?.glyph ?? face;
}

export function faceIsRed(face: string): boolean {
  return playingCard(face)?.red ?? false;
}

/** What a screen reader says: `Card 7, face down`, `Card 7, apple`, `Card 7, taken by you: apple`. */
export function cardLabel(card: Card, t: ConcentrationTracker): string {
  if (card.state === "down" || !card.face) return `Card ${card.number}, face down`;
  if (card.state === "up") return `Card ${card.number}, ${faceName(card.face)}`;
  return `Card ${card.number}, taken by ${t.who(card.takenBy ?? "")}: ${faceName(card.face)}`;
}

export function cardShows(t: ConcentrationTracker): CardShow[] {
  return t.cards.map((c) => {
    const label = cardLabel(c, t);
    if (c.state === "down" || !c.face) return { state: "down", label, playable: t.flippable(c.number) };
    return {
      state: c.state === "up" ? "up" : "found",
      label,
      face: faceGlyph(c.face),
      name: faceName(c.face),
      playable: false,
      gap: c.state === "taken",
      red: faceIsRed(c.face),
    };
  });
}

export function scoreText(pairs: number, tries: number): string {
  return `${count(pairs, "pair")}, ${count(tries, "try", "tries")}`;
}

/** The table's settings in a few words. */
export function settingsText(t: ConcentrationTracker): string {
  const s = t.settings;
  if (s === null) return "";
  const cards = t.size || (s.cards || 52) + (s.jokers ? 2 : 0);
  if (s.pictures !== Pictures.PLAYING_CARDS) {
    return `${cards} emoji cards` + (s.turnLimitMs ? `, ${Number(s.turnLimitMs) / 1000} s to flip` : "");
  }
  const matching = s.matching === Matching.RANK ? "same rank" : s.matching === Matching.RANK_AND_COLOUR ? "same rank and colour" : "identical cards";
  return `${cards} playing cards${s.jokers ? " with two jokers" : ""}, pairs of ${matching}` +
    (s.turnLimitMs ? `, ${Number(s.turnLimitMs) / 1000} s to flip` : "");
}

/** Whose turn it is and what they may do, in one line. */
export function statusText(t: ConcentrationTracker): string {
  if (t.expired) return "The table expired: its game did not start in time";
  if (!t.started) return "Connecting...";
  if (t.phase === "waiting") return "Waiting for players";
  if (t.phase === "over") return "The game is over";
  if (!t.turn) return "The game is under way";
  const mine = t.turn === t.player && t.player !== "";
  const cpu = t.seat(t.turn)?.cpu ?? false;
  if (t.turnDownAtMs) return mine ? "Your miss is showing" : `${t.name(t.turn)}'s miss is showing`;
  if (mine && cpu) return "The CPU is playing your seat";
  if (mine) return t.up.length === 1 ? "Your turn: flip a second card" : "Your turn: flip a card";
  return `${t.name(t.turn)}'s turn${cpu ? " (CPU)" : ""}`;
}

/** The running clock: the time left to flip, or a miss turning down. Empty: nothing runs. */
export function clockLine(t: ConcentrationTracker, nowMs: number): string {
  if (t.phase !== "playing" || nowMs <= 0) return "";
  if (t.turnDownAtMs) return "";
  if (t.deadlineMs) {
    const left = Math.max(0, t.deadlineMs - nowMs);
    const whose = t.turn === t.player && t.player ? "You have" : `${t.name(t.turn)} has`;
    return `${whose} ${Math.ceil(left / 1000)} s to flip`;
  }
  return "";
}

/** A seat's marks: to play, CPU, dropped (with the takeover's countdown). */
export function seatMarks(t: ConcentrationTracker, player: string, nowMs: number): string[] {
  const s = t.seat(player);
  const marks: string[] = [];
  if (s === undefined) return marks;
  if (player === t.turn && t.phase === "playing") marks.push("to play");
  if (s.cpu) marks.push(player === t.player ? "the CPU plays your seat" : "CPU");
  if (s.takeoverAtMs) {
    const left = nowMs ? Math.max(0, s.takeoverAtMs - nowMs) : 0;
    marks.push(nowMs ? `dropped: the CPU takes over in ${clockText(left)}` : "dropped");
  }
  return marks;
}

/** What to say about one event, already folded into `t`. */
export function describeEvent(env: EventEnvelope, t: ConcentrationTracker): string[] {
  const body = env.body;
  if (body.case === "table") {
    const ev = body.value.event;
    if (ev.case === "playerSeated") return [`${ev.value.displayName}${ev.value.isBot ? " (CPU)" : ""} sits at seat ${ev.value.seat}`];
    if (ev.case === "seedRevealed") return ["The seed is published"];
    if (ev.case === "tableExpired") return ["The table expired: its game did not start in time"];
    return [];
  }
  if (body.case !== "concentration") return [];
  const ev = body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return [`The game starts: ${settingsText(t)}, ${count(ev.value.players.length, "player")}`];
    case "turnBegan":
      return [ev.value.player === t.player && t.player ? "Your turn" : `${t.name(ev.value.player)}'s turn`];
    case "cardFlipped":
      return [`${capital(t.who(ev.value.player))} flipped card ${ev.value.card}: ${faceName(ev.value.face)}`];
    case "pairTaken":
      return [`${capital(t.who(ev.value.player))} took a pair, cards ${listText(ev.value.cards)} (${scoreText(ev.value.pairs, ev.value.tries)})`];
    case "attemptMissed":
      return [`No pair: cards ${listText(ev.value.cards)} turn face down in 1.5 s`];
    case "timeRanOut":
      return [`${capital(t.who(ev.value.player))} ran out of time`];
    case "playerDropped":
      return [`${capital(t.who(ev.value.player))} dropped; the CPU takes the seat unless they return`];
    case "playerReturned":
      return [`${capital(t.who(ev.value.player))} ${ev.value.player === t.player ? "are" : "is"} back`];
    case "seatHandedToCpu":
      return [`The CPU plays ${ev.value.player === t.player ? "your" : `${t.name(ev.value.player)}'s`} seat from now on`];
    case "gameEnded":
      return ["The game is over", ...standingLines(t)];
    default:
      return [];
  }
}

export function standingLines(t: ConcentrationTracker): string[] {
  const out = t.standings.map((s) => {
    const win = t.winners.includes(s.player) && !t.draw && t.standings.length > 1 ? " (winner)" : "";
    return `${s.place}. ${capital(t.who(s.player))}: ${scoreText(s.pairs, s.tries)}${win}`;
  });
  if (t.draw) out.push("A draw: everybody tied");
  return out;
}

/** The viewer's result in one sentence. */
export function resultText(t: ConcentrationTracker): string {
  const mine = t.standings.find((s) => s.player === t.player);
  if (mine === undefined) return t.winners.length ? `Won by ${listText(t.winners.map((w) => t.name(w)))}` : "";
  if (t.standings.length === 1) return `You took every pair in ${count(mine.tries, "try", "tries")}.`;
  if (t.draw) return `A draw: everybody took ${count(mine.pairs, "pair")}.`;
  if (t.winners.includes(t.player)) return `You won with ${count(mine.pairs, "pair")}.`;
  return `You placed ${mine.place} of ${t.standings.length}, with ${count(mine.pairs, "pair")}.`;
}

/** What a snapshot says when the page (re)connects. */
export function describeSnapshot(t: ConcentrationTracker): string[] {
  if (t.phase === "waiting") return [`Waiting for players: ${t.seats.length || 1} of ${t.seatsTotal || "?"} seats taken`];
  if (t.phase === "over") return ["The game is over", ...standingLines(t)];
  return [`${statusText(t)}. ${t.cards.filter((c) => c.state === "taken").length / 2} pairs taken of ${t.size / 2}`];
}
