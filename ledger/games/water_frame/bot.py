"""A scripted greedy Water Frame player: sensible prices, builds, hires and sales.

It always picks one of the engine's legal decisions, so it doubles as a
conformance check that the economy works (the games end with sales and
share values that rose), not only that random moves survive.
"""

from __future__ import annotations

from ledger.engine import Decision
from ledger.games.water_frame import actions, decisions
from ledger.games.water_frame.components import GOODS
from ledger.games.water_frame.economy import C, appeal, level_now, output, wage
from ledger.games.water_frame.rules import legal_decisions
from ledger.games.water_frame.state import Phase, State

TARGET_APPEAL = 3


def _incomplete_rows(s: State, seat: int) -> list[tuple[int, int, int]]:
    """(good, row, free slots) of rows worth completing: their output pays their wages."""
    out = []
    w = wage(s)
    for g, f in enumerate(s.players[seat].factories):
        if f is None:
            continue
        for r in range(4):
            free = C.slots(g, r) - f.rows[r].workers - f.rows[r].machines
            if free and C.row_output[f.level - 1][r] * max(f.price, C.price_min) > C.slots(g, r) * w:
                out.append((g, r, free))
    return sorted(out, key=lambda x: (x[2], x[1]))


def _machine_rows(s: State, seat: int) -> bool:
    for g, f in enumerate(s.players[seat].factories):
        if f is None:
            continue
        for r in range(4):
            only, flex = C.row_slots[g][r]
            if f.rows[r].machines < flex and f.rows[r].workers > only:
                return True
    return False


def _want(s: State, seat: int) -> str:
    """Which action this turn: machines save wages, then modernise, build, hire, appeal, shares."""
    p = s.players[seat]
    if (
        any(p.contracts)
        and any(f"SHIP:{x}" not in p.admin for x in p.ships)
        and any(p.contracts[g] and p.stock[g] + p.small_stock[g] >= p.contracts[g] for g in range(4))
    ):
        return "SHIP"
    owned = [g for g in range(4) if p.factories[g] is not None]
    lvl = level_now(s)
    if _machine_rows(s, seat) and p.cash >= 10 and wage(s) >= 2:
        return "MACHINERY"
    old = [g for g in owned if p.factories[g].level < lvl]  # type: ignore[union-attr]
    if old and p.cash > C.base_quality(old[0], p.factories[old[0]].level + 1) + 12:  # type: ignore[union-attr]
        return "FACTORY"
    if len(owned) < 3 and p.cash > 35:
        return "FACTORY"
    if _incomplete_rows(s, seat) and p.cash > 8:
        return "WORKERS"
    if any(appeal(g, p.factories[g]) < TARGET_APPEAL for g in owned) and p.cash > 8:
        return "DISTRIBUTION"
    return "STOCK_EXCHANGE"


def _good_price(s: State, seat: int, g: int) -> int:
    f = s.players[seat].factories[g]
    assert f is not None
    top = f.price + appeal(g, f)
    return max(C.price_min, min(C.price_max, top - TARGET_APPEAL))


