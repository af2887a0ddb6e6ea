"""The race's terminal client: its tracker, timing, lines, one seat's play, full-screen view and
scripted demo player; ``game.CLIENT`` is what match_client.registry lists."""
