/**
 * Concentration in words: a face's name and glyph, each card's label for a screen reader, a
 * line per event (after libs/match_client/concentration.py's event_lines), the status line.
 * Pure. A face comes only from the tracker, which has one only while the card is up or taken.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { CardShow } from "../play/card-grid";
import { t } from "../i18n";
import { clockText, listText } from "../play/words";
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
  if (face === "JK") return { name: t("conc.joker"), glyph: "🃏", red: false };
  const rank = RANKS[face.charAt(0)];
  const suit = SUITS[face.charAt(1)];
  if (face.length !== 2 || rank === undefined || suit === undefined) return null;
  const r = face.charAt(0) === "T" ? "10" : face.charAt(0);
  return { name: t("conc.playingCard", { rank: t(`conc.rank.${rank}`), suit: t(`conc.suit.${suit[0]}`) }), glyph: `${r}${suit[1]}`, red: face.charAt(1) === "H" || face.charAt(1) === "D" };
}

/** A face's name for people: `apple`, `ace of spades` (in the player's language). */
export function faceName(face: string): string {
  if (face in PALETTE) return t(`conc.face.${face}`);
  return playingCard(face)?.name ?? face;
}

export function faceGlyph(face: string): string {
  return PALETTE[face] ?? playingCard(face)?.glyph ?? face;
}

export function faceIsRed(face: string): boolean {
  return playingCard(face)?.red ?? false;
}

/** `{me, name}` for a message that says "you" to the viewer and a name for the others. */
function whom(tr: ConcentrationTracker, player: string): { me: "yes" | "no"; name: string } {
  return { me: player !== "" && player === tr.player ? "yes" : "no", name: tr.name(player) };
}

export function cardLabel(card: Card, tr: ConcentrationTracker): string {
  if (card.state === "down" || !card.face) return t("kit.cardDown", { n: card.number });
  if (card.state === "up") return t("conc.cardUp", { n: card.number, face: faceName(card.face) });
  return t("conc.cardTaken", { n: card.number, ...whom(tr, card.takenBy ?? ""), face: faceName(card.face) });
}