def choose(s: State, seat: int) -> Decision:
    legal = legal_decisions(s, seat)
    assert legal, "the bot is only asked when it has a legal decision"
    p = s.players[seat]

    def first(kind: type[Decision]) -> Decision | None:
        return next((d for d in legal if isinstance(d, kind)), None)

    if s.phase in (Phase.FOUNDATION_1, Phase.FOUNDATION_2):
        taken = [sum(1 for q in s.players if q.factories[g] is not None) for g in range(4)]
        wanted = [d for d in legal if isinstance(d, decisions.FoundFactory)]
        return min(
            wanted,
            key=lambda d: (
                taken[GOODS.index(d.good)],
                C.base_quality(GOODS.index(d.good), 1),
                abs(C.base_quality(GOODS.index(d.good), 1) - d.price - TARGET_APPEAL),
            ),
        )
    if s.phase == Phase.START_SHARES:
        counts = [d.count for d in legal if isinstance(d, decisions.SellStartShares)]
        return decisions.SellStartShares(count=min(max(counts), min(counts) + 3))
    if s.phase == Phase.SALE:
        return first(decisions.SellFromWarehouse) or first(decisions.UseExtraShifts) or legal[-1]
    if s.phase in (Phase.START_SPECIAL, Phase.PREDETERMINED_TILE):
        return _special(s, seat, legal) or legal[-1]
    if s.phase == Phase.SHIPPING:
        return next((d for d in legal if isinstance(d, decisions.ShipContract) and d.fulfil), legal[0])
    if s.phase == Phase.PATRON:
        return legal[0]
    if s.phase == Phase.STORAGE or (s.turn is not None and s.turn.storing is not None):
        return _store(legal)  # the production phase's storage, or a production action's
    if s.phase in (Phase.SCHOOL, Phase.SCHOOL_AFTER_SALE, Phase.CHARISMA):
        return next(
            (d for d in legal if getattr(d, "close", True) is False or getattr(d, "seat", 0) is None),
            legal[0],
        )
    if s.phase == Phase.BROKER:
        return decisions.Done()
    if s.phase == Phase.RELEASE:
        return decisions.Done()
    if s.phase in (Phase.START_PLAYER, Phase.FIRST_START_PLAYER):
        return decisions.ChooseStartPlayer(seat=seat)
    if s.phase == Phase.FINAL_STOCK_EXCHANGE:
        if p.loans and not first(decisions.RepayLoans) and p.shares:
            return next(d for d in legal if isinstance(d, decisions.SellShares) and d.count == 1)
        return first(decisions.SellStoredGoods) or _max_repay(legal) or _max_buy(legal) or decisions.Done()
    t = s.turn
    if t is None:
        action = _want(s, seat)
        for d in legal:
            if isinstance(d, decisions.ReuseMarker) and d.action == action and p.cash > 10:
                return d
        places = [d for d in legal if isinstance(d, decisions.PlaceMarker) and d.action == action]
        greys = [d for d in places if d.shade != "OWN"]
        if greys and action in ("MACHINERY", "QUALITY"):
            places = greys
        if places:
            need = {"DISTRIBUTION": 4, "QUALITY": 6, "MACHINERY": 6 if p.cash > 20 else 3}.get(action, 2)
            fitting = [d for d in places if d.space >= need] or places
            return min(fitting, key=lambda d: d.space)
        return legal[0]
    if t.stage == "main":
        if t.action == "WORKERS":
            for g, r, free in _incomplete_rows(s, seat):
                d = decisions.HireWorkers(good=GOODS[g], row=r + 1, count=free)  # type: ignore[arg-type]
                if d in legal:
                    return d
        elif t.action == "FACTORY":
            lvl = level_now(s)
            for d in legal:
                if isinstance(d, decisions.ModernizeFactory) and p.cash > 20:
                    return d
            builds = [d for d in legal if isinstance(d, decisions.BuildFactory) and d.level == lvl]
            if builds and p.cash > 35:
                return max(
                    builds,
                    key=lambda d: (
                        C.base_quality(GOODS.index(d.good), d.level) - d.price == TARGET_APPEAL,
                        -d.price,
                    ),
                )
        elif t.action == "DISTRIBUTION":
            raises = [d for d in legal if isinstance(d, decisions.RaiseDistribution)]
            if raises:
                return min(
                    raises, key=lambda d: appeal(GOODS.index(d.good), p.factories[GOODS.index(d.good)])
                )
        elif t.action == "QUALITY":
            return first(decisions.RaiseQuality) or decisions.FinishMainAction()
        elif t.action == "MACHINERY":
            return first(decisions.PlaceMachine) or decisions.FinishMainAction()
        elif t.action == "STOCK_EXCHANGE":
            contract = _contract(s, seat, legal)
            return (
                first(decisions.RepayLoans)
                or contract
                or (_max_buy(legal) if p.cash > 30 else None)
                or decisions.FinishMainAction()
            )
        elif t.action == "SHIP":
            return first(decisions.DeliverContract) or decisions.FinishMainAction()
        elif t.action == "PRODUCTION":
            produce = [d for d in legal if isinstance(d, decisions.ProduceGoods) and not d.extra_shift]
            if produce:
                return max(produce, key=lambda d: d.rows)
        if decisions.FinishMainAction() in legal:
            return decisions.FinishMainAction()
    if not t.took_special and t.stage != "special_done":
        chosen = _special(s, seat, legal)
        if chosen is not None:
            return chosen
    for d in legal:  # additional action: prices that leave a healthy appeal
        if isinstance(d, decisions.AdjustPrice):
            g = GOODS.index(d.good)
            f = p.factories[g]
            if f is not None and f.price != _good_price(s, seat, g) and d.price == _good_price(s, seat, g):
                return d
    return decisions.EndTurn()


