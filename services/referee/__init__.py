"""The referee: the clock and the only writer of every table's events."""
