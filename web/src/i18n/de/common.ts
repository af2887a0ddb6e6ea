export const COMMON = {
  "common.back": "Zurück zu den Spielen",
  "common.notFound": "Nicht gefunden",
  "common.players": "{count, plural, one {# Spieler} other {# Spieler}}",
  "common.seconds": "{count} s",
  "common.language": "Sprache",
  "common.skip": "Zum Inhalt springen",
  "common.liveLabel": "Was gerade passiert ist",
  "common.unknownGame": "Unbekanntes Spiel",
  "common.noPageYet": "Die Seite dieses Spiels ist in dieser Version noch nicht enthalten.",
  "common.noSuchGame": "Es gibt kein Spiel „{slug}“.",
  "common.checkGameTitle": "Ein Spiel prüfen",
} as const;