TILE_WISH = (
    "FOREMAN",
    "WORKSHOP",
    "OFFICE",
    "ACCOUNTANT",
    "ADMINISTRATOR",
    "PATRON_FOOD",
    "PATRON_CLOTHES",
    "PATRON_CUTLERY",
    "PATRON_LAMPS",
    "ENGINEERING_WORKS",
    "SMALL_WAREHOUSE",
    "AGENT_IN_THE_COLONIES",
)


def _special(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision | None:
    """A ship first (contracts pay well), then useful tiles, then grey markers."""
    p = s.players[seat]
    if not p.ships:
        ships = [d for d in legal if isinstance(d, decisions.TakeShip) and d.inventor is None]
        if ships:
            return min(ships, key=lambda d: C.ship(d.ship).crew)
    if len(p.tiles) < 3:
        for wish in TILE_WISH:
            tiles = [
                d
                for d in legal
                if isinstance(d, decisions.TakeTile) and d.tile == wish and d.give_back is None
            ]
            if wish.startswith("PATRON_") and p.factories[GOODS.index(wish[7:])] is None:
                continue
            if tiles:
                return max(tiles, key=lambda d: _serves(s, seat, d))
    greys = [d for d in legal if isinstance(d, decisions.TakeGreyMarker) and d.inventor is None]
    for action in ("PRODUCTION", "MACHINERY", "QUALITY", "DISTRIBUTION"):
        for d in greys:
            if d.marker.endswith(action):
                return d
    return None


def _serves(s: State, seat: int, d: decisions.TakeTile) -> int:
    """How much the foreman (workers) or the workshop (machines) saves in the factory it is
    assigned to; 0 for other tiles (one candidate each)."""
    if d.assign is None:
        return 0
    f = s.players[seat].factories[GOODS.index(d.assign)]
    if f is None:
        return -1
    if d.tile == "FOREMAN":
        return min(4, sum(r.workers for r in f.rows))
    return sum(r.machines for r in f.rows) * 4 + sum(r.workers for r in f.rows)


def _store(legal: tuple[Decision, ...]) -> Decision:
    """A storage conflict: keep the most valuable goods (fixed warehouse prices); on a tie the
    engine's automatic fill, which comes first."""
    stores = [d for d in legal if isinstance(d, decisions.StoreGoods)]
    return max(
        stores,
        key=lambda d: sum(C.fixed_goods_prices[g] * (d.large[g] + d.small[g]) for g in range(4)),
    )


def _contract(s: State, seat: int, legal: tuple[Decision, ...]) -> Decision | None:
    """With a ship and no open contract: a small contract for a good the company makes."""
    p = s.players[seat]
    if not p.ships or any(p.contracts):
        return None
    cap = sum(C.ship(x).capacity for x in p.ships)
    options = [
        d
        for d in legal
        if isinstance(d, decisions.PlaceContract)
        and d.space <= cap
        and p.factories[GOODS.index(d.good)] is not None
    ]
    return min(options, key=lambda d: (d.space, -C.base_quality(GOODS.index(d.good), 1))) if options else None


def _max_repay(legal: tuple[Decision, ...]) -> Decision | None:
    repays = [d for d in legal if isinstance(d, decisions.RepayLoans)]
    return max(repays, key=lambda d: d.count) if repays else None


def _max_buy(legal: tuple[Decision, ...]) -> Decision | None:
    buys = [d for d in legal if isinstance(d, decisions.BuyShares)]
    return max(buys, key=lambda d: d.count) if buys else None


__all__ = ["actions", "choose", "output", "wage"]
