"""A legal-move script per game for the bench's scripted load (match_bench.games): the module
``match_bench.scripts.<slug>`` of each game that has one. The race has its own players
(match_bench.players) and no module here.

Each module has ``SEATS`` (the seats of its tables), ``settings()`` (the table's settings
message, CreateTable's member for the game) and ``Script(deal, seats)``: one table's moves, pure
(no I/O, no clock), from the dealer's deal (the bench's privilege, as in the end-to-end tests) and
the replies. ``next(seat)`` is the seat's next command, ``(rpc, fields)``, or None once the seat
has nothing more to send; ``answered(seat, reply)`` moves it on after an accepted command (a
refused one is sent again by the driver, after a pause); ``pause_s(seat)`` is how long the seat
waits before its next command (a game's own timing, e.g. Match Cards comparing an attempt).
"""
