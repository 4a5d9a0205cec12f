"""The final scoring (spec §5.15): stored goods sold, shares bought with all the money, a share
less per loan, the share value down by the shipping tokens; share value times shares wins."""

from __future__ import annotations

from ledger.engine import Standing
from ledger.games import vocabulary
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.economy import (
    C,
    Effects,
    buy_shares,
    change_shares,
    gain,
    move_share_value,
    set_player,
)
from ledger.games.arkwright_card_game.state import Phase, State, Storehouse
from ledger.games.shared import ranked, replace


def final_scoring(s: State, out: Effects) -> State:
    """§5.15 a-e: stored goods at the fixed price, shares bought with all money, one share less per
    loan, share value down by the shipping tokens, share value x shares."""
    scores = []
    for seat in range(s.players_count):
        p = s.players[seat]
        if p.eliminated:
            scores.append(0)
            continue
        stored = sum(st.goods for st in p.storehouses)
        if stored:
            s = set_player(s, replace(p, storehouses=tuple(Storehouse(id=st.id) for st in p.storehouses)))
            s = gain(s, seat, stored * C.store_price, "stored_goods", out)
        p = s.players[seat]
        bought = p.money // p.share_value if p.share_value > 0 else 0
        if C.shares_max is not None:
            bought = min(bought, max(0, C.shares_max - p.shares))
        if bought:
            s = buy_shares(s, seat, bought, p.share_value, "final_purchase", out)
        p = s.players[seat]
        lost = min(p.shares, p.loans)
        s = change_shares(s, seat, -lost, 0, "loans", out)
        s = move_share_value(s, seat, -C.ship_penalty * p.shipping_tokens, "shipping_tokens", out)
        p = s.players[seat]
        score = p.share_value * p.shares
        scores.append(score)
        out.append(
            fx.FinalScore(
                seat=seat,
                stored_goods=stored,
                shares_bought=bought,
                shares_lost=lost,
                value_lost=C.ship_penalty * p.shipping_tokens,
                score=score,
            )
        )
    s = replace(s, scores=tuple(scores), phase=Phase.FINISHED, awaiting=())
    out.append(
        vocabulary.GameScored(scores=s.scores, winners=tuple(x.seat for x in standings(s) if x.rank == 1))
    )
    return s


def standings(s: State) -> tuple[Standing, ...]:
    """[S] Final scoring: share value x shares; ties to the most leftover money; still tied, a
    shared victory. Bankrupt players rank last."""
    scores = s.scores or tuple(p.share_value * p.shares for p in s.players)
    return ranked(
        [(0 if p.eliminated else 1, scores[i], p.money) for i, p in enumerate(s.players)],
        [
            "bankrupt"
            if p.eliminated
            else f"£{scores[i]} ({p.shares} shares at £{p.share_value}), money £{p.money}"
            for i, p in enumerate(s.players)
        ],
    )
