"""What a Cotton Trade seat cannot see, re-dealt at random; and what a position is worth.

``determinise(state, seat, rng)`` is the only way the strong bot reads a position: every
card the seat has not seen (the order of the ship deck, each region's contract deck and the
face-down contracts of the row it has not peeked at) is pooled per deck, the pool sorted
(so that the real order leaves no trace) and dealt again at random into the same places.
The result is a complete position the seat could be in, drawn from what it knows; another
seat's peek follows the place it looked at, so the others still "know" what lies there.

``evaluate(state)`` estimates every company's final pounds from a position (the bot's
rollouts stop at the end of a round and score the position with it).
"""

from __future__ import annotations

from ledger.games.chance import Chance
from ledger.games.cotton_trade.common import UNIT, held_value, value
from ledger.games.cotton_trade.components import REGIONS, Components, load
from ledger.games.cotton_trade.state import Phase, Slot, State
from ledger.games.shared import replace

C: Components = load()


def determinise(s: State, seat: int, rng: Chance) -> State:
    """A complete position consistent with what ``seat`` has seen, hidden cards re-dealt."""
    seen = {card for who, card in s.peeks if who == seat}
    ship_pool = sorted(s.ship_deck)
    rng.shuffle(ship_pool)
    decks: list[tuple[str, ...]] = []
    rows: list[tuple[Slot, ...]] = []
    moved: dict[str, str] = {}  # a hidden card -> the card dealt into its place
    for r in range(len(REGIONS)):
        row = s.contract_row[r]
        hidden_slots = [i for i, sl in enumerate(row) if not sl.face_up and sl.card not in seen]
        pool = sorted([*s.contract_deck[r], *(row[i].card for i in hidden_slots)])
        rng.shuffle(pool)
        dealt = iter(pool)
        new_row = list(row)
        for i in hidden_slots:
            card = next(dealt)
            moved[row[i].card] = card
            new_row[i] = Slot(card=card, face_up=False)
        decks.append(tuple(dealt))
        rows.append(tuple(new_row))
    peeks = tuple((who, card if who == seat else moved.get(card, card)) for who, card in s.peeks)
    return replace(
        s,
        ship_deck=tuple(ship_pool),
        contract_deck=tuple(decks),
        contract_row=tuple(rows),
        peeks=peeks,
    )


def evaluate(s: State) -> tuple[float, ...]:
    """Each company's wealth in pence-equivalents: its coins (and buy-back income kept apart)
    and the rental value of its ships, which comes back at the stage's end; at the end of the
    game its final money (pounds first, then shillings and pence, as the ranking counts)."""
    if s.phase == Phase.FINISHED:
        return tuple(float(value(p.coins)) + p.coins[2] * 1000 for p in s.players)
    unit = UNIT[s.stage]
    return tuple(
        float(held_value(p)) + unit * sum(C.ship(sh.card).value for sh in p.ships) for p in s.players
    )


def final_value(s: State, seat: int) -> float:
    """The money a company ends with, in pounds (shillings and pence at the exchange rate)."""
    pence, shillings, pounds_ = s.players[seat].coins
    return pounds_ + shillings / 3 + pence / 9


# --- what the strong bot's search needs (ledger/bots/strong.py) ---------------------------------

WORLDS = 4  # the decks' order matters: a few completions per decision
CANDIDATES = 8  # a wider menu is first cut to this many by a short look-ahead
BUDGET_MS = 90.0  # a search's default size
STEPS_PER_ROUND = 26  # decisions in a round of a 4-player game (greedy self-play)
STEPS_PER_MS = 6.5  # engine steps with the greedy bot per millisecond on this machine
_SEARCHED = {Phase.RENT, Phase.SAIL, Phase.SELL, Phase.KEEP_NEW, Phase.AUCTION, Phase.PAYMENT}


def progress(s: State) -> int:
    """Rounds begun so far (9 in a game)."""
    return s.round


def weight(s: State, seat: int) -> float:
    """The share of the budget a decision gets: renting, sailing, staying, keeping a NEW ship and
    the shares trade a whole one; buying a contract none (the greedy bot already reckons each
    card's exact sale income)."""
    return 1.0 if s.phase in _SEARCHED else 0.0
