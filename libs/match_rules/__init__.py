"""The pure rules core of the Match platform.

Nothing in this package reads a clock, touches the network or the disk, or draws a random
number: time, ids and deals come in with the commands, and every outcome leaves as events.
That is what lets the referee, the bot, the tests and an auditor's replay agree exactly.
"""
