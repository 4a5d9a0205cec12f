"""Water Frame's rules engine: the table of contents of the game.

Five decades (1770-1810) after the preparation round of 1760; each decade four cycles, one per
good: the economy phase, the action phase (a turn per player), the production phase of the
active good; then the end of the round; after 1810's, the end of the game (spec §1). This
module holds the phase table, the decisions each phase accepts, and the engine's interface; the
procedures live in the modules named after the rulebook's sections:

- ``setup``: game creation and the random draws;
- ``preparation``: the preparation round of 1760 (or the predetermined set-up);
- ``cycle``: the decade's cycles, the economy phase, the end of a cycle;
- ``actions``: the action phase's turn (markers, the additional action) and its menu, with each
  action in its own module: ``factory``, ``workers``, ``improvements`` (machinery, quality,
  distribution), ``stock_exchange``, ``production_action`` (production and ship), ``special``;
- ``production``: the production phase (sale, share values, wages, shipping, storage), with
  ``storage`` for the warehouses' arrangement;
- ``round_end``: the end of the round (the event phase, obsolescence);
- ``scoring``: the end of the game;
- ``views``, ``conservation``, ``words``: what a seat sees, the conservation laws, the log;
  ``economy`` holds the small rules every phase uses.

The engine runs automatic procedures until a decision or a draw is due; ``State.awaiting``
names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.engine import Decision, Effect, module_engine
from ledger.errors import RuleViolationError
from ledger.games.shared import PhaseTable
from ledger.games.water_frame import (
    actions,
    cycle,
    decisions,
    preparation,
    production,
    round_end,
    scoring,
    setup,
)
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.conservation import conservation  # noqa: F401 (the engine's interface)
from ledger.games.water_frame.decisions import DECISION_ADAPTER
from ledger.games.water_frame.economy import C, Effects, violation
from ledger.games.water_frame.meta import META
from ledger.games.water_frame.scoring import standings  # noqa: F401 (the engine's interface)
from ledger.games.water_frame.setup import new_game  # noqa: F401 (the engine's interface)
from ledger.games.water_frame.state import Phase, State
from ledger.games.water_frame.views import view  # noqa: F401 (the engine's interface)
from ledger.games.water_frame.words import describe  # noqa: F401 (the engine's interface)

Decide = Callable[[State, int, Any, Effects], State]

# --- the phases --------------------------------------------------------------------------------

_PROCEDURES: dict[Phase, Callable[[State, Effects], State]] = {
    Phase.SETUP: preparation.set_up,  # 1760 (§3.1), or the predetermined set-up (§3.1.1)
    Phase.FIRST_START_PLAYER: preparation.first_start_player,  # start_player="chosen" (R14 4.1 II)
    Phase.PREDETERMINED_TILE: preparation.predetermined_tile,
    Phase.FOUNDATION_1: preparation.first_foundation,
    Phase.FOUNDATION_2: preparation.second_foundation,
    Phase.START_SPECIAL: preparation.start_special,
    Phase.START_SHARES: preparation.start_shares,
    Phase.PAY_FACTORIES: preparation.pay_factories,
    Phase.ECONOMY: cycle.economy_phase,  # each cycle: the economy phase (§3.2)
    Phase.ACTION: cycle.action_phase,  # the action phase (§3.3)
    Phase.SCHOOL: production.school,  # the production phase (§3.5)
    Phase.SALE: production.sale_phase,
    Phase.SCHOOL_AFTER_SALE: production.school_after_sale,  # school_timing="during_sale"
    Phase.PATRON: production.patron,
    Phase.AFTER_SALE: production.after_sale,
    Phase.SHIPPING: production.shipping,
    Phase.STORAGE: production.storage_phase,
    Phase.END_OF_CYCLE: cycle.end_of_cycle,  # the end of a cycle (§3.4)
    Phase.CHARISMA: cycle.charisma,
    Phase.RETURN_MARKERS: round_end.return_markers,  # the end of the round (§3.6)
    Phase.HARBOUR_WAGES: round_end.harbour_wages,
    Phase.RELEASE: round_end.release,
    Phase.EVENT: round_end.event,
    Phase.BROKER: round_end.broker,
    Phase.START_PLAYER: round_end.start_player,
    Phase.OBSOLESCENCE: round_end.obsolescence,
    Phase.FINAL_STOCK_EXCHANGE: scoring.final_stock_exchange,  # the end of the game (§5.11)
    Phase.SCORING: scoring.score_game,
}
"""What each phase does by itself until a decision or a draw is due."""

_ACCEPTED: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.FIRST_START_PLAYER: (decisions.ChooseStartPlayer,),
    Phase.FOUNDATION_1: (decisions.FoundFactory,),
    Phase.FOUNDATION_2: (decisions.FoundFactory,),
    Phase.START_SHARES: (decisions.SellStartShares,),
    Phase.START_SPECIAL: (
        decisions.TakeTile,
        decisions.TakeGreyMarker,
        decisions.TakeShip,
        decisions.SkipSpecialMarker,
    ),
    Phase.PREDETERMINED_TILE: (decisions.TakeTile, decisions.SkipSpecialMarker),
    Phase.ACTION: actions.TURN_DECISIONS,
    Phase.SCHOOL: (decisions.CloseLastRow,),
    Phase.SALE: (
        decisions.SellFromWarehouse,
        decisions.UseExtraShifts,
        decisions.StopSelling,
        decisions.CloseLastRow,  # school_timing="during_sale" only, when asked
    ),
    Phase.SCHOOL_AFTER_SALE: (decisions.CloseLastRow,),
    Phase.PATRON: (decisions.PatronSale,),
    Phase.SHIPPING: (decisions.ShipContract,),
    Phase.STORAGE: (decisions.StoreGoods,),
    Phase.CHARISMA: (decisions.UseCharisma,),
    Phase.RELEASE: (decisions.ReleaseShip, decisions.ReleaseWarehouseWorker, decisions.Done),
    Phase.BROKER: (decisions.BuyShares, decisions.SellShares, decisions.SellStoredGoods, decisions.Done),
    Phase.START_PLAYER: (decisions.ChooseStartPlayer,),
    Phase.FINAL_STOCK_EXCHANGE: (
        decisions.BuyShares,
        decisions.SellShares,
        decisions.RepayLoans,
        decisions.SellStoredGoods,
        decisions.Done,
    ),
}
"""The decisions each phase accepts."""

_DECIDE: dict[Phase, Decide] = {
    Phase.FIRST_START_PLAYER: preparation.choose_first_start_player,
    Phase.FOUNDATION_1: preparation.found_factory,
    Phase.FOUNDATION_2: preparation.found_factory,
    Phase.START_SHARES: preparation.sell_start_shares,
    Phase.START_SPECIAL: preparation.take_start_special,
    Phase.PREDETERMINED_TILE: preparation.take_predetermined_tile,
    Phase.ACTION: actions.apply_turn_decision,
    Phase.SCHOOL: production.close_last_row,
    Phase.SALE: production.sale_call,
    Phase.SCHOOL_AFTER_SALE: production.close_last_row,
    Phase.PATRON: production.patron_sale,
    Phase.SHIPPING: production.ship_contract,
    Phase.STORAGE: production.store_goods,
    Phase.CHARISMA: cycle.use_charisma,
    Phase.RELEASE: round_end.release_or_done,
    Phase.BROKER: round_end.broker_trade,
    Phase.START_PLAYER: round_end.choose_start_player,
    Phase.FINAL_STOCK_EXCHANGE: scoring.final_trade,
}
"""What a decision does, by the phase it is made in."""


def _valid(s: State, seat: int, d: Decision) -> bool:
    """The engine's judge for the options only a trial tells apart."""
    try:
        apply(s, seat, d)
    except RuleViolationError:
        return False
    return True


