"""Step a of a turn (spec §3.1): the seven actions, each a sequence of small decisions
closed by ``finish_action``; and the Developer, usable at any point of one's own turn."""

from __future__ import annotations

from collections.abc import Callable

from ledger.engine import Decision
from ledger.games.arkwright_card_game import effects as fx
from ledger.games.arkwright_card_game import (
    extra_production,
    factory_actions,
    improvements,
    shipping,
    stock_exchange,
)
from ledger.games.arkwright_card_game.decisions import (
    ChooseAction,
    FinishAction,
    SkipAction,
    UseDeveloper,
)
from ledger.games.arkwright_card_game.economy import (
    RULE,
    C,
    Effects,
    held,
    set_held,
    set_player,
    totals,
    turn_of,
    violation,
)
from ledger.games.arkwright_card_game.extra_production import waste_loose
from ledger.games.arkwright_card_game.state import Player, State, Turn
from ledger.games.shared import replace

ACTIONS = (
    "BUILD",
    "EMPLOY",
    "AUTOMATE",
    "QUALITY",
    "DISTRIBUTION",
    "STOCK_EXCHANGE",
    "EXTRA_PRODUCTION",
    "EARLY_SHIPPING",
)


def available(s: State, action: str) -> bool:
    if action == "EXTRA_PRODUCTION":
        return s.options.extra_production
    if action == "EARLY_SHIPPING":
        return s.options.early_shipping
    return True


# --- choosing and finishing ---------------------------------------------------------------


def choose(s: State, seat: int, d: ChooseAction, out: Effects, possible: bool) -> State:
    t = turn_of(s)
    if t.step != "a":
        raise violation("one_action", "Exactly one action per turn, chosen in step a.", "Step a")
    if not available(s, d.action):
        raise violation(
            "expert_action", f"{d.action.title()} is an expert variant not in play.", RULE[d.action]
        )
    if not possible:
        raise violation("action_impossible", "That action has nothing you could do now.", RULE[d.action])
    out.append(fx.ActionChosen(seat=seat, action=d.action))
    return replace(s, turn=begun(t, s.players[seat], d.action))


def begun(t: Turn, p: Player, action: str) -> Turn:
    """The turn once ``action`` is chosen; action 4 remembers the factories' totals (Example 4)."""
    start: tuple[int, ...] = ()
    if action == "QUALITY":
        start = totals(p.quality)
    elif action == "DISTRIBUTION":
        start = totals(p.distribution)
    return replace(t, step="action", action=action, start_totals=start)


def skip(s: State, seat: int, d: SkipAction, out: Effects) -> State:
    t = turn_of(s)
    if t.step != "a":
        raise violation("one_action", "Exactly one action per turn, chosen in step a.", "Step a")
    out.append(fx.ActionChosen(seat=seat, action="NONE"))
    return after_action(s, seat)


def finish(s: State, seat: int, d: FinishAction, out: Effects) -> State:
    t = turn_of(s)
    if t.step != "action":
        raise violation("no_action", "No action is under way.", "Step a")
    if t.steps == 0:
        raise violation(
            "empty_action",
            "Do at least one step of the action (or choose to take no action).",
            RULE[t.action],
        )
    s = waste_loose(s, seat, out)
    return after_action(s, seat)


def after_action(s: State, seat: int) -> State:
    """Step b for the owner of an open factory of the active good, else straight to step c."""
    t = turn_of(s)
    p = s.players[seat]
    if p.eliminated:
        return replace(s, turn=replace(t, step="done"))
    step = "b" if p.factories[s.good] is not None else "c"
    return replace(s, turn=replace(t, step=step, action=""))


# --- what each action could do now --------------------------------------------------------


def options(s: State, seat: int, action: str) -> list[Decision]:
    """Candidate small steps of an action (legal_decisions keeps those the rules accept)."""
    candidates = ACTION_OPTIONS.get(action)
    return candidates(s, s.players[seat]) if candidates else []


ACTION_OPTIONS: dict[str, Callable[[State, Player], list[Decision]]] = {
    "BUILD": factory_actions.build_options,
    "EMPLOY": factory_actions.employ_options,
    "AUTOMATE": factory_actions.automate_options,
    "QUALITY": improvements.quality_options,
    "DISTRIBUTION": improvements.distribution_options,
    "STOCK_EXCHANGE": stock_exchange.exchange_options,
    "EXTRA_PRODUCTION": extra_production.options,
    "EARLY_SHIPPING": shipping.ship_load_options,
}
"""Each action's candidate steps, for the player whose turn it is."""


# --- the Developer ------------------------------------------------------------------------


def use_developer(s: State, seat: int, d: UseDeveloper, out: Effects) -> State:
    t = turn_of(s)
    if t.step not in ("a", "b", "c"):
        raise violation(
            "developer_timing", "Use the Developer between the steps of your turn.", "Card 9 Developer"
        )
    p = s.players[seat]
    dev = held(p, "DEVELOPER")
    if dev is None or dev.rotated:
        raise violation("no_developer", "You hold no unrotated Developer.", "Card 9 Developer")
    other = held(p, d.card)
    if d.card == "DEVELOPER" or other is None or not other.rotated or not C.card_types[d.card].rotates:
        raise violation(
            "nothing_to_reactivate",
            "Reactivate one other rotated card with the rotate icon.",
            "Card 9 Developer",
        )
    p = set_held(set_held(p, replace(dev, rotated=True)), replace(other, rotated=False))
    out.append(fx.CardRotated(seat=seat, card="DEVELOPER", rotated=True, reason="developer"))
    out.append(fx.CardRotated(seat=seat, card=d.card, rotated=False, reason="developer"))
    return set_player(s, p)
