/**
 * Match Cards in words: each card's label for a screen reader, the counters, a line per event
 * (after libs/match_client/match_cards.py's event_lines). Pure. A picture comes only from the
 * tracker, which has one only while the card is turned or found.
 */

import type { EventEnvelope } from "../gen/match/v1/common_pb";
import type { CardShow } from "../play/card-grid";
import { has, locale, t } from "../i18n";
import { clockText, listText } from "../play/words";
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
/**
 * A picture's name in the player's language: the server's (English) name in English; else its
 * own word (`mc.pic.giraffe`), a look-alike's as its subject and version (`cat, grey`).
 */
export function pictureLabel(id: string | undefined, name: string | undefined): string {
  if (!id) return name ?? "";
  if (locale() === "en") return name ?? id;
  if (has(locale(), `mc.pic.${id}`)) return t(`mc.pic.${id}`);
  const dash = id.indexOf("-");
  if (dash > 0 && has(locale(), `mc.pic.${id.slice(0, dash)}`)) {
    return t("mc.lookalike", { subject: t(`mc.pic.${id.slice(0, dash)}`), version: t(`mc.variant.${id.slice(dash + 1)}`) });
  }
  return t(`mc.pic.${id}`); // recorded as missing; says the English name meanwhile
}

function named(card: Card | undefined): string {
  return card ? pictureLabel(card.picture, card.name) : "";
}

export function cardLabel(card: Card): string {
  if (card.state === "down" || !card.picture) return t("kit.cardDown", { n: card.number });
  if (card.state === "up") return t("conc.cardUp", { n: card.number, face: named(card) });
  return t("mc.cardFound", { n: card.number, face: named(card) });
}

export function cardShows(tr: MatchCardsTracker): CardShow[] {
  return tr.cards.map((c) => {
    const label = cardLabel(c);
    if (c.state === "down" || !c.picture) return { state: "down", label, playable: tr.turnable(c.number) };
    return { state: c.state, label, face: pictureEmoji(c.picture), name: named(c), playable: false };
  });
}

export function difficultyText(d: Difficulty | undefined): string {
  return d === Difficulty.HARD ? t("mc.hard") : d === Difficulty.MEDIUM ? t("mc.medium") : t("mc.easy");
}

export function settingsText(tr: MatchCardsTracker): string {
  const s = tr.settings;
  if (s === null) return "";
  const pictures = s.pictures === "fruit" ? t("mc.fruit") : t("mc.animals");
  return t("mc.settings", {
    cards: tr.size || s.cards || 12, mode: s.mode === Mode.TRIPLES ? "triples" : "pairs", level: difficultyText(s.difficulty), pictures,
    limit: tr.limit || 0, replay: tr.replay || s.code ? "yes" : "no",
  });
}

export function countersText(tr: MatchCardsTracker, nowMs: number): string {
  return t("mc.counters", { triples: tr.group === 3 ? "yes" : "no", groups: tr.me.groups, total: tr.groupsTotal, time: clockText(tr.elapsedMs(nowMs)), failed: tr.me.failed, limit: tr.limit });
}

export function statusText(tr: MatchCardsTracker): string {
  if (tr.expired) return t("race.phase.expired");
  if (!tr.started) return t("race.connecting");
  if (tr.phase === "waiting") return t("race.phase.waiting");
  if (tr.gameOver) return tr.me.won ? t("mc.wonAll") : t("race.phase.gameOver");
  if (tr.me.finished) return t("mc.finishedWaiting", { won: tr.me.won ? "yes" : "no" });
  if (tr.compareAtMs) return t("mc.comparing");
  const left = tr.group - tr.up.length;
  return tr.up.length === 0 ? t("mc.turnN", { n: tr.group, triples: tr.group === 3 ? "yes" : "no" }) : t("mc.turnMore", { n: left });
}

export function noticeText(same: boolean): string {
  return same ? t("mc.same") : t("mc.different");
}