_OPTIONS: dict[Phase, Callable[[State, int], tuple[Decision, ...]]] = {
    Phase.FIRST_START_PLAYER: round_end.start_player_options,
    Phase.FOUNDATION_1: preparation.foundation_options,
    Phase.FOUNDATION_2: preparation.foundation_options,
    Phase.START_SHARES: preparation.start_share_options,
    Phase.START_SPECIAL: lambda s, seat: preparation.start_special_options(s, seat, _valid),
    Phase.PREDETERMINED_TILE: preparation.predetermined_tile_options,
    Phase.ACTION: lambda s, seat: actions.options(s, seat, _valid),
    Phase.SCHOOL: production.school_options,
    Phase.SALE: production.sale_options,
    Phase.SCHOOL_AFTER_SALE: production.school_options,
    Phase.PATRON: production.patron_options,
    Phase.SHIPPING: lambda s, seat: production.shipping_options(s, seat, _valid),
    Phase.STORAGE: production.storage_options,
    Phase.CHARISMA: cycle.charisma_options,
    Phase.RELEASE: round_end.release_options,
    Phase.BROKER: round_end.broker_options,
    Phase.START_PLAYER: round_end.start_player_options,
    Phase.FINAL_STOCK_EXCHANGE: scoring.final_trade_options,
}
"""The legal decisions of the seat awaited, by phase."""

