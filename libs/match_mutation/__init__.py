"""``make mutation``: mutation testing of every game's rules and of the bus's fenced append."""
