"""The rounds and decades (spec §5.13, §5.14): a round begins with its active good; at its end
the Entrepreneur may name the next start player; the next round's start player is the next one
clockwise, and at a decade's end rotated cards are reactivated, the two-player neutral's appeal
moves on and the owner of the least valuable shares names the new start player."""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games import vocabulary
from ledger.games.arkwright_card_game import economy
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.decisions import ChooseStartPlayer, DiscardEntrepreneur
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    arrows_passed,
    has,
    move_demand,
    next_clockwise,
    set_player,
    turn_order,
    violation,
    year,
)
from ledger.games.arkwright_card_game.scoring import final_scoring
from ledger.games.arkwright_card_game.state import Phase, State
from ledger.games.shared import clockwise_from, replace, set_at


def round_start(s: State, out: Effects) -> State:
    if s.round == 1:
        out.append(vocabulary.DecadeStarted(decade=year(s)))
    out.append(vocabulary.CycleStarted(decade=year(s), cycle=s.round, good=GOODS[s.good]))
    return replace(s, phase=Phase.ACTION, cursor=0, new_start=None)


def end_of_round(s: State, out: Effects) -> State:
    if s.decade == C.decades_count and s.round == C.rounds:
        return final_scoring(s, out)
    holder = next((p.seat for p in s.players if not p.eliminated and has(p, "ENTREPRENEUR")), None)
    if holder is not None:
        return replace(s, phase=Phase.ENTREPRENEUR, awaiting=(holder,))
    return next_round(s, out)


def next_round(s: State, out: Effects) -> State:
    """§5.13: the next round (start card clockwise), or the next decade (cards reactivated, the
    2-player neutral's appeal forward, the new start player chosen)."""
    chosen = s.new_start
    if s.round < C.rounds:
        start = chosen if chosen is not None else next_clockwise(s, s.start_player)
        out.append(
            vocabulary.StartPlayerChanged(
                seat=start, reason="entrepreneur" if chosen is not None else "clockwise"
            )
        )
        return replace(s, round=s.round + 1, start_player=start, phase=Phase.ROUND_START, awaiting=())
    s = replace(s, decade=s.decade + 1, round=1)
    s = reactivate(s, out)
    if s.neutral:
        for g in range(len(GOODS)):
            a = s.neutral[g]
            b = min(C.appeal_max, a + C.neutral_step)
            steps = arrows_passed(s, g, a, b, neutral=True)
            s = replace(s, neutral=set_at(s.neutral, g, b))
            out.append(
                fx.AppealMarkerMoved(seat=None, good=GOODS[g], appeal_from=a, appeal_to=b, arrows=steps)
            )
            s = move_demand(s, g, steps, "neutral_appeal", out)
    if chosen is not None:
        out.append(vocabulary.StartPlayerChanged(seat=chosen, reason="entrepreneur"))
        return replace(s, start_player=chosen, phase=Phase.ROUND_START, awaiting=())
    if not turn_order(s):  # nobody left to choose
        return replace(s, phase=Phase.ROUND_START, awaiting=())
    chooser = decade_start_chooser(s)
    return replace(s, phase=Phase.CHOOSE_START, awaiting=(chooser,))


def reactivate(s: State, out: Effects) -> State:
    count = 0
    for p in s.players:
        if any(h.rotated for h in p.cards):
            count += sum(h.rotated for h in p.cards)
            s = set_player(s, replace(p, cards=tuple(replace(h, rotated=False) for h in p.cards)))
    if count:
        out.append(fx.CardsReactivated(cards=count))
    return s


def decade_start_chooser(s: State) -> int:
    """§5.14: the lowest share value x shares chooses; ties: least money, then the closest to the
    previous start player clockwise, the start player first (A-11)."""
    order = turn_order(s) or clockwise_from(s.start_player, s.players_count)
    return min(
        order,
        key=lambda seat: (
            s.players[seat].share_value * s.players[seat].shares,
            s.players[seat].money,
            order.index(seat),
        ),
    )


def keep_or_discard_entrepreneur(s: State, seat: int, d: Decision, out: Effects) -> State:
    if not isinstance(d, DiscardEntrepreneur):
        raise violation("wrong_decision", "Keep or discard the Entrepreneur.", "Card 1 Entrepreneur")
    if d.start_player is not None:
        if d.start_player >= s.players_count or s.players[d.start_player].eliminated:
            raise violation(
                "no_such_seat", f"Seat {d.start_player} is not in the game.", "Card 1 Entrepreneur"
            )
        s = economy.discard_card(s, seat, "ENTREPRENEUR", "start_player", out)
        s = replace(s, new_start=d.start_player)
    return next_round(replace(s, awaiting=()), out)


def entrepreneur_options(s: State, seat: int) -> tuple[Decision, ...]:
    return (
        DiscardEntrepreneur(start_player=None),
        *(DiscardEntrepreneur(start_player=i) for i in turn_order(s)),
    )


def choose_start_player(s: State, seat: int, d: Decision, out: Effects) -> State:
    """§5.14: the start player of the next decade, named."""
    if not isinstance(d, ChooseStartPlayer):
        raise violation(
            "wrong_decision", "Name the next start player.", "3 d. Determine the new starting player"
        )
    if d.seat >= s.players_count or s.players[d.seat].eliminated:
        raise violation("no_such_seat", f"Seat {d.seat} is not in the game.", "3 d.")
    out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="chosen"))
    return replace(s, start_player=d.seat, phase=Phase.ROUND_START, awaiting=())


def start_player_options(s: State, seat: int) -> tuple[Decision, ...]:
    return tuple(ChooseStartPlayer(seat=i) for i in turn_order(s))
