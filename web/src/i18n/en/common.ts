/** Messages every page shares. */

export const COMMON = {
  "common.back": "Back to the games",
  "common.notFound": "Not found",
  "common.players": "{count, plural, one {# player} other {# players}}",
} as const;
