"""MATCH 5: the party word game (links between categories, votes, matching links)."""
