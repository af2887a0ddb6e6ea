export const COMMON = {
  "common.back": "Πίσω στα παιχνίδια",
  "common.notFound": "Δεν βρέθηκε",
  "common.players": "{count, plural, one {# παίκτης} other {# παίκτες}}",
  "common.seconds": "{count} δευτ.",
  "common.language": "Γλώσσα",
  "common.skip": "Μετάβαση στη σελίδα",
  "common.liveLabel": "Τι μόλις έγινε",
  "common.unknownGame": "Άγνωστο παιχνίδι",
  "common.noPageYet": "Η σελίδα αυτού του παιχνιδιού δεν υπάρχει ακόμη σε αυτή την έκδοση.",
  "common.noSuchGame": "Δεν υπάρχει παιχνίδι «{slug}».",
  "common.checkGameTitle": "Έλεγχος παιχνιδιού",
} as const;