export function describeEvent(env: EventEnvelope, tr: MatchCardsTracker): string[] {
  const body = env.body;
  if (body.case === "table") {
    const ev = body.value.event;
    if (ev.case === "playerSeated" && ev.value.playerId !== tr.player) return [t("mc.ev.seated", { name: ev.value.displayName, bot: ev.value.isBot ? "yes" : "no", seat: ev.value.seat })];
    if (ev.case === "seedRevealed") return [t("conc.ev.seed")];
    if (ev.case === "tableExpired") return [t("race.phase.expired")];
    return [];
  }
  if (body.case !== "matchCards") return [];
  const ev = body.value.event;
  const mine = ev.case !== undefined && "player" in ev.value && ev.value.player === tr.player;
  switch (ev.case) {
    case "gameStarted":
      return [t("mc.ev.starts", { settings: settingsText(tr), players: ev.value.players.length })];
    case "cardTurned":
      return mine ? [t("mc.ev.turned", { n: ev.value.card, face: named(tr.cards[ev.value.card - 1]), comparing: ev.value.compareAt !== undefined ? "yes" : "no" })] : [];
    case "groupFound": {
      if (!mine) return [];
      const name = named(tr.cards[(ev.value.cards[0] ?? 0) - 1]);
      return [t("mc.ev.found", { face: name, cards: listText(ev.value.cards), groups: ev.value.groups, total: tr.groupsTotal }), ...(ev.value.notice ? [noticeText(true)] : [])];
    }
    case "attemptFailed":
      if (!mine) return [];
      return [t("mc.ev.failed", { cards: listText(ev.value.cards), failed: ev.value.failed, limit: tr.limit }), ...(ev.value.notice ? [noticeText(false)] : [])];
    case "noticeTurnedOff":
      return mine ? [t("mc.ev.noticeOff")] : [];
    case "playerFinished": {
      const e = ev.value;
      if (mine) {
        const how = e.won ? "won" : e.failed < tr.limit ? "hour" : "limit";
        return [t("mc.ev.yourEnd", { how, time: clockText(Number(e.timeMs)) })];
      }
      return [t("mc.ev.theirEnd", { name: tr.name(e.player), won: e.won ? "yes" : "no", groups: e.groups, failed: e.failed })];
    }
    case "opponentProgress":
      return ev.value.turned ? [] : [t("mc.ev.progress", { name: tr.name(ev.value.player), groups: ev.value.groups, failed: ev.value.failed })];
    case "gameEnded":
      return [t("race.phase.gameOver"), ...(ev.value.code ? [t("mc.ev.code", { code: ev.value.code })] : [])];
    default:
      return [];
  }
}

export function standingLines(tr: MatchCardsTracker): string[] {
  return tr.standings.map((s) =>
    t("mc.standing", { place: s.place, who: capital(tr.who(s.player)), groups: s.groups, failed: s.failed, time: clockText(s.timeMs), won: s.won ? "yes" : "no" }));
}

export function othersLines(tr: MatchCardsTracker): string[] {
  return tr.players.filter((p) => p.player !== tr.player).map((p) => {
    const state = p.finished
      ? t("mc.otherFinished", { won: p.won ? "yes" : "no", time: clockText(p.timeMs) })
      : p.turned ? t("mc.otherTurned", { n: p.turned }) : t("race.status.playing");
    const name = tr.bots.has(p.player) ? t("home.botName", { name: tr.name(p.player) }) : tr.name(p.player);
    return t("mc.other", { name, groups: p.groups, failed: p.failed, state });
  });
}

export function resultText(tr: MatchCardsTracker): string {
  const me = tr.me;
  const base = me.won
    ? t("mc.wonResult", { time: clockText(me.timeMs), failed: me.failed })
    : t("mc.lostResult", { groups: me.groups, total: tr.groupsTotal, failed: me.failed, limit: tr.limit });
  const mine = tr.standings.find((s) => s.player === tr.player);
  return tr.standings.length > 1 && mine ? `${base} ${t("mc.placed", { place: mine.place, of: tr.standings.length })}` : base;
}

export function describeSnapshot(tr: MatchCardsTracker, nowMs: number): string[] {
  if (tr.phase === "waiting") return [t("conc.waitingSeats", { taken: tr.players.length || 1, total: tr.seatsTotal })];
  if (tr.phase === "over") return [t("race.phase.gameOver"), resultText(tr)];
  return [`${statusText(tr)}. ${countersText(tr, nowMs)}`];
}
