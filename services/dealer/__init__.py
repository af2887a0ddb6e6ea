"""The dealer: draws each game's secret seed once, commits to it, deals from it, and reveals it
only when the table's log shows the game has ended. ``python -m services.dealer``."""
