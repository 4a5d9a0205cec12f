"""What a seat of Arkwright: The Card Game cannot see, drawn again; and what a position is worth.

The only hidden items are the development cards never drawn for the expert supply (they lie
face down in the box and never come back into play): ``determinise`` gives each of them a
random face, so the real faces leave no trace. Everything else is public.

``evaluate`` estimates each company's final score from a position the way the final scoring
counts it (§5.15): stored goods sold at the fixed price, all money turned into shares at the
current share value, a share lost per loan, the share value lowered by the shipping tokens.
"""

from __future__ import annotations

from ledger.games.arkwright_card_game.economy import C
from ledger.games.arkwright_card_game.state import Phase, State
from ledger.games.chance import Chance
from ledger.games.shared import replace

ELIMINATED = -1_000.0  # a bankrupt company ranks below every other


def determinise(s: State, seat: int, rng: Chance) -> State:
    """A complete position consistent with what ``seat`` has seen: unseen cards get random faces."""
    if not s.unseen:
        return s
    faces = sorted(f"{card.split('/')[0]}/{rng.choice('AB')}" for card in sorted(s.unseen))
    return replace(s, unseen=tuple(faces))


def evaluate(s: State) -> tuple[float, ...]:
    """Each seat's final score as if the game ended now (money as a tie-break, a hundredth)."""
    if s.scores:
        return tuple(ELIMINATED if p.eliminated else s.scores[p.seat] + p.money / 100 for p in s.players)
    out = []
    for p in s.players:
        if p.eliminated:
            out.append(ELIMINATED)
            continue
        money = p.money + C.store_price * sum(st.goods for st in p.storehouses)
        value = max(C.share_min, p.share_value - C.ship_penalty * p.shipping_tokens)
        shares = max(0.0, p.shares + money / max(1, p.share_value) - p.loans)
        out.append(shares * value)
    return tuple(out)


def final_value(s: State, seat: int) -> float:
    """A company's final score (shares x share value); 0 when bankrupt."""
    return 0.0 if s.players[seat].eliminated or not s.scores else float(s.scores[seat])


# --- what the strong bot's search needs (ledger/bots/strong.py) ---------------------------------

WORLDS = 1  # nothing hidden ever comes into play: one completion is as good as many
CANDIDATES = 8  # a wider menu is first cut to this many by a short look-ahead
BUDGET_MS = 80.0  # a search's default size
STEPS_PER_ROUND = 32  # decisions in a round of a 4-player game (greedy self-play)
STEPS_PER_MS = 5.0  # engine steps with the greedy bot per millisecond on this machine


def progress(s: State) -> int:
    """Rounds begun so far (12 in a game)."""
    return (s.decade - 1) * 4 + s.round


def weight(s: State, seat: int) -> float:
    """The share of the budget a decision gets: the turn's three steps (the action, price and
    appeal, the development), production choices and the set-up a whole one; the small steps
    inside an action none (the greedy bot's, where a search finds nothing better)."""
    return 0.0 if s.phase == Phase.ACTION and s.turn is not None and s.turn.step == "action" else 1.0
