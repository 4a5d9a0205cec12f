"""What a Water Frame seat cannot see, drawn again at random; and what a position is worth.

Everything in Water Frame is public except the face-down economy markers of the decades to
come and the event markers not yet revealed ([R16 4.1]). ``determinise(state, seat, rng)``
draws them again from what the seat knows: per good, the markers of that good's pool not yet
revealed (the surplus lies unseen in the box, so any of them may lie on a decade to come);
the events from the event pool less those revealed, Bureaucracy among 1770-1790 until it has
come up, the End of the Game on 1810. The real markers leave no trace in the result.
"""

from __future__ import annotations

import random

from ledger.games.shared import replace
from ledger.games.water_frame.economy import C
from ledger.games.water_frame.rules import _economy_pool, _event_pool
from ledger.games.water_frame.state import State

_EARLY = 3  # event markers of 1770, 1780 and 1790 (Bureaucracy lies among them)
_LATE = 3  # the marker of 1800


def _without(pool: list[str], taken: list[str]) -> list[str]:
    rest = sorted(pool)
    for item in taken:
        if item in rest:
            rest.remove(item)
    return rest


def _economy(s: State, rng: random.Random) -> tuple[str, ...]:
    if not s.economy:
        return s.economy
    economy = list(s.economy)
    decades = len(economy) // 4
    for g in range(4):
        slots = [d * 4 + g for d in range(decades)]
        hidden = [i for i in slots if i >= s.economy_revealed]
        if not hidden:
            continue
        shown = [economy[i] for i in slots if i < s.economy_revealed]
        pool = _without(list(_economy_pool(s.players_count, s.options.predetermined_setup, g)), shown)
        for i, marker in zip(hidden, rng.sample(pool, len(hidden)), strict=True):
            economy[i] = marker
    return tuple(economy)


def _events(s: State, rng: random.Random) -> tuple[str, ...]:
    events = list(s.events)
    if not events:
        return s.events
    hidden = [i for i in range(len(events)) if i >= s.events_revealed and events[i] != C.event_end]
    if not hidden:
        return s.events
    shown = events[: s.events_revealed]
    if s.options.predetermined_setup:
        if not s.options.predetermined_events_shuffled:
            return s.events  # the rulebook's fixed timetable: public
        pool = _without([events[i] for i in (0, 1, _LATE)], shown)  # the three shuffled markers
        rng.shuffle(pool)
        for i, marker in zip([i for i in (0, 1, _LATE) if i in hidden], pool, strict=True):
            events[i] = marker
        return tuple(events)
    pool = [e for e in _event_pool(s.options) if not (s.players_count == 2 and e in C.events_removed_2p)]
    rest = _without(pool, shown)
    early = [i for i in hidden if i < _EARLY]
    late = [i for i in hidden if i >= _EARLY]
    dealt = rng.sample(rest, len(hidden) - (C.event_bureaucracy not in shown))
    if C.event_bureaucracy not in shown:  # it lies on one of the early decades still hidden
        dealt.insert(rng.randrange(len(early)), C.event_bureaucracy)
    for i, marker in zip(early + late, dealt, strict=True):
        events[i] = marker
    return tuple(events)


def determinise(s: State, seat: int, rng: random.Random) -> State:
    """A complete position consistent with what every seat has seen (all of it is public)."""
    return replace(s, economy=_economy(s, rng), events=_events(s, rng))
