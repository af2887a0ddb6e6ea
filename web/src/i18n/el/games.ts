export const GAMES = {
  "games.race.title": "Match, ο αγώνας",
  "games.race.summary": "2 έως 4 παίκτες αγωνίζονται σε δικά τους αντίγραφα του ίδιου ταμπλό, τρία ταμπλό ανά παιχνίδι.",
  "games.concentration.title": "Concentration",
  "games.concentration.summary": "Τα κλασικά ζεύγη, με σειρά, για 1 έως 6 παίκτες.",
  "games.matchCards.title": "Match Cards",
  "games.matchCards.summary": "Βρείτε όλα τα ζεύγη (ή τα τρίο) πριν από το όριο αποτυχημένων προσπαθειών.",
  "games.numberMatch.title": "Number Match",
  "games.numberMatch.summary": "Ένας γρίφος αριθμών για έναν: ζεύγη ίσων αριθμών ή αριθμών που κάνουν άθροισμα 10.",
  "games.match5.title": "MATCH 5",
  "games.match5.summary": "Το παιχνίδι λέξεων για παρέες 2 έως 8: συνδέσεις ανάμεσα σε κατηγορίες, οι ίδιες συνδέσεις μετρούν διπλά.",
} as const;
