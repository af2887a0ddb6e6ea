"""Players: the identity a key pair gives (``identity``) and the read models kept about each
player (ratings, statistics, streaks, leaderboards). Pure: the lobby, the players service and
the client share it; it imports no service."""
