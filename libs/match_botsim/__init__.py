"""The bot's simulator and bench: simulated games against the rules core, no network.

``players`` holds the simulated players (the bot's own brain at each strength, and the random
and perfect-memory baselines), ``sim`` plays games through ``match_rules.race.decide/evolve`` on
a simulated clock, ``stats`` the confidence intervals, and ``bench`` is ``make bench-bot``.
See docs/bot.md.
"""
