/** A listed table in words: who sits there, how many seats are free, and its settings. Pure:
 * everything comes from the lobby's `Table` (its settings with the defaults filled in). */

import type { Table } from "../gen/match/v1/lobby_pb";
import { ConcentrationSettings_Matching, ConcentrationSettings_Pictures } from "../gen/match/v1/concentration_pb";
import { MatchCardsSettings_Difficulty, MatchCardsSettings_Mode } from "../gen/match/v1/match_cards_pb";
import { t } from "../i18n";

/** The seated players' names, a bot marked; "nobody yet" for none. */
export function seatedNames(table: Pick<Table, "taken">): string {
  const names = table.taken.map((s) => (s.isBot ? t("lobby.bot", { name: s.displayName }) : s.displayName));
  return names.length ? names.join(", ") : t("lobby.nobody");
}

/** `2 of 4 seats taken, 2 free`. */
export function seatsText(table: Pick<Table, "taken" | "seats">): string {
  const taken = table.taken.length;
  return t("lobby.seats", { taken, seats: table.seats, free: Math.max(table.seats - taken, 0) });
}

/** The table's settings in words, for whichever game it plays. */
export function settingsWords(table: Pick<Table, "settings">): string {
  const s = table.settings;
  switch (s.case) {
    case "race":
      return t("lobby.settings.race", { readyS: Number(s.value.readyWindowMs) / 1000, hints: s.value.hintsPerBoard ?? 3 });
    case "concentration": {
      const c = s.value;
      const limit = c.turnLimitMs ? t("lobby.settings.turnLimit", { seconds: Number(c.turnLimitMs) / 1000 }) : t("lobby.settings.noTurnLimit");
      const cards = (c.cards || 52) + (c.jokers ? 2 : 0);
      if (c.pictures !== ConcentrationSettings_Pictures.PLAYING_CARDS) return t("lobby.settings.concentrationEmoji", { cards, limit });
      const matching = c.matching === ConcentrationSettings_Matching.RANK ? t("lobby.settings.matchingRank")
        : c.matching === ConcentrationSettings_Matching.RANK_AND_COLOUR ? t("lobby.settings.matchingRankColour")
          : t("lobby.settings.matchingIdentical");
      return t("lobby.settings.concentrationCards", { cards, jokers: c.jokers ? "yes" : "no", matching, limit });
    }
    case "matchCards": {
      const m = s.value;
      const difficulty = m.difficulty === MatchCardsSettings_Difficulty.EASY ? "easy" : m.difficulty === MatchCardsSettings_Difficulty.HARD ? "hard" : "medium";
      return t("lobby.settings.matchCards", { mode: m.mode === MatchCardsSettings_Mode.TRIPLES ? "triples" : "pairs", cards: m.cards, difficulty });
    }
    case "matchFive":
      return t("lobby.settings.matchFive", { writing: s.value.writingSeconds, vote: s.value.voteSeconds });
    default:
      return t("lobby.settings.default");
  }
}
