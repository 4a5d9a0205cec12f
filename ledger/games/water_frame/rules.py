"""Water Frame's rules engine: setup, the 1760 preparation round, the decade loop,
production and sale, the end of round and the end of the game (spec §3-§5).

The engine runs automatic procedures until a decision or a draw is due;
``State.awaiting`` names the seats awaited and ``State.draws`` the draws due.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from typing import Any

from pydantic import TypeAdapter

from ledger.engine import Decision, DrawOutcome, Effect, Pending
from ledger.errors import RuleViolationError
from ledger.games import vocabulary
from ledger.games.shared import due_draw, replace, run_automatic, set_at
from ledger.games.water_frame import actions, setup, special, storage, words
from ledger.games.water_frame import effects as fx
from ledger.games.water_frame.actions import turn_options
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.conservation import conservation
from ledger.games.water_frame.cycle import (
    action_phase,
    charisma,
    economy_phase,
    end_of_cycle,
    use_charisma,
)
from ledger.games.water_frame.decisions import (
    DECISION_ADAPTER,
    AdjustPrice,
    BuildFactory,
    BuyShares,
    ChooseStartPlayer,
    CloseFactory,
    CloseLastRow,
    DeliverContract,
    Done,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    FoundFactory,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    MoveWarehouseWorker,
    PatronSale,
    PlaceContract,
    PlaceMachine,
    PlaceMarker,
    ProduceGoods,
    RaiseDistribution,
    RaiseQuality,
    ReassignTile,
    ReleaseShip,
    ReleaseWarehouseWorker,
    RepayLoans,
    ReuseMarker,
    SellFromWarehouse,
    SellShares,
    SellStartShares,
    SellStoredGoods,
    ShipContract,
    SkipSpecialMarker,
    StopSelling,
    StoreGoods,
    TakeGreyMarker,
    TakeShip,
    TakeTile,
    UseBroker,
    UseCharisma,
    UseExtraShifts,
    UsePatent,
)
from ledger.games.water_frame.economy import (
    C,
    Effects,
    edges,
    has,
    last_occupied_row,
    prices,
    violation,
)
from ledger.games.water_frame.meta import META
from ledger.games.water_frame.preparation import (
    first_foundation,
    found_factory,
    pay_factories,
    predetermined_tile,
    second_foundation,
    sell_start_shares,
    set_up,
    start_sale_range,
    start_shares,
    start_special,
    take_predetermined_tile,
    take_start_special,
)
from ledger.games.water_frame.production import (
    after_sale,
    patron,
    patron_sale,
    sale_call,
    sale_phase,
    school,
    ship_contract,
    ship_sources,
    shipping,
    storage_phase,
    store_goods,
    surplus_of,
)
from ledger.games.water_frame.round_end import (
    broker,
    event,
    harbour_wages,
    obsolescence,
    release,
    release_or_done,
    return_markers,
    start_player,
)
from ledger.games.water_frame.scoring import final_stock_exchange, score_game, standings
from ledger.games.water_frame.setup import box_tiles, new_game
from ledger.games.water_frame.state import Factory, Phase, Row, State
from ledger.games.water_frame.stock_exchange import trade, trade_options
from ledger.games.water_frame.views import secrets, view

# --- setup (§3.0, §4) ------------------------------------------------------------


def apply_draw(s: State, outcome: DrawOutcome) -> tuple[State, tuple[Effect, ...]]:
    req = due_draw(s.draws, outcome, violation)
    out: Effects = []
    s = setup.drawn(replace(s, draws=s.draws[1:]), req, outcome.values, out)
    s = _advance(s, out)
    return s, tuple(out)


# --- the cycle: economy, action, production (§5.3-§5.8) -----------------------------


# --- the end of the round (§5.9, §5.10) ---------------------------------------------


_HANDLERS: dict[Phase, Callable[[State, Effects], State]] = {}


def _advance(s: State, out: Effects) -> State:
    """Run automatic procedures until a decision or a draw is due, or the game is over."""
    return run_automatic(s, out, _HANDLERS, Phase.FINISHED)  # type: ignore[no-any-return]


def resume(s: State) -> tuple[State, tuple[Effect, ...]]:
    """Run the automatic procedures from a position (a hand-built one, in tests and tools)."""
    out: Effects = []
    s = _advance(s, out)
    return s, tuple(out)


# --- decisions ------------------------------------------------------------------------


_PHASE_DECISIONS: dict[Phase, tuple[type[Decision], ...]] = {
    Phase.FOUNDATION_1: (FoundFactory,),
    Phase.FOUNDATION_2: (FoundFactory,),
    Phase.START_SHARES: (SellStartShares,),
    Phase.START_SPECIAL: (TakeTile, TakeGreyMarker, TakeShip, SkipSpecialMarker),
    Phase.PREDETERMINED_TILE: (TakeTile, SkipSpecialMarker),
    Phase.ACTION: (
        PlaceMarker,
        ReuseMarker,
        BuildFactory,
        ModernizeFactory,
        CloseFactory,
        HireWorkers,
        HireWarehouseWorker,
        MoveWarehouseWorker,
        FireWorkers,
        PlaceMachine,
        RaiseQuality,
        RaiseDistribution,
        UsePatent,
        BuyShares,
        SellShares,
        RepayLoans,
        SellStoredGoods,
        PlaceContract,
        ProduceGoods,
        DeliverContract,
        TakeTile,
        TakeGreyMarker,
        TakeShip,
        UseBroker,
        ReassignTile,
        AdjustPrice,
        FinishMainAction,
        EndTurn,
    ),
    Phase.SCHOOL: (CloseLastRow,),
    Phase.SALE: (SellFromWarehouse, UseExtraShifts, StopSelling),
    Phase.PATRON: (PatronSale,),
    Phase.SHIPPING: (ShipContract,),
    Phase.STORAGE: (StoreGoods,),
    Phase.CHARISMA: (UseCharisma,),
    Phase.RELEASE: (ReleaseShip, ReleaseWarehouseWorker, Done),
    Phase.BROKER: (BuyShares, SellShares, SellStoredGoods, Done),
    Phase.START_PLAYER: (ChooseStartPlayer,),
    Phase.FINAL_STOCK_EXCHANGE: (BuyShares, SellShares, RepayLoans, SellStoredGoods, Done),
}


def _storing(s: State) -> tuple[int, int, int] | None:
    """A production action's storage conflict awaiting the player's StoreGoods (D-34)."""
    return s.turn.storing if s.phase == Phase.ACTION and s.turn is not None else None


def _allowed(s: State) -> tuple[type[Decision], ...]:
    if _storing(s) is not None:
        return (StoreGoods,)
    return _PHASE_DECISIONS.get(s.phase, ())


def apply(s: State, seat: int, decision: Decision) -> tuple[State, tuple[Effect, ...]]:
    if seat not in s.awaiting:
        raise violation("not_your_turn", "The game is not waiting for your decision.", "")
    allowed = _allowed(s)
    if not isinstance(decision, allowed):
        names = ", ".join(d.model_fields["type"].default for d in allowed)
        raise violation("wrong_decision", f"Now ({s.phase.value}) the decision must be one of: {names}.", "")
    out: Effects = []
    d = decision
    phase = s.phase
    if isinstance(d, FoundFactory):
        s = found_factory(s, seat, d, out)
    elif isinstance(d, SellStartShares):
        s = sell_start_shares(s, seat, d, out)
    elif phase == Phase.START_SPECIAL:
        s = take_start_special(s, seat, d, out)
    elif phase == Phase.PREDETERMINED_TILE:
        s = take_predetermined_tile(s, seat, d, out)
    elif phase == Phase.ACTION:
        s = actions.apply_turn_decision(s, seat, d, out)
    elif isinstance(d, CloseLastRow):
        if d.close:
            sale = s.sale
            assert sale is not None
            f = s.players[seat].factories[sale.good]
            assert f is not None
            row = last_occupied_row(f)
            assert row is not None
            s = replace(s, sale=replace(sale, closed_row=set_at(sale.closed_row, seat, row)))
            out.append(fx.RowClosedBySchool(seat=seat, good=GOODS[sale.good], row=row + 1))
        s = replace(s, cursor=s.cursor + 1, awaiting=())
    elif phase == Phase.SALE:
        s = sale_call(s, seat, d, out)
    elif isinstance(d, PatronSale):
        s = patron_sale(s, seat, d, out)
    elif isinstance(d, ShipContract):
        s = ship_contract(s, seat, d, out)
    elif isinstance(d, StoreGoods):
        s = store_goods(s, seat, d, out)
    elif isinstance(d, UseCharisma):
        s = use_charisma(s, seat, d, out)
    elif phase == Phase.RELEASE:
        s = release_or_done(s, seat, d, out)
    elif isinstance(d, ChooseStartPlayer):
        if d.seat >= s.players_count:
            raise violation("no_such_seat", f"There is no seat {d.seat}.", "6.III")
        out.append(vocabulary.StartPlayerChanged(seat=d.seat, reason="chosen"))
        s = replace(s, start_player=d.seat, awaiting=(), phase=Phase.OBSOLESCENCE)
    else:
        s = trade(s, seat, d, out, "6.II" if phase == Phase.BROKER else "8.0")
    s = _advance(s, out)
    return s, tuple(out)


# --- legal decisions -------------------------------------------------------------------


def _valid(s: State, seat: int, d: Decision) -> bool:

    try:
        apply(s, seat, d)
    except RuleViolationError:
        return False
    return True


def legal_decisions(s: State, seat: int) -> tuple[Decision, ...]:
    if seat not in s.awaiting:
        return ()
    p = s.players[seat]
    if s.phase in (Phase.FOUNDATION_1, Phase.FOUNDATION_2):
        out: list[Decision] = []
        for g in range(4):
            if s.phase == Phase.FOUNDATION_2 and g in p.start_goods:
                continue
            blank = Factory(level=1, price=C.price_min, rows=(Row(), Row(), Row(), Row()))
            for price in prices(g, blank, every=True):
                out.append(FoundFactory(good=GOODS[g], price=price))  # type: ignore[arg-type]
        return tuple(out)
    if s.phase == Phase.START_SHARES:
        lo, hi = start_sale_range(p)
        return tuple(SellStartShares(count=n) for n in range(lo, hi + 1))
    if s.phase == Phase.START_SPECIAL:
        return (*special.options(s, seat, start=True, valid=_valid), SkipSpecialMarker())
    if s.phase == Phase.PREDETERMINED_TILE:
        return (
            *(TakeTile(tile=t) for t in box_tiles(s) if t not in p.tiles and t not in special.ASSIGNED_TILES),  # type: ignore[arg-type]
            *(
                TakeTile(tile=t, assign=GOODS[g])
                for t in box_tiles(s)
                if t in special.ASSIGNED_TILES  # type: ignore[arg-type]
                for g in range(4)
                if p.factories[g] is not None
            ),
            SkipSpecialMarker(),
        )
    if s.phase == Phase.ACTION:
        storing = _storing(s)
        if storing is not None:
            good, _, made = storing
            return tuple(storage.options(p, good, made))
        return tuple(turn_options(s, seat, _valid))
    if s.phase == Phase.SCHOOL:
        return (CloseLastRow(close=True), CloseLastRow(close=False))
    if s.phase == Phase.SALE:
        sale = s.sale
        assert sale is not None
        g = sale.good
        opts: list[Decision] = []
        if has(p, "EXTRA_SHIFTS") and not sale.extra_window[seat]:
            opts.append(UseExtraShifts())
        if p.stock[g]:
            opts.append(SellFromWarehouse(warehouse="large"))
        if p.small_stock[g]:
            opts.append(SellFromWarehouse(warehouse="small"))
        return (*opts, StopSelling())
    if s.phase == Phase.PATRON:
        sale = s.sale
        assert sale is not None
        g = sale.good
        sources = [
            x
            for x, ok in (
                ("surplus", surplus_of(sale, seat) > 0),
                ("large", p.stock[g] > 0),
                ("small", p.small_stock[g] > 0),
            )
            if ok
        ]
        return (*(PatronSale(source=x) for x in sources), PatronSale(source=None))  # type: ignore[arg-type]
    if s.phase == Phase.SHIPPING:
        sale = s.sale
        assert sale is not None
        opts = [ShipContract(fulfil=False)]
        for a in [0, -1, 1] if has(p, "AGENT_IN_THE_COLONIES") else [0]:
            d = ShipContract(fulfil=True, agent=a)
            if _valid(s, seat, d):
                opts.append(d)
                n = p.contracts[sale.good] + a
                default = ship_sources(s, seat, n, (0, 1, 2))
                for order in permutations((0, 1, 2)):  # the other orders of taking the goods
                    x, y, z = ship_sources(s, seat, n, order)
                    alt = ShipContract(fulfil=True, agent=a, from_surplus=x, from_large=y, from_small=z)
                    if (x, y, z) != default and alt not in opts:
                        opts.append(alt)
        return tuple(opts)
    if s.phase == Phase.STORAGE:
        sale = s.sale
        assert sale is not None
        return tuple(storage.options(p, sale.good, surplus_of(sale, seat)))
    if s.phase == Phase.CHARISMA:
        return (UseCharisma(seat=None), *(UseCharisma(seat=i) for i in range(s.players_count)))
    if s.phase == Phase.RELEASE:
        return (
            *(ReleaseShip(ship=x) for x in p.ships),
            *(ReleaseWarehouseWorker(edge=e) for e, occupied in edges(p) if occupied),
            Done(),
        )
    if s.phase == Phase.BROKER:
        return (*trade_options(s, seat, repay=False), Done())
    if s.phase == Phase.START_PLAYER:
        return tuple(ChooseStartPlayer(seat=i) for i in range(s.players_count))
    if s.phase == Phase.FINAL_STOCK_EXCHANGE:
        return (*trade_options(s, seat), Done())
    return ()


_PROMPTS = {
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


def pending(s: State) -> Pending:
    if s.draws:
        return Pending(draw=s.draws[0], prompt=f"draw: {s.draws[0].label}")
    if s.phase == Phase.FINISHED:
        return Pending(finished=True, prompt="the game is over")
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
        return Pending(seats=s.awaiting, prompt=prompt)
    return Pending(seats=s.awaiting, prompt=_PROMPTS.get(s.phase, ""))


# --- standings, views, conservation ------------------------------------------------


_HANDLERS.update(
    {
        Phase.SETUP: set_up,
        Phase.PREDETERMINED_TILE: predetermined_tile,
        Phase.FOUNDATION_1: first_foundation,
        Phase.FOUNDATION_2: second_foundation,
        Phase.START_SHARES: start_shares,
        Phase.START_SPECIAL: start_special,
        Phase.PAY_FACTORIES: pay_factories,
        Phase.ECONOMY: economy_phase,
        Phase.ACTION: action_phase,
        Phase.SCHOOL: school,
        Phase.SALE: sale_phase,
        Phase.PATRON: patron,
        Phase.AFTER_SALE: after_sale,
        Phase.SHIPPING: shipping,
        Phase.STORAGE: storage_phase,
        Phase.END_OF_CYCLE: end_of_cycle,
        Phase.CHARISMA: charisma,
        Phase.RETURN_MARKERS: return_markers,
        Phase.HARBOUR_WAGES: harbour_wages,
        Phase.RELEASE: release,
        Phase.EVENT: event,
        Phase.BROKER: broker,
        Phase.START_PLAYER: start_player,
        Phase.OBSOLESCENCE: obsolescence,
        Phase.FINAL_STOCK_EXCHANGE: final_stock_exchange,
        Phase.SCORING: score_game,
    }
)


class WaterFrameEngine:
    meta = META
    decision_adapter: TypeAdapter[Any] = DECISION_ADAPTER
    state_adapter: TypeAdapter[State] = TypeAdapter(State)

    new_game = staticmethod(new_game)
    pending = staticmethod(pending)
    legal_decisions = staticmethod(legal_decisions)
    apply = staticmethod(apply)
    apply_draw = staticmethod(apply_draw)
    view = staticmethod(view)
    standings = staticmethod(standings)
    conservation = staticmethod(conservation)
    secrets = staticmethod(secrets)
    describe = staticmethod(words.describe)


ENGINE = WaterFrameEngine()
