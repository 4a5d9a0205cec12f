"""A player's turn in the action phase (spec §3.1-§3.3): step a, one action (or none), in small
steps; step b, the price and appeal of the active good's factory; step c, one development; and
the Developer, usable between the steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.engine import Decision
from ledger.games.arkwright_card_game import (
    actions,
    decisions,
    development,
    extra_production,
    factory_actions,
    improvements,
    production,
    shipping,
    stock_exchange,
)
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game.economy import (
    GOODS,
    C,
    Effects,
    Valid,
    card_type,
    held,
    move_appeal_marker,
    price_appeal,
    set_player,
    totals,
    violation,
)
from ledger.games.arkwright_card_game.state import State, Turn
from ledger.games.shared import clockwise_from, replace, set_at


def action_phase(s: State, out: Effects) -> State:
    """Each player in clockwise order from the start player: steps a, b and c."""
    t = s.turn
    if t is not None:
        if t.step != "done":
            return replace(s, awaiting=(t.seat,))
        s = replace(s, turn=None, cursor=s.cursor + 1)
    order = clockwise_from(s.start_player, s.players_count)
    while s.cursor < len(order):
        seat = order[s.cursor]
        if not s.players[seat].eliminated:
            return replace(s, turn=Turn(seat=seat), awaiting=(seat,))
        s = replace(s, cursor=s.cursor + 1)
    return production.start(replace(s, cursor=0, awaiting=()))


def decide(s: State, seat: int, d: Decision, out: Effects, valid: Valid) -> State:
    if isinstance(d, decisions.ChooseAction):
        possible = actions.available(s, d.action) and any_valid(
            s, seat, actions.options(s, seat, d.action), d.action, valid
        )
        return actions.choose(s, seat, d, out, possible)
    handler = _TURN_HANDLERS.get(type(d))
    if handler is None:
        raise violation("wrong_decision", "That decision is not part of a turn.", "")
    return handler(s, seat, d, out)


def set_price_and_appeal(s: State, seat: int, d: decisions.SetPriceAndAppeal, out: Effects) -> State:
    """Step b: token spot, office and quality sides; the appeal marker moves, arrows move demand."""
    t = actions.turn_of(s)
    if t.step != "b":
        raise violation("not_step_b", "Price and appeal are set in step b, after the action.", "Step b")
    g = s.good
    p = s.players[seat]
    f = p.factories[g]
    assert f is not None
    if not 1 <= d.spot <= len(C.side(g, f.side).spots):
        raise violation("no_such_spot", "The factory token has 4 spots.", "Step b")
    here = {c.id for c in p.quality if c.good == g}
    if not set(d.appeal_cards) <= here or len(set(d.appeal_cards)) != len(d.appeal_cards):
        raise violation("quality_not_here", "Only quality cards of this factory can be rotated.", "Step b")
    f = replace(f, spot=d.spot, office_appeal=d.office == "APPEAL")
    quality = tuple(replace(c, appeal=c.id in d.appeal_cards) if c.good == g else c for c in p.quality)
    p = replace(p, factories=set_at(p.factories, g, f), quality=quality)
    s = set_player(s, p)
    price, appeal = price_appeal(p, g)
    out.append(
        fx.PriceAndAppealSet(
            seat=seat, good=GOODS[g], spot=d.spot, office=d.office, price=price, appeal=appeal
        )
    )
    s = move_appeal_marker(s, seat, g, appeal, out)
    return replace(s, turn=replace(t, step="c"))


_TURN_HANDLERS: dict[type, Callable[[State, int, Any, Effects], State]] = {
    decisions.SkipAction: actions.skip,
    decisions.FinishAction: actions.finish,
    decisions.BuildFactory: factory_actions.build,
    decisions.UpgradeFactory: factory_actions.upgrade,
    decisions.UpgradeWithInventor: factory_actions.upgrade_with_inventor,
    decisions.HireWorker: factory_actions.hire,
    decisions.AddMachine: factory_actions.add_machine,
    decisions.SetQualityCard: improvements.set_quality,
    decisions.SetDistributionCard: improvements.set_distribution,
    decisions.BuyShares: stock_exchange.buy,
    decisions.TakeLoans: stock_exchange.loans,
    decisions.RegainShips: stock_exchange.regain,
    decisions.ProduceExtra: extra_production.produce_extra,
    decisions.StoreGoods: extra_production.store_extra,
    decisions.ShipStoredGoods: shipping.ship_stored,
    decisions.UseDeveloper: actions.use_developer,
    decisions.SetPriceAndAppeal: set_price_and_appeal,
    decisions.TakeDevelopment: development.take_development,
    decisions.TakeDevelopmentCard: development.take_development_card,
    decisions.DiscardDevelopmentCard: development.discard,
    decisions.UseBroker: development.use_broker,
    decisions.UseInventor: development.use_inventor,
    decisions.SkipDevelopment: development.skip,
    decisions.PlaceReplacementQuality: development.place_replacement,
    decisions.FinishReplacement: development.finish_replacement,
}


def any_valid(s: State, seat: int, candidates: list[Decision], action: str, valid: Valid) -> bool:
    """Whether an action chosen now could do at least one step."""
    t = actions.turn_of(s)
    probe = replace(
        s, turn=replace(t, step="action", action=action, start_totals=start_totals(s, seat, action))
    )
    return any(valid(probe, seat, d) for d in candidates)


def start_totals(s: State, seat: int, action: str) -> tuple[int, ...]:

    p = s.players[seat]
    if action == "QUALITY":
        return totals(p.quality)
    if action == "DISTRIBUTION":
        return totals(p.distribution)
    return ()


def price_options(s: State, seat: int) -> list[Decision]:
    g = s.good
    p = s.players[seat]
    f = p.factories[g]
    assert f is not None
    here = [c.id for c in p.quality if c.good == g]
    combos: list[tuple[str, ...]] = [()]
    for cid in here:
        combos += [(*c, cid) for c in combos]
    return [
        decisions.SetPriceAndAppeal(spot=spot, office=office, appeal_cards=combo)  # type: ignore[arg-type]
        for spot in range(1, len(C.side(g, f.side).spots) + 1)
        for office in ("PRICE", "APPEAL")
        for combo in combos
    ]


def options(s: State, seat: int, valid: Valid) -> list[Decision]:
    t = actions.turn_of(s)
    p = s.players[seat]
    out: list[Decision] = []
    developer: list[Decision] = []
    dev = held(p, "DEVELOPER")
    if dev is not None and not dev.rotated:
        developer = [
            decisions.UseDeveloper(card=card_type(h))  # type: ignore[arg-type]
            for h in p.cards
            if h.rotated and C.card_types[card_type(h)].rotates and card_type(h) != "DEVELOPER"
        ]
    if t.step == "a":
        for action in actions.ACTIONS:
            if actions.available(s, action) and any_valid(
                s, seat, actions.options(s, seat, action), action, valid
            ):
                out.append(decisions.ChooseAction(action=action))  # type: ignore[arg-type]
        return [*out, decisions.SkipAction(), *developer]
    if t.step == "action":
        out = [d for d in actions.options(s, seat, t.action) if valid(s, seat, d)]
        if t.steps:
            out.append(decisions.FinishAction())
        return out
    if t.step == "b":
        return [*price_options(s, seat), *developer]
    if t.step == "c":
        return [d for d in development.options(s, seat, start=False) if valid(s, seat, d)] + developer
    if t.step == "engineer":
        return [*development.replacement_options(s, seat), decisions.FinishReplacement()]
    return []