_PROMPTS = {
    Phase.FIRST_START_PLAYER: "name the start player of the game (the table's choice)",
    Phase.SCHOOL_AFTER_SALE: "school: none of your last row's goods were sold; close that row now, or not",
    Phase.START_SPECIAL: "take a special marker: a light grey marker or ship of row I, or a tile, or skip",
    Phase.PREDETERMINED_TILE: "take your predetermined development tile (one not on the display)",
    Phase.SCHOOL: "school: close the last occupied row of your active factory, or not",
    Phase.PATRON: "patron: sell one more good at your price, or not",
    Phase.SHIPPING: "ship your contract of the active good now, or let it escalate",
    Phase.STORAGE: "storage: your surplus does not all fit; choose what both warehouses keep",
    Phase.CHARISMA: "charisma: return it to name the start player, or keep it",
    Phase.BROKER: "broker: sell stored goods, buy or sell shares, or done",
    Phase.FOUNDATION_1: "found your first level-I factory and set its price",
    Phase.FOUNDATION_2: "found your second factory (another kind of goods)",
    Phase.START_SHARES: "sell shares at £10 for your start-up capital",
    Phase.SALE: "sell a stored good (or use extra shifts) at this call, or stop selling",
    Phase.RELEASE: "release ships (with their crews) and warehouse workers, or done",
    Phase.START_PLAYER: "name the start player of the next decade",
    Phase.FINAL_STOCK_EXCHANGE: "the final stock exchange: buy and sell shares, repay loans, sell stored goods",
}


def _prompt(s: State) -> str:
    """What the seats awaited are asked now."""
    if s.phase == Phase.ACTION:
        t = s.turn
        if t is None:
            prompt = f"{GOODS[s.cycle].lower()} cycle: place or re-use an action marker"
        elif t.storing is not None:
            prompt = "storage: your production does not all fit; choose what both warehouses keep"
        elif t.stage == "main":
            prompt = f"{t.action.lower().replace('_', ' ')} action: continue, finish the main action or end the turn"
        else:
            prompt = "additional action, or end your turn"
        return prompt
    if s.phase == Phase.SALE and s.awaiting and production.school_question(s, s.awaiting[0]):
        return "school: your next good sold comes from your last row; close that row now, or not"
    return _PROMPTS.get(s.phase, "")


PHASES = PhaseTable(_PROCEDURES, _OPTIONS, _prompt, setup.drawn, Phase.FINISHED, violation)
resume, apply_draw, pending = PHASES.resume, PHASES.apply_draw, PHASES.pending
legal_decisions = PHASES.legal_decisions


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    PHASES.check_awaited(s, seat)
    accepted = (decisions.StoreGoods,) if actions.storing(s) is not None else _ACCEPTED.get(s.phase, ())
    if not isinstance(decision, accepted):
        names = ", ".join(d.model_fields["type"].default for d in accepted)
        raise violation("wrong_decision", f"Now ({s.phase.value}) the decision must be one of: {names}.", "")
    out: Effects = []
    s = _DECIDE[s.phase](s, seat, decision, out)
    s = PHASES.advance(s, out)
    return s, tuple(out)


def secrets(s: State, seat: int | None) -> set[str]:
    """Economy and event markers not yet revealed, and the advanced markers left in the box."""
    hidden = set(s.economy[s.economy_revealed :]) | set(s.events[s.events_revealed :])
    hidden.discard("")
    hidden.discard(C.event_end)  # always public: End of the Game lies on 1810
    return hidden


ENGINE = module_engine(__name__, META, DECISION_ADAPTER, State)
