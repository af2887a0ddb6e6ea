"""The players service: ratings, statistics, streaks and leaderboards, read models of the log."""
