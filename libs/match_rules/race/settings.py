"""The numbers of Match, the race, as the seed and the rules note fix them (times in ms): the
board, the seats, the clock and the limits of a table's settings (``RaceSettings``)."""

from __future__ import annotations

COLUMNS = 4
ROWS = 5
TILES = COLUMNS * ROWS  # tiles are numbered 1..20, row-major
PAIRS = TILES // 2
SYMBOLS = 25  # symbols are numbered 0..24
BOARDS = 3
MIN_PLAYERS = 2
MAX_PLAYERS = 4

COUNTDOWN_MS = 3_000
PAUSE_MS = 1_000
TURNS_PER_BOARD = 80
GRACE_MS = 20_000
CAP_MS = 120_000
FASTEST_HONEST_CLEAR_MS = 12_000

MIN_READY_WINDOW_MS = 10_000
MAX_READY_WINDOW_MS = 120_000
DEFAULT_READY_WINDOW_MS = 30_000  # a table's settings with none given (0)
DEFAULT_HINTS_PER_BOARD = 3
MAX_HINTS_PER_BOARD = 10