export function cardShows(tr: ConcentrationTracker): CardShow[] {
  return tr.cards.map((c) => {
    const label = cardLabel(c, tr);
    if (c.state === "down" || !c.face) return { state: "down", label, playable: tr.flippable(c.number) };
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
  return t("conc.score", { pairs, tries });
}

export function settingsText(tr: ConcentrationTracker): string {
  const s = tr.settings;
  if (s === null) return "";
  const cards = tr.size || (s.cards || 52) + (s.jokers ? 2 : 0);
  const flip = s.turnLimitMs ? t("conc.toFlip", { s: Number(s.turnLimitMs) / 1000 }) : "";
  if (s.pictures !== Pictures.PLAYING_CARDS) return t("conc.emojiCards", { cards }) + flip;
  const matching = s.matching === Matching.RANK ? t("conc.sameRank") : s.matching === Matching.RANK_AND_COLOUR ? t("conc.sameRankColour") : t("conc.identical");
  return t("conc.playingCards", { cards, jokers: s.jokers ? "yes" : "no", matching }) + flip;
}

export function statusText(tr: ConcentrationTracker): string {
  if (tr.expired) return t("race.phase.expired");
  if (!tr.started) return t("race.connecting");
  if (tr.phase === "waiting") return t("race.phase.waiting");
  if (tr.phase === "over") return t("race.phase.gameOver");
  if (!tr.turn) return t("conc.underWay");
  const mine = tr.turn === tr.player && tr.player !== "";
  const cpu = tr.seat(tr.turn)?.cpu ?? false;
  if (tr.turnDownAtMs) return t("conc.missShowing", whom(tr, tr.turn));
  if (mine && cpu) return t("conc.cpuPlaysYours");
  if (mine) return tr.up.length === 1 ? t("conc.yourTurnSecond") : t("conc.yourTurnFirst");
  return t("conc.theirTurn", { name: tr.name(tr.turn), cpu: cpu ? "yes" : "no" });
}

export function clockLine(tr: ConcentrationTracker, nowMs: number): string {
  if (tr.phase !== "playing" || nowMs <= 0) return "";
  if (tr.turnDownAtMs) return "";
  if (tr.deadlineMs) {
    const left = Math.max(0, tr.deadlineMs - nowMs);
    return t("conc.hasToFlip", { ...whom(tr, tr.turn), s: Math.ceil(left / 1000) });
  }
  return "";
}

export function seatMarks(tr: ConcentrationTracker, player: string, nowMs: number): string[] {
  const s = tr.seat(player);
  const marks: string[] = [];
  if (s === undefined) return marks;
  if (player === tr.turn && tr.phase === "playing") marks.push(t("conc.toPlay"));
  if (s.cpu) marks.push(player === tr.player ? t("conc.cpuPlaysYourSeat") : t("conc.cpu"));
  if (s.takeoverAtMs) {
    const left = nowMs ? Math.max(0, s.takeoverAtMs - nowMs) : 0;
    marks.push(nowMs ? t("conc.droppedIn", { left: clockText(left) }) : t("conc.dropped"));
  }
  return marks;
}

export function describeEvent(env: EventEnvelope, tr: ConcentrationTracker): string[] {
  const body = env.body;
  if (body.case === "table") {
    const ev = body.value.event;
    if (ev.case === "playerSeated") return [t("conc.ev.seated", { name: ev.value.displayName, cpu: ev.value.isBot ? "yes" : "no", seat: ev.value.seat })];
    if (ev.case === "seedRevealed") return [t("conc.ev.seed")];
    if (ev.case === "tableExpired") return [t("race.phase.expired")];
    return [];
  }
  if (body.case !== "concentration") return [];
  const ev = body.value.event;
  switch (ev.case) {
    case "gameStarted":
      return [t("conc.ev.starts", { settings: settingsText(tr), players: ev.value.players.length })];
    case "turnBegan":
      return [t("conc.ev.turn", whom(tr, ev.value.player))];
    case "cardFlipped":
      return [t("conc.ev.flipped", { ...whom(tr, ev.value.player), card: ev.value.card, face: faceName(ev.value.face) })];
    case "pairTaken":
      return [t("conc.ev.took", { ...whom(tr, ev.value.player), cards: listText(ev.value.cards), score: scoreText(ev.value.pairs, ev.value.tries) })];
    case "attemptMissed":
      return [t("conc.ev.missed", { cards: listText(ev.value.cards) })];
    case "timeRanOut":
      return [t("conc.ev.timeOut", whom(tr, ev.value.player))];
    case "playerDropped":
      return [t("conc.ev.dropped", whom(tr, ev.value.player))];
    case "playerReturned":
      return [t("conc.ev.back", whom(tr, ev.value.player))];
    case "seatHandedToCpu":
      return [t("conc.ev.cpuSeat", whom(tr, ev.value.player))];
    case "gameEnded":
      return [t("race.phase.gameOver"), ...standingLines(tr)];
    default:
      return [];
  }
}

export function standingLines(tr: ConcentrationTracker): string[] {
  const out = tr.standings.map((s) => {
    const win = tr.winners.includes(s.player) && !tr.draw && tr.standings.length > 1 ? ` ${t("conc.winner")}` : "";
    return `${s.place}. ${capital(tr.who(s.player))}: ${scoreText(s.pairs, s.tries)}${win}`;
  });
  if (tr.draw) out.push(t("conc.draw"));
  return out;
}

export function resultText(tr: ConcentrationTracker): string {
  const mine = tr.standings.find((s) => s.player === tr.player);
  if (mine === undefined) return tr.winners.length ? t("conc.wonBy", { names: listText(tr.winners.map((w) => tr.name(w))) }) : "";
  if (tr.standings.length === 1) return t("conc.soloResult", { tries: mine.tries });
  if (tr.draw) return t("conc.drawResult", { pairs: mine.pairs });
  if (tr.winners.includes(tr.player)) return t("conc.wonResult", { pairs: mine.pairs });
  return t("race.placed", { place: mine.place, of: tr.standings.length, pairs: mine.pairs });
}

export function describeSnapshot(tr: ConcentrationTracker): string[] {
  if (tr.phase === "waiting") return [t("conc.waitingSeats", { taken: tr.seats.length || 1, total: tr.seatsTotal || "?" })];
  if (tr.phase === "over") return [t("race.phase.gameOver"), ...standingLines(tr)];
  return [t("conc.snapshot", { status: statusText(tr), taken: tr.cards.filter((c) => c.state === "taken").length / 2, total: tr.size / 2 })];
}
