/**
 * The games this client knows, and the page each one brings with it. A game's page is
 * reached at `#/play/<slug>/<args...>` (the race: `#/play/race/<table_id>`). To add a game,
 * write its page module (e.g. `./concentration/page.ts` exporting a `Page`) and set `page`
 * here: the home page lists every game, and the router finds its page.
 */

import type { Page } from "./app";
import { GameKind } from "./gen/match/v1/common_pb";
import { t } from "./i18n";
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
    get title() { return t("games.race.title"); },
    kind: GameKind.MATCH_RACE,
    get summary() { return t("games.race.summary"); },
    page: racePage,
  },
  {
    slug: "concentration",
    get title() { return t("games.concentration.title"); },
    kind: GameKind.CONCENTRATION,
    get summary() { return t("games.concentration.summary"); },
    page: concentrationPage,
  },
  {
    slug: "match-cards",
    get title() { return t("games.matchCards.title"); },
    kind: GameKind.MATCH_CARDS,
    get summary() { return t("games.matchCards.summary"); },
    page: matchCardsPage,
  },
  {
    slug: "number-match",
    get title() { return t("games.numberMatch.title"); },
    kind: GameKind.NUMBER_MATCH,
    get summary() { return t("games.numberMatch.summary"); },
    page: numberMatchPage,
  },
  {
    slug: "match-5",
    get title() { return t("games.match5.title"); },
    kind: GameKind.MATCH_FIVE,
    get summary() { return t("games.match5.summary"); },
    page: matchFivePage,
  },
];

export function gameBySlug(slug: string): GameInfo | undefined {
  return GAMES.find((g) => g.slug === slug);
}

export function gameByKind(kind: GameKind): GameInfo | undefined {
  return GAMES.find((g) => g.kind === kind);
}
