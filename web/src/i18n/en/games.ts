/** The games' names and what each one is, in a line. */

export const GAMES = {
  "games.race.title": "Match, the race",
  "games.race.summary": "2 to 4 players race on private copies of the same board, three boards a game.",
  "games.concentration.title": "Concentration",
  "games.concentration.summary": "Classic turn-based pairs for 1 to 6 players.",
  "games.matchCards.title": "Match Cards",
  "games.matchCards.summary": "Find every pair (or triple) before the limit of failed attempts.",
  "games.numberMatch.title": "Number Match",
  "games.numberMatch.summary": "A solo number puzzle: pairs of equal numbers or numbers adding up to 10.",
  "games.match5.title": "MATCH 5",
  "games.match5.summary": "The party word game for 2 to 8: links between categories, matching links score double.",
} as const;
