/**
 * The games this client knows, and the page each one brings with it. A game's page is
 * reached at `#/play/<slug>/<args...>` (the race: `#/play/race/<table_id>`). To add a game,
 * write its page module (e.g. `./concentration/page.ts` exporting a `Page`) and set `page`
 * here: the home page lists every game, and the router finds its page.
 */

import type { Page } from "./app";
import { GameKind } from "./gen/match/v1/common_pb";
import { concentrationPage } from "./concentration/page";
import { matchCardsPage } from "./match-cards/page";
import { matchFivePage } from "./match-5/page";
import { numberMatchPage } from "./number-match/page";
import { racePage } from "./race/page";

export interface GameInfo {
  readonly slug: string;
  readonly title: string;
  readonly kind: GameKind;
  readonly summary: string;
  /** null: the game has no page in this build yet. */
  readonly page: Page | null;
}

export const GAMES: readonly GameInfo[] = [
  {
    slug: "race",
    title: "Match, the race",
    kind: GameKind.MATCH_RACE,
    summary: "2 to 4 players race on private copies of the same board, three boards a game.",
    page: racePage,
  },
  {
    slug: "concentration",
    title: "Concentration",
    kind: GameKind.CONCENTRATION,
    summary: "Classic turn-based pairs for 1 to 6 players.",
    page: concentrationPage,
  },
  {
    slug: "match-cards",
    title: "Match Cards",
    kind: GameKind.MATCH_CARDS,
    summary: "Find every pair (or triple) before the limit of failed attempts.",
    page: matchCardsPage,
  },
  {
    slug: "number-match",
    title: "Number Match",
    kind: GameKind.NUMBER_MATCH,
    summary: "A solo number puzzle: pairs of equal numbers or numbers adding up to 10.",
    page: numberMatchPage,
  },
  {
    slug: "match-5",
    title: "MATCH 5",
    kind: GameKind.MATCH_FIVE,
    summary: "The party word game for 2 to 8: links between categories, matching links score double.",
    page: matchFivePage,
  },
];

export function gameBySlug(slug: string): GameInfo | undefined {
  return GAMES.find((g) => g.slug === slug);
}

export function gameByKind(kind: GameKind): GameInfo | undefined {
  return GAMES.find((g) => g.kind === kind);
}
