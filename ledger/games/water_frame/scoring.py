"""The end of the game (spec §5.11; rulebook 8.0): the final stock exchange, the penalties of
1810 (a worker on a factory marker, unfulfilled contracts), players with loans out, and the
portfolios ranked: shares times share value, ties to more cash."""

from __future__ import annotations

from ledger.engine import Decision, Standing
from ledger.games import vocabulary
from ledger.games.shared import ranked, replace
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.decisions import Done
from ledger.games.water_frame.economy import (
    C,
    Effects,
    ask_in_turn,
    change_shares,
    move_share,
    portfolio,
    turn_order,
)
from ledger.games.water_frame.state import Phase, State
from ledger.games.water_frame.stock_exchange import trade, trade_options


def final_stock_exchange(s: State, out: Effects) -> State:
    return ask_in_turn(s, turn_order(s), lambda _s, _p: True, Phase.SCORING)


def score_game(s: State, out: Effects) -> State:
    eliminated = []
    for seat in range(s.players_count):
        p = s.players[seat]
        if p.loans:
            eliminated.append(seat)
            out.append(fx.PlayerEliminated(seat=seat, loans=p.loans))
            continue
        for g in range(4):
            f = p.factories[g]
            if f is not None and f.marker_worker:  # 1810: a worker on the factory marker
                s = move_share(s, seat, -4, "end_penalty", out)
                lost = min(2, s.players[seat].shares)
                if lost:
                    s = change_shares(s, seat, -lost, 0, "end_penalty", out)
                out.append(fx.EndPenalty(seat=seat, reason="worker_on_factory_marker", spaces=4, shares=lost))
        for g in range(4):
            c = s.players[seat].contracts[g]
            if c:  # an unfulfilled contract costs its space in share value
                s = move_share(s, seat, -c, "end_penalty", out)
                out.append(
                    fx.EndPenalty(
                        seat=seat, reason=f"unfulfilled_{GOODS[g].lower()}_contract", spaces=c, shares=0
                    )
                )
    scores = tuple(portfolio(p) for p in s.players)
    s = replace(s, eliminated=tuple(eliminated), scores=scores, phase=Phase.FINISHED)
    ranked = standings(s)
    out.append(vocabulary.GameScored(scores=scores, winners=tuple(x.seat for x in ranked if x.rank == 1)))
    return s


def standings(s: State) -> tuple[Standing, ...]:
    """[R16 8.0] shares x share value; players with loans lose; ties go to more cash, then shared."""
    scores = s.scores or tuple(portfolio(p) for p in s.players)
    return ranked(
        [(0 if i in s.eliminated else 1, scores[i], p.cash) for i, p in enumerate(s.players)],
        [
            "eliminated (loans)"
            if i in s.eliminated
            else f"£{scores[i]} ({p.shares} shares at £{C.share_value(p.share_space)}), cash £{p.cash}"
            for i, p in enumerate(s.players)
        ],
    )


def final_trade(s: State, seat: int, d: Decision, out: Effects) -> State:
    return trade(s, seat, d, out, "8.0")


def final_trade_options(s: State, seat: int) -> tuple[Decision, ...]:
    return (*trade_options(s, seat), Done())
