"""What a Water Frame seat cannot see, drawn again at random; and what a position is worth.

Everything in Water Frame is public except the face-down economy markers of the decades to
come and the event markers not yet revealed ([R16 4.1]). ``determinise(state, seat, rng)``
draws them again from what the seat knows: per good, the markers of that good's pool not yet
revealed (the surplus lies unseen in the box, so any of them may lie on a decade to come);
the events from the event pool less those revealed, Bureaucracy among 1770-1790 until it has
come up, the End of the Game on 1810. The real markers leave no trace in the result.
"""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.chance import Chance
from ledger.games.shared import replace
from ledger.games.water_frame.decisions import SellShares
from ledger.games.water_frame.economy import C, portfolio
from ledger.games.water_frame.setup import economy_pool, event_pool
from ledger.games.water_frame.state import Phase, State

_EARLY = 3  # event markers of 1770, 1780 and 1790 (Bureaucracy lies among them)
_LATE = 3  # the marker of 1800


def _without(pool: list[str], taken: list[str]) -> list[str]:
    rest = sorted(pool)
    for item in taken:
        if item in rest:
            rest.remove(item)
    return rest


def _economy(s: State, rng: Chance) -> tuple[str, ...]:
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
        pool = _without(list(economy_pool(s.players_count, s.options.predetermined_setup, g)), shown)
        for i, marker in zip(hidden, rng.sample(pool, len(hidden)), strict=True):
            economy[i] = marker
    return tuple(economy)


def _events(s: State, rng: Chance) -> tuple[str, ...]:
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
    pool = [e for e in event_pool(s.options) if not (s.players_count == 2 and e in C.events_removed_2p)]
    rest = _without(pool, shown)
    early = [i for i in hidden if i < _EARLY]
    late = [i for i in hidden if i >= _EARLY]
    dealt = rng.sample(rest, len(hidden) - (C.event_bureaucracy not in shown))
    if C.event_bureaucracy not in shown:  # it lies on one of the early decades still hidden
        dealt.insert(rng.randrange(len(early)), C.event_bureaucracy)
    for i, marker in zip(early + late, dealt, strict=True):
        events[i] = marker
    return tuple(events)


def determinise(s: State, seat: int, rng: Chance) -> State:
    """A complete position consistent with what every seat has seen (all of it is public)."""
    return replace(s, economy=_economy(s, rng), events=_events(s, rng))


# --- what a position is worth ------------------------------------------------------------------

ELIMINATED = -1_000.0  # a company with loans at the end ranks below every other
_DECADES = 5  # 1770 .. 1810


def _factories(s: State, seat: int) -> float:
    """What the company's factories are worth: their building cost (the base quality of their
    level), written down over the decades left, so that a build is neither a loss nor a gain
    until it has produced."""
    left = max(0, 1810 - max(s.decade, 1770) + 10) // 10  # decades still to play, this one included
    cost = sum(C.base_quality(g, f.level) for g, f in enumerate(s.players[seat].factories) if f is not None)
    return cost * left / _DECADES


def evaluate(s: State) -> tuple[float, ...]:
    """Each company's final value as if the game ended now: shares at their value, cash (the final
    stock exchange turns it into shares), stored goods at the fixed prices, loans repaid, and its
    factories at their written-down cost; at the end, the final scores (cash as a tie-break)."""
    if s.phase == Phase.FINISHED:
        return tuple(
            ELIMINATED if i in s.eliminated else s.scores[i] + s.players[i].cash / 100
            for i in range(s.players_count)
        )
    out = []
    for i, p in enumerate(s.players):
        stored = sum(C.fixed_goods_prices[g] * (p.stock[g] + p.small_stock[g]) for g in range(4))
        out.append(portfolio(p) + p.cash + stored - C.loan_repay * p.loans + _factories(s, i))
    return tuple(out)


def final_value(s: State, seat: int) -> float:
    """A company's final score (shares x share value); 0 when eliminated by its loans."""
    return 0.0 if seat in s.eliminated or not s.scores else float(s.scores[seat])


# --- what the strong bot's search needs (ledger/bots/strong.py) ---------------------------------

WORLDS = 1  # one completion, searched deeper, beats several searched shallower (12 games: 10 won, 6 with two)
CANDIDATES = 6  # a wider menu is first cut to this many by a short look-ahead
BUDGET_MS = 300.0  # a search's default size
STEPS_PER_ROUND = 22  # decisions in a cycle of a 4-player game (greedy self-play)
STEPS_PER_MS = (
    3.7  # engine steps a millisecond: below the ~6.7 measured with the greedy bot, so searches end early
)
SMALL_STEP = 0.0
SET_UP = 3.0
_SET_UP = {Phase.FOUNDATION_1, Phase.FOUNDATION_2, Phase.START_SHARES, Phase.START_SPECIAL}


def progress(s: State) -> int:
    """Cycles begun so far, counting each decade's end as one (1760 is 0, 1810's end 30)."""
    decades = (s.decade - 1760) // 10
    if s.cycle >= 0:
        return decades * 5 + s.cycle + 1
    return decades * 5 + (5 if s.decade > 1760 and s.phase != Phase.SETUP else 0)


def choices(s: State, seat: int, legal: tuple[Decision, ...]) -> tuple[Decision, ...]:
    """What a search may pick besides the greedy bot's choice: no share sales (a stock exchange
    allows buying and selling in any order any number of times, so a search that weighed a sale
    against a purchase could go round in circles; sales the greedy bot wants still happen)."""
    return tuple(d for d in legal if not isinstance(d, SellShares))


def weight(s: State, seat: int) -> float:
    """The share of the budget a decision gets: the set-up (the two foundations, the starting
    shares) three; the choice of action marker and space, the start player and the final stock
    exchange one; the steps inside an action (how far to go, which factory, which price) none:
    the greedy bot's (a search with a horizon of a cycle or two judged them worse than it)."""
    if s.phase == Phase.ACTION:
        return 1.0 if s.turn is None else SMALL_STEP
    if s.phase in _SET_UP:
        return SET_UP  # the two foundations decide most of a game: rollouts to its end
    if s.phase in (Phase.FINAL_STOCK_EXCHANGE, Phase.START_PLAYER):
        return 1.0
    return SMALL_STEP
