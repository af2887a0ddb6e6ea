/** Messages every page shares. */

export const COMMON = {
  "common.back": "Back to the games",
  "common.notFound": "Not found",
  "common.players": "{count, plural, one {# player} other {# players}}",
  "common.seconds": "{count} s",
  "common.language": "Language",
  "common.skip": "Skip to the page",
  "common.liveLabel": "What just happened",
  "common.unknownGame": "Unknown game",
  "common.noPageYet": "This game's page is not in this build yet.",
  "common.noSuchGame": "There is no game \"{slug}\".",
  "common.checkGameTitle": "Check a game",
} as const;
