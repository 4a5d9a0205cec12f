"""Machine players that decide from a seat's view: the strong bot's search and the arena.

Nothing here reads the clock for the rules or a global random generator: every bot takes
an explicit seed (a ``random.Random`` is built from it), so a decision can be reproduced.
"""
