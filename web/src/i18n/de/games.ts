export const GAMES = {
  "games.race.title": "Match, das Rennen",
  "games.race.summary": "2 bis 4 Spieler wetteifern auf eigenen Kopien desselben Spielfelds, drei Felder pro Spiel.",
  "games.concentration.title": "Concentration",
  "games.concentration.summary": "Das klassische Paare-Suchen, Zug um Zug, für 1 bis 6 Spieler.",
  "games.matchCards.title": "Match Cards",
  "games.matchCards.summary": "Finde jedes Paar (oder Trio), bevor die Grenze der Fehlversuche erreicht ist.",
  "games.numberMatch.title": "Number Match",
  "games.numberMatch.summary": "Ein Zahlenrätsel für dich allein: Paare gleicher Zahlen oder Zahlen, die zusammen 10 ergeben.",
  "games.match5.title": "MATCH 5",
  "games.match5.summary": "Das Partyspiel mit Wörtern für 2 bis 8: Verbindungen zwischen Kategorien, gleiche Verbindungen zählen doppelt.",
} as const;
