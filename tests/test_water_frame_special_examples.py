"""Water Frame's worked examples and derived tests with the special markers (spec §8).

The companion of ``tests/test_water_frame_examples.py``: the examples that need
development tiles, grey advanced action markers, ships, East India contracts or the
production action. Positions are built with ``tests/wf_positions.py``; tiles, grey
markers and ships are handed out with ``with_tiles``, ``with_grey`` and ``with_ships``
(a ship's crew comes out of the job market, so the 80 workers stay conserved).
Tests marked "[uses DEFAULT]" rest on an UNKNOWN value of spec §7 and read it from
the components (``ledger.games.water_frame.components.load()``).

WF-EX-36 (distribution budget left over for price adjustments) needs no special
marker and is tested in ``test_water_frame_examples.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ledger.engine import Effect
from ledger.games.water_frame import bot
from ledger.games.water_frame.conservation import workers_in_play
from ledger.games.water_frame.decisions import (
    AdjustPrice,
    BuildFactory,
    BuyShares,
    ChooseStartPlayer,
    CloseLastRow,
    DeliverContract,
    EndTurn,
    FinishMainAction,
    ModernizeFactory,
    PlaceContract,
    PlaceMachine,
    PlaceMarker,
    ProduceGoods,
    RaiseDistribution,
    ReleaseShip,
    ShipContract,
    StoreGoods,
    TakeShip,
    TakeTile,
    UsePatent,
)
from ledger.games.water_frame.economy import store
from ledger.games.water_frame.meta import WaterFrameOptions
from ledger.games.water_frame.setup import box_tiles
from ledger.games.water_frame.state import Factory, Phase, Row, State
from tests import wf_positions as pos
from tests.wf_positions import CLOTHES, CUTLERY, FOOD, LAMPS, C, E


def fac(s: State, seat: int, good: int) -> Factory:
    f = s.players[seat].factories[good]
    assert f is not None
    return f


def first_decade_of_level(level: int) -> int:
    return min(d for d, lvl in C.level_of_decade.items() if lvl >= level)


# --- 8.3 factory action: developer and inventor ----------------------------------------------------


def test_ex15_the_developer_takes_5_pounds_once_off_a_two_level_modernization_so_it_costs_17() -> None:
    """[uses DEFAULT] 1790 is the first decade of level III (C.level_of_decade)."""
    s = replace(pos.new_1770(3), decade=first_decade_of_level(3))
    s = pos.with_tiles(s, 0, "DEVELOPER")
    developers_on_display = s.display.count("DEVELOPER")
    a0 = pos.appeal_of(s, 0, FOOD)
    s, _ = pos.start_turn(s, 0, "FACTORY", 2)
    c0 = pos.cash(s, 0)
    s, fx1 = pos.play(s, 0, ModernizeFactory(good="FOOD", developer=True))
    pos.rejected(s, 0, ModernizeFactory(good="FOOD", developer=True), "developer_once")
    s, fx2 = pos.play(s, 0, ModernizeFactory(good="FOOD"))
    assert [e.cost for e in pos.of_kind([*fx1, *fx2], "factory_modernized")] == [10 - 5, 12]
    assert fac(s, 0, FOOD).level == 3
    assert pos.appeal_of(s, 0, FOOD) == a0 + 4
    s, fx = pos.play(s, 0, FinishMainAction())
    assert pos.one(fx, "money_changed", seat=0, reason="main_action").amount == -17
    assert pos.cash(s, 0) == c0 - 17
    assert pos.one(fx, "tile_returned", seat=0).tile == "DEVELOPER"
    assert "DEVELOPER" not in s.players[0].tiles
    assert s.display.count("DEVELOPER") == developers_on_display + 1


@pytest.mark.parametrize(("use", "fee"), [("return", 0), ("pay", C.inventor_fee)])
def test_ex16_in_1780_the_developer_builds_lamps_ii_for_9_and_the_inventor_step_to_iii_costs_the_full_17(
    use: str, fee: int
) -> None:
    """[uses DEFAULT] the inventor's fee when it is kept (U-26, C.inventor_fee)."""
    s = replace(pos.new_1770(3), decade=1780)
    assert C.level_of_decade[1780] == 2  # STATED
    s = pos.with_tiles(s, 0, "DEVELOPER", "INVENTOR")
    assert s.players[0].factories[LAMPS] is None
    s, _ = pos.start_turn(s, 0, "FACTORY", 2)
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, BuildFactory(good="LAMPS", level=2, price=10, developer=True))
    assert pos.one(fx, "factory_built").cost == 14 - 5 == 9
    pos.rejected(
        s, 0, ModernizeFactory(good="LAMPS"), "level_not_available"
    )  # beyond: only with the inventor
    pos.rejected(s, 0, ModernizeFactory(good="LAMPS", developer=True, inventor=use), "developer_not_beyond")  # type: ignore[arg-type]
    s, fx = pos.play(s, 0, ModernizeFactory(good="LAMPS", inventor=use))  # type: ignore[arg-type]
    assert pos.one(fx, "factory_modernized").cost == 17
    assert pos.one(fx, "inventor_used").paid == fee
    assert fac(s, 0, LAMPS).level == 3
    s, fx = pos.play(s, 0, FinishMainAction())
    assert pos.one(fx, "money_changed", seat=0, reason="main_action").amount == -(9 + 17 + fee)
    assert pos.cash(s, 0) == c0 - 26 - fee
    tiles = s.players[0].tiles
    assert "DEVELOPER" not in tiles
    assert ("INVENTOR" in tiles) is (use == "pay")


# --- 8.4 machinery and distribution with tiles and grey markers --------------------------------------


def test_ex20_the_workshop_adds_3_pounds_so_own_machinery_on_the_10_space_buys_three_machines() -> None:
    """[uses DEFAULT] lamps rows 1-2 have 2 flexible slots each (C.row_slots)."""
    s = pos.with_factory(pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS))
    s = pos.with_tiles(s, 0, "WORKSHOP", assigned={"WORKSHOP": LAMPS})
    c0, fired0 = pos.cash(s, 0), s.fired
    s, fx = pos.start_turn(s, 0, "MACHINERY", 10)
    assert pos.one(fx, "marker_placed").cost == 10
    assert (pos.turn_view(s)["paid"], pos.turn_view(s)["budget"]) == (10, 13)
    for row in (1, 1, 2):
        s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=row))
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=2), "no_more_machines")
    assert fac(s, 0, LAMPS).rows[:2] == (Row(1, 2), Row(2, 1))
    assert s.fired == fired0 + 3
    s, _ = pos.play(s, 0, EndTurn())
    assert pos.cash(s, 0) == c0 - 10  # the £3 are free
    assert "WORKSHOP" in s.players[0].tiles


@pytest.mark.parametrize(("shade", "space"), [("LIGHT", 10), ("DARK", 6)])
def test_ex21_light_grey_machinery_on_10_and_dark_grey_machinery_on_6_each_buy_three_machines(
    shade: str, space: int
) -> None:
    """[uses DEFAULT] lamps rows 1-2 have 2 flexible slots each (C.row_slots)."""
    s = pos.with_factory(pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS))
    marker = PlaceMarker(action="MACHINERY", space=space, shade=shade)  # type: ignore[arg-type]
    pos.rejected(pos.give_turn(s, 0), 0, marker, "marker_not_owned")
    s = pos.give_turn(pos.with_grey(s, 0, f"{shade}:MACHINERY"), 0)
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, marker)
    assert pos.one(fx, "marker_placed").cost == space
    for row in (1, 1, 2):
        s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=row))
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=2), "no_more_machines")
    assert fac(s, 0, LAMPS).rows[:2] == (Row(1, 2), Row(2, 1))
    s, _ = pos.play(s, 0, EndTurn())
    assert pos.cash(s, 0) == c0 - space
    # the own marker on the same space buys fewer
    s, _ = pos.start_turn(
        pos.with_factory(pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS)), 0, "MACHINERY", space
    )
    s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=1))
    s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=1))
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=2), "no_more_machines")


def test_ex24_the_patent_lifts_a_light_grey_distribution_budget_on_the_8_space_from_7_to_9_and_is_kept() -> (
    None
):
    s = pos.scene()
    s = pos.with_factories(s, 0, {FOOD: pos.factory(FOOD), CLOTHES: pos.factory(CLOTHES)})
    s = pos.with_tiles(pos.with_grey(s, 0, "LIGHT:DISTRIBUTION"), 0, "PATENT")
    light_on_8 = PlaceMarker(action="DISTRIBUTION", space=8, shade="LIGHT")
    raises = ["FOOD", "FOOD", "FOOD", "CLOTHES"]  # £1 + £2 + £3 + £1 = £7

    # without the patent: min(8, 7) = 7
    t, _ = pos.play(pos.give_turn(s, 0), 0, light_on_8)
    assert (pos.turn_view(t)["paid"], pos.turn_view(t)["budget"]) == (8, 7)
    for good in raises:
        t, _ = pos.play(t, 0, RaiseDistribution(good=good))  # type: ignore[arg-type]
    pos.rejected(t, 0, RaiseDistribution(good="CLOTHES"), "distribution_budget")  # 1 -> 2: £2, none left

    # option A: £2 beyond the marker's limit, the tile stays
    t, _ = pos.play(pos.give_turn(s, 0), 0, light_on_8)
    c0 = pos.cash(t, 0)
    t, fx = pos.play(t, 0, UsePatent(option="extra_budget"))
    assert pos.turn_view(t)["budget"] == 9
    pos.rejected(t, 0, UsePatent(option="extra_budget"), "patent_once")
    costs = []
    for good in [*raises, "CLOTHES"]:
        t, fx = pos.play(t, 0, RaiseDistribution(good=good))  # type: ignore[arg-type]
        costs.append(pos.one(fx, "distribution_raised").cost)
    assert costs == [1, 2, 3, 1, 2] and sum(costs) == 9
    pos.rejected(t, 0, RaiseDistribution(good="CLOTHES"), "distribution_budget")
    t, _ = pos.play(t, 0, EndTurn())
    assert (fac(t, 0, FOOD).distribution, fac(t, 0, CLOTHES).distribution) == (3, 2)
    assert pos.cash(t, 0) == c0
    assert "PATENT" in t.players[0].tiles

    # option B (spec §6.5): return the patent for two free +1 raises besides the bought ones
    t, _ = pos.play(pos.give_turn(s, 0), 0, PlaceMarker(action="DISTRIBUTION", space=2))
    t, fx = pos.play(t, 0, UsePatent(option="free_raises"))
    assert pos.one(fx, "tile_returned", seat=0).tile == "PATENT"
    for _ in range(2):
        t, fx = pos.play(t, 0, RaiseDistribution(good="FOOD"))
        assert pos.one(fx, "distribution_raised").cost == 0
    t, fx = pos.play(t, 0, RaiseDistribution(good="CLOTHES"))  # bought: £1 of £2
    assert pos.one(fx, "distribution_raised").cost == 1
    pos.rejected(t, 0, RaiseDistribution(good="CLOTHES"), "distribution_budget")
    assert (fac(t, 0, FOOD).distribution, fac(t, 0, CLOTHES).distribution) == (2, 1)
    assert "PATENT" not in t.players[0].tiles and "PATENT" in t.display


# --- 8.5 contracts and ships ------------------------------------------------------------------------


def test_ex27_a_stock_exchange_places_food_on_6_and_moves_cutlery_from_2_up_to_4_but_never_down() -> None:
    s = pos.with_player(pos.new_1770(3), 0, contracts=pos.contracts(CUTLERY=2))
    s, _ = pos.start_turn(s, 0, "STOCK_EXCHANGE", 2)
    c0 = pos.cash(s, 0)
    s, fx1 = pos.play(s, 0, PlaceContract(good="FOOD", space=6))
    s, fx2 = pos.play(s, 0, PlaceContract(good="CUTLERY", space=4))
    assert [(e.good, e.space) for e in pos.of_kind([*fx1, *fx2], "contract_placed")] == [
        ("FOOD", 6),
        ("CUTLERY", 4),
    ]
    assert s.players[0].contracts == pos.contracts(FOOD=6, CUTLERY=4)
    assert E.view(s, None)["players"][0]["contracts"] == {"FOOD": 6, "CUTLERY": 4}
    assert pos.cash(s, 0) == c0  # contracts are free
    pos.rejected(s, 0, PlaceContract(good="CUTLERY", space=2), "contract_only_up")
    pos.rejected(s, 0, PlaceContract(good="CUTLERY", space=4), "contract_only_up")
    pos.rejected(s, 0, PlaceContract(good="CLOTHES", space=12), "no_such_space")  # beyond the 10 space
    pos.rejected(s, 0, PlaceContract(good="CLOTHES", space=5), "no_such_space")
    # two players use the back of the harbour mat: spaces 2 and 4 only
    s, _ = pos.start_turn(pos.new_1770(2), 0, "STOCK_EXCHANGE", 2)
    pos.rejected(s, 0, PlaceContract(good="FOOD", space=6), "no_such_space")
    s, _ = pos.play(s, 0, PlaceContract(good="FOOD", space=4))
    assert s.players[0].contracts == pos.contracts(FOOD=4)


def harbour_scene(
    ships: tuple[str, ...],
    stock: dict[int, int],
    on_track: dict[str, int],
    tiles: tuple[str, ...] = (),
    lamps: Factory | None = None,
) -> State:
    """M (seat 0) in the action phase, nothing placed yet: a level-II lamps and a level-I clothes
    factory, warehouse columns open for clothes and lamps, the given ships, stock and contracts."""
    s = pos.scene()
    s = pos.with_factories(s, 0, {LAMPS: lamps or pos.factory(LAMPS, level=2), CLOTHES: pos.factory(CLOTHES)})
    s = pos.with_ships(s, 0, *ships)
    s = pos.with_player(s, 0, wh_cols=(False, True, False, True), contracts=pos.contracts(**on_track))
    for good, n in stock.items():
        s = pos.with_stock(s, 0, good, n)
    if tiles:
        s = pos.with_tiles(s, 0, *tiles)
    return pos.give_turn(s, 0)


def ship_on(space: int, ship: str, accountant: int = 0) -> PlaceMarker:
    return PlaceMarker(action="SHIP", space=space, ship=ship, accountant=accountant)


def test_ex28_a_capacity_2_ship_goes_on_any_space_a_capacity_6_ship_only_on_6_8_or_10_and_shipping_costs_a_share_space() -> (
    None
):
    base = harbour_scene(("SHIP-2A", "SHIP-6A"), {CLOTHES: 2}, {"CLOTHES": 2})
    for space in C.admin_spaces:
        s, fx = pos.play(base, 0, ship_on(space, "SHIP-2A"))
        assert pos.one(fx, "marker_placed").cost == space
        assert pos.turn_view(s)["budget"] == 2
    for space in (2, 4):
        pos.rejected(base, 0, ship_on(space, "SHIP-6A"), "ship_too_cheap")
    for space in (6, 8, 10):
        s, fx = pos.play(base, 0, ship_on(space, "SHIP-6A"))
        assert pos.one(fx, "marker_placed").cost == space
    pos.rejected(base, 0, ship_on(6, "SHIP-4A"), "no_such_ship")

    s, _ = pos.play(base, 0, ship_on(2, "SHIP-2A"))
    s, fx = pos.play(s, 0, DeliverContract(good="CLOTHES"))
    moved = pos.one(fx, "share_price_changed", company=0)
    assert (moved.space_from, moved.space_to, moved.cause) == (10, 9, "ship")
    assert s.players[0].share_space == 9


def test_ex29_with_the_accountant_a_capacity_6_ship_may_sit_on_the_4_space_paying_6_but_not_on_the_6_space_paying_4() -> (
    None
):
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4}, {"LAMPS": 4}, tiles=("ACCOUNTANT",))
    pos.rejected(s, 0, ship_on(6, "SHIP-6A", accountant=-2), "ship_too_cheap")  # even for only 4 lamps
    pos.rejected(s, 0, ship_on(4, "SHIP-6A"), "ship_too_cheap")
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, ship_on(4, "SHIP-6A", accountant=2))
    placed = pos.one(fx, "marker_placed")
    assert (placed.space, placed.cost) == (4, 6)
    assert pos.cash(s, 0) == c0 - 6
    s, fx = pos.play(s, 0, DeliverContract(good="LAMPS"))
    assert pos.one(fx, "contract_delivered").goods == 4
    # without the accountant the administrative cost cannot be changed
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4}, {"LAMPS": 4})
    pos.rejected(s, 0, ship_on(4, "SHIP-6A", accountant=2), "no_accountant")


def test_ex30_a_capacity_6_ship_delivers_a_lamps_contract_of_4_for_56_and_2_capacity_stays_unused() -> None:
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4, CLOTHES: 4}, {"LAMPS": 4, "CLOTHES": 4})
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, DeliverContract(good="LAMPS"))
    delivered = pos.one(fx, "contract_delivered")
    assert (delivered.good, delivered.goods, delivered.income) == ("LAMPS", 4, 56)
    p = s.players[0]
    assert (p.stock[LAMPS], p.contracts[LAMPS]) == (0, 0)  # the marker goes back to M
    assert pos.cash(s, 0) == c0 + 56
    assert p.share_space == 9
    pos.rejected(s, 0, DeliverContract(good="CLOTHES"), "ship_too_small")  # only 2 capacity left
    assert s.players[0].contracts[CLOTHES] == 4


def test_ex31_a_lamps_contract_on_6_is_neither_delivered_in_part_nor_with_a_capacity_4_ship() -> None:
    # 4 lamps on a capacity-6 ship: no partial delivery
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4}, {"LAMPS": 6})
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    pos.rejected(s, 0, DeliverContract(good="LAMPS"), "not_enough_goods")
    # 6 lamps (5 in the large warehouse, 1 on the small one) but only a capacity-4 ship in this
    # action; the second ship at the pier does not help, nor does paying £10
    s = harbour_scene(("SHIP-2A", "SHIP-4A"), {LAMPS: 5}, {"LAMPS": 6}, tiles=("SMALL_WAREHOUSE",))
    s = pos.with_player(s, 0, small_stock=(0, 0, 0, 1))
    s, _ = pos.play(s, 0, ship_on(10, "SHIP-4A"))
    pos.rejected(s, 0, DeliverContract(good="LAMPS"), "ship_too_small")
    # a capacity-6 ship and 6 lamps
    s = harbour_scene(("SHIP-6A",), {LAMPS: 5}, {"LAMPS": 6}, tiles=("SMALL_WAREHOUSE",))
    s = pos.with_player(s, 0, small_stock=(0, 0, 0, 1))
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    s, fx = pos.play(s, 0, DeliverContract(good="LAMPS"))
    assert (pos.one(fx, "contract_delivered").goods, pos.one(fx, "contract_delivered").income) == (6, 6 * 14)
    assert (s.players[0].stock[LAMPS], s.players[0].small_stock[LAMPS]) == (0, 0)


def test_ex32_four_lamps_from_a_level_ii_factory_earn_4_times_14_whatever_its_price_quality_and_distribution() -> (
    None
):
    lamps = pos.factory(LAMPS, level=2, quality=2, distribution=1, price=9)  # quality 16, appeal 8
    s = harbour_scene(("SHIP-4A",), {LAMPS: 4}, {"LAMPS": 4}, lamps=lamps)
    s, _ = pos.play(s, 0, ship_on(4, "SHIP-4A"))
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, DeliverContract(good="LAMPS"))
    assert C.base_quality(LAMPS, 2) == 14  # STATED
    assert pos.one(fx, "contract_delivered").income == 4 * 14 == 56
    assert pos.one(fx, "money_changed", seat=0, reason="contract").amount == 56
    assert pos.cash(s, 0) == c0 + 56


def test_ex33_one_capacity_6_ship_fulfils_lamps_4_and_clothes_2_for_74_and_one_share_space() -> None:
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4, CLOTHES: 2}, {"LAMPS": 4, "CLOTHES": 2})
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    c0 = pos.cash(s, 0)
    s, fx1 = pos.play(s, 0, DeliverContract(good="LAMPS"))
    s, fx2 = pos.play(s, 0, DeliverContract(good="CLOTHES"))
    fx = [*fx1, *fx2]
    assert [(e.good, e.goods, e.income) for e in pos.of_kind(fx, "contract_delivered")] == [
        ("LAMPS", 4, 56),
        ("CLOTHES", 2, 18),
    ]
    assert pos.cash(s, 0) == c0 + 74
    assert len(pos.of_kind(fx, "share_price_changed", company=0)) == 1
    assert s.players[0].share_space == 9
    assert s.players[0].contracts == (0, 0, 0, 0)
    assert s.players[0].stock == (0, 0, 0, 0)


def test_ex34_with_the_office_the_lamps_contract_of_4_earns_56_plus_5_is_61_once_per_ship_transport() -> None:
    s = harbour_scene(("SHIP-6A",), {LAMPS: 4, CLOTHES: 2}, {"LAMPS": 4, "CLOTHES": 2}, tiles=("OFFICE",))
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, DeliverContract(good="LAMPS"))
    assert pos.one(fx, "money_changed", seat=0, reason="office").amount == 5
    assert pos.cash(s, 0) == c0 + 56 + 5 == c0 + 61
    s, fx = pos.play(s, 0, DeliverContract(good="CLOTHES"))  # the same transport: no second £5
    assert pos.of_kind(fx, "money_changed", reason="office") == []
    assert pos.cash(s, 0) == c0 + 61 + 18


def test_ex35_light_grey_production_in_row_one_of_food_iii_stores_2_food_for_one_wage_and_1_pound() -> None:
    """[uses DEFAULT] food row 1 = 1 worker-only + 1 flexible slot (C.row_slots); the wage comes
    from the default job market (C.jm_wage_of_row)."""
    s = pos.scene()
    food = pos.factory(FOOD, level=3, rows=[(1, 1), 2], distribution=1, price=12)  # appeal 1
    s = pos.with_factories(s, 0, {FOOD: food, CLOTHES: pos.factory(CLOTHES)})
    s = pos.with_player(s, 0, wh_cols=(True, False, False, False), contracts=pos.contracts(FOOD=2))
    s = pos.give_turn(pos.with_grey(s, 0, "LIGHT:PRODUCTION"), 0)
    w = E.view(s, None)["job_market"]["wage"]
    s, _ = pos.play(s, 0, PlaceMarker(action="PRODUCTION", space=2, shade="LIGHT"))
    c0 = pos.cash(s, 0)
    pos.rejected(s, 0, ProduceGoods(good="FOOD", rows=3), "too_many_rows")  # light grey: rows 1-2
    s, fx = pos.play(s, 0, ProduceGoods(good="FOOD", rows=1))
    made = pos.one(fx, "goods_made_by_action")
    assert (made.produced, made.stored, made.lost) == (2, 2, 0)
    assert s.players[0].stock[FOOD] == 2
    pos.rejected(s, 0, ProduceGoods(good="FOOD", rows=1), "produced_already")
    s, fx = pos.play(s, 0, FinishMainAction())
    assert pos.one(fx, "money_changed", seat=0, reason="main_action").amount == -(w + 1)
    assert pos.cash(s, 0) == c0 - w - 1
    pos.rejected(s, 0, AdjustPrice(good="CLOTHES", price=8), "price_not_adjustable")  # only the producer
    s, fx = pos.play(s, 0, AdjustPrice(good="FOOD", price=13))
    s, fx = pos.play(s, 0, EndTurn())
    p = s.players[0]
    assert (fac(s, 0, FOOD).distribution, p.contracts[FOOD], p.share_space, p.stock[FOOD]) == (1, 2, 10, 2)
    assert not {"sale_started", "contract_delivered", "distribution_decayed"} & set(pos.kinds(fx))


def test_ex37_taking_the_broker_as_a_fifth_tile_returns_the_small_warehouse_whose_goods_move_to_the_large_one_as_room_allows() -> (
    None
):
    s = pos.new_1770(3)
    s = pos.with_tiles(s, 0, "SMALL_WAREHOUSE", "OFFICE", "PATENT", "ENGINEER")
    s = pos.on_display(s, "BROKER")
    s = pos.with_player(
        s, 0, wh_cols=(True, False, False, False), stock=(4, 0, 0, 0), small_stock=(2, 0, 1, 0)
    )
    s, _ = pos.start_turn(s, 0, "WORKERS", 2)
    pos.rejected(s, 0, TakeTile(tile="BROKER"), "give_back_a_tile")
    pos.rejected(s, 0, TakeTile(tile="BROKER", give_back="BROKER"), "give_back_a_tile")
    brokers = s.display.count("BROKER")
    s, fx = pos.play(s, 0, TakeTile(tile="BROKER", give_back="SMALL_WAREHOUSE"))
    p = s.players[0]
    assert sorted(p.tiles) == ["BROKER", "ENGINEER", "OFFICE", "PATENT"]
    returned = pos.one(fx, "tile_returned", seat=0)
    assert (returned.tile, returned.goods_lost) == ("SMALL_WAREHOUSE", 1 + 1)  # 1 food, 1 cutlery
    assert (p.stock, p.small_stock) == ((5, 0, 0, 0), (0, 0, 0, 0))
    assert "SMALL_WAREHOUSE" in s.display and s.display.count("BROKER") == brokers - 1


def test_ex38_swapping_the_capacity_2_ship_for_a_capacity_6_ship_hires_two_more_crew_for_ships_4_and_6() -> (
    None
):
    """[uses DEFAULT] the capacity-6 ships lie in row III, open from 1790 (C.ships, C.level_of_decade)."""
    six = C.ship("SHIP-6A")
    assert (six.capacity, six.crew, C.ship("SHIP-4A").crew, C.ship("SHIP-2A").crew) == (6, 2, 1, 0)
    s = replace(pos.new_1770(3), decade=first_decade_of_level(six.row))
    s = pos.with_ships(s, 0, "SHIP-2A", "SHIP-4A")
    assert workers_in_play(s) == C.workers_total
    one_ship, _ = pos.start_turn(pos.with_ships(s, 0, "SHIP-4A"), 0, "WORKERS", 2)
    pos.rejected(one_ship, 0, TakeShip(ship="SHIP-6A", give_back="SHIP-4A"), "pier_free")  # a pier is free
    s, _ = pos.start_turn(s, 0, "WORKERS", 2)
    e0 = s.jm_empty
    pos.rejected(s, 0, TakeShip(ship="SHIP-6A"), "return_a_ship")
    pos.rejected(s, 0, TakeShip(ship="SHIP-2B", give_back="SHIP-4A"), "only_larger")
    s, fx = pos.play(s, 0, TakeShip(ship="SHIP-6A", give_back="SHIP-2A"))
    taken = pos.one(fx, "ship_taken", seat=0)
    assert (taken.crew_hired, taken.returned) == (2, "SHIP-2A")
    assert sorted(s.players[0].ships) == ["SHIP-4A", "SHIP-6A"]
    assert s.jm_empty == e0 + 2
    assert sum(x["crew"] for x in E.view(s, None)["players"][0]["ships"]) == 1 + 2
    assert "SHIP-2A" in s.mat_ships[0] and "SHIP-6A" not in s.mat_ships[2]
    assert workers_in_play(s) == C.workers_total


# --- 8.6 production phase -------------------------------------------------------------------------------


def test_ex45_the_school_closes_harolds_third_cutlery_row_so_he_makes_3_instead_of_5_and_pays_5_workers() -> (
    None
):
    """[uses DEFAULT] cutlery row 3 holds 3 workers, level II rows yield 1/2/2 and cutlery level II
    costs 13 (C.row_slots, C.row_output, C.factory_cost)."""
    s = pos.scene()
    cutlery = pos.factory(
        CUTLERY, level=2, rows=pos.full_rows(CUTLERY, 3), price=C.base_quality(CUTLERY, 2) - 3
    )
    assert C.slots(CUTLERY, 0) + C.slots(CUTLERY, 1) == 5  # STATED
    s = pos.with_tiles(pos.with_factory(s, 1, CUTLERY, cutlery), 1, "SCHOOL")
    s = replace(s, jm_empty=pos.jm_empty_for(CUTLERY, demand=6))
    assert pos.appeal_of(s, 1, CUTLERY) == 3
    w = pos.wage_at(s.jm_empty)
    s, _ = pos.produce(s, CUTLERY)
    assert (s.phase, s.awaiting) == (Phase.SCHOOL, (1,))

    closed, fx = pos.play(s, 1, CloseLastRow(close=True))
    assert pos.one(fx, "row_closed_by_school", seat=1).row == 3
    assert pos.one(fx, "goods_produced", seat=1).count == 3
    assert pos.one(fx, "goods_sold", seat=1).from_production == 3
    paid = pos.one(fx, "wages_paid", seat=1)
    assert (paid.workers, paid.amount) == (5, 5 * w)
    assert fac(closed, 1, CUTLERY).rows[2].workers == C.slots(CUTLERY, 2)  # the row keeps its workers

    kept, fx = pos.play(s, 1, CloseLastRow(close=False))
    assert pos.one(fx, "goods_produced", seat=1).count == 5
    assert pos.one(fx, "goods_sold", seat=1).from_production == 3
    assert pos.one(fx, "wages_paid", seat=1).workers == 5 + C.slots(CUTLERY, 2)


@pytest.mark.parametrize(
    ("tiles", "serves", "amount"),
    [(("FOREMAN",), LAMPS, 19), (("FOREMAN", "WORKSHOP"), LAMPS, 17), (("FOREMAN", "WORKSHOP"), FOOD, 27)],
    ids=["foreman", "foreman-and-workshop", "both-serving-another-factory"],
)
def test_ex48_the_foreman_cuts_the_lamps_wages_from_27_to_19_and_with_the_workshop_to_17(
    tiles: tuple[str, ...], serves: int, amount: int
) -> None:
    """[uses DEFAULT] a job market whose lowest empty row pays £4 (C.jm_wage_of_row)."""
    s = pos.scene()
    lamps = pos.factory(LAMPS, rows=[(2, 1), (2, 1), (2, 1)])  # appeal 0: no sale
    s = pos.with_factories(s, 0, {LAMPS: lamps, FOOD: pos.factory(FOOD)})
    s = pos.with_tiles(s, 0, *tiles, assigned=dict.fromkeys(tiles, serves))
    s = replace(s, jm_empty=pos.jm_empty_for(LAMPS, wage=4))
    c0 = pos.cash(s, 0)
    s, fx = pos.produce(s, LAMPS)
    paid = pos.one(fx, "wages_paid", seat=0)
    assert (paid.workers, paid.machines, paid.wage, paid.amount) == (6, 3, 4, amount)
    assert pos.cash(s, 0) == c0 - amount


def clothes_contract_scene(ships: tuple[str, ...], price: int, stock: int, agent: bool = False) -> State:
    """M (seat 0): a level-I clothes factory (3 produced), a clothes contract on 6, the ships, a
    clothes column with ``stock`` clothes; the clothes production phase runs up to the shipment."""
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, price=price))
    s = pos.with_ships(s, 0, *ships)
    s = pos.with_player(s, 0, wh_cols=(False, True, False, False), contracts=pos.contracts(CLOTHES=6))
    s = pos.with_stock(s, 0, CLOTHES, stock)
    if agent:
        s = pos.with_tiles(s, 0, "AGENT_IN_THE_COLONIES")
    s = replace(s, jm_empty=pos.jm_empty_for(CLOTHES, demand=5))
    s, _ = pos.produce(s, CLOTHES)
    return s


def test_ex49_shipping_6_clothes_with_ships_of_2_and_4_in_the_production_phase_pays_54_and_costs_2_spaces_after_the_rise() -> (
    None
):
    """[uses DEFAULT] the demand of 5 comes from the job-market layout (C.jm_numbered)."""
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, price=8))  # appeal 1: sells 1 of 3
    s = pos.with_ships(s, 0, "SHIP-2A", "SHIP-4A")
    s = pos.with_player(s, 0, wh_cols=(False, True, False, False), contracts=pos.contracts(CLOTHES=6))
    s = pos.with_stock(s, 0, CLOTHES, 4)
    s = replace(s, jm_empty=pos.jm_empty_for(CLOTHES, demand=5))
    s, fx = pos.produce(s, CLOTHES)
    assert (s.phase, s.awaiting) == (Phase.SHIPPING, (0,))
    assert pos.one(fx, "goods_sold", seat=0).from_production == 1
    assert s.players[0].share_space == 10 + 1 + 1 + 1  # sold 1, single best appeal, most goods
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, ShipContract(fulfil=True))
    delivered = pos.one(fx, "contract_delivered", seat=0)
    assert (delivered.goods, delivered.income, delivered.ships_used) == (6, 6 * 9, 2)
    assert pos.one(fx, "money_changed", seat=0, reason="contract").amount == 54
    assert pos.cash(s, 0) == c0 + 54
    moved = pos.one(fx, "share_price_changed", company=0)
    assert (moved.space_from, moved.space_to, moved.cause) == (13, 11, "ship")
    p = s.players[0]
    assert (p.contracts[CLOTHES], p.stock[CLOTHES], p.share_space) == (0, 0, 11)
    assert pos.of_kind(fx, "goods_stored", seat=0) == []  # the 2 surplus clothes were shipped
    # one capacity-4 ship cannot carry 6
    s = clothes_contract_scene(("SHIP-4A",), price=8, stock=4)
    pos.rejected(s, 0, ShipContract(fulfil=True), "ships_too_small")


def test_ex50_the_agent_in_the_colonies_delivers_a_contract_on_6_as_5_or_as_7_goods_paid_per_good() -> None:
    """Production phase (III.4): 3 clothes made and unsold (appeal 0) plus 4 in the warehouse."""
    s = clothes_contract_scene(("SHIP-4A", "SHIP-4B"), price=9, stock=4, agent=True)
    assert (s.phase, s.awaiting) == (Phase.SHIPPING, (0,))
    seven, fx = pos.play(s, 0, ShipContract(fulfil=True, agent=1))
    assert (pos.one(fx, "contract_delivered").goods, pos.one(fx, "contract_delivered").income) == (7, 7 * 9)
    assert seven.players[0].stock[CLOTHES] == 0
    five, fx = pos.play(s, 0, ShipContract(fulfil=True, agent=-1))
    assert (pos.one(fx, "contract_delivered").goods, pos.one(fx, "contract_delivered").income) == (5, 5 * 9)
    assert five.players[0].stock[CLOTHES] == 2
    # capacity 2 + 4 = 6 covers 5 but not 7
    s = clothes_contract_scene(("SHIP-2A", "SHIP-4A"), price=9, stock=4, agent=True)
    pos.rejected(s, 0, ShipContract(fulfil=True, agent=1), "ships_too_small")
    five, fx = pos.play(s, 0, ShipContract(fulfil=True, agent=-1))
    assert pos.one(fx, "contract_delivered").goods == 5
    # without the agent the contract is 6
    s = clothes_contract_scene(("SHIP-4A", "SHIP-4B"), price=9, stock=4)
    pos.rejected(s, 0, ShipContract(fulfil=True, agent=1), "no_agent")

    # the ship action (§6.7): one contract with one good more or less, within this ship's capacity
    s = harbour_scene(
        ("SHIP-6A",), {CLOTHES: 5, LAMPS: 2}, {"CLOTHES": 6, "LAMPS": 2}, tiles=("AGENT_IN_THE_COLONIES",)
    )
    s, _ = pos.play(s, 0, ship_on(6, "SHIP-6A"))
    pos.rejected(s, 0, DeliverContract(good="CLOTHES", agent=1), "ship_too_small")
    s, fx = pos.play(s, 0, DeliverContract(good="CLOTHES", agent=-1))
    assert (pos.one(fx, "contract_delivered").goods, pos.one(fx, "contract_delivered").income) == (5, 45)
    pos.rejected(s, 0, DeliverContract(good="LAMPS", agent=-1), "no_agent")  # one contract only


def test_dt_a_production_phase_shipment_names_where_its_goods_come_from() -> None:
    """D-33 ``from_surplus``, ``from_large``, ``from_small``: by default the surplus goes first,
    then the large warehouse, then the small one; the player may choose otherwise, e.g. empty
    the small warehouse (freeing the price scale) and store the surplus instead."""

    def scene_() -> State:
        s = clothes_contract_scene(("SHIP-4A", "SHIP-4B"), price=9, stock=4)  # 3 clothes unsold
        s = pos.with_tiles(s, 0, "SMALL_WAREHOUSE")
        return pos.with_player(s, 0, small_stock=(0, 2, 0, 0))

    s = scene_()
    assert (s.phase, s.awaiting) == (Phase.SHIPPING, (0,))
    default, fx = pos.play(s, 0, ShipContract(fulfil=True))
    assert pos.one(fx, "contract_delivered").goods == 6
    assert (default.players[0].stock[CLOTHES], default.players[0].small_stock[CLOTHES]) == (1, 2)
    assert pos.of_kind(fx, "goods_stored", seat=0) == []  # the surplus was shipped
    chosen = ShipContract(fulfil=True, from_surplus=0, from_large=4, from_small=2)
    assert chosen in E.legal_decisions(s, 0)
    after, fx = pos.play(s, 0, chosen)
    delivered = pos.one(fx, "contract_delivered")
    assert (delivered.goods, delivered.income) == (6, 6 * 9)
    assert (pos.one(fx, "goods_stored", seat=0).stored, pos.one(fx, "goods_stored", seat=0).lost) == (3, 0)
    assert (after.players[0].stock[CLOTHES], after.players[0].small_stock[CLOTHES]) == (3, 0)
    assert after.players[0].cash == default.players[0].cash
    # a source named alone: the others give nothing
    pos.rejected(s, 0, ShipContract(fulfil=True, from_large=4), "sources_do_not_add_up")
    pos.rejected(s, 0, ShipContract(fulfil=True, from_surplus=3, from_large=2), "sources_do_not_add_up")
    pos.rejected(
        s, 0, ShipContract(fulfil=True, from_surplus=1, from_large=2, from_small=3), "not_enough_in_source"
    )
    pos.rejected(
        s, 0, ShipContract(fulfil=True, from_surplus=0, from_large=5, from_small=1), "not_enough_in_source"
    )
    pos.rejected(s, 0, ShipContract(fulfil=True, from_surplus=4, from_large=2), "not_enough_in_source")
    pos.rejected(s, 0, ShipContract(fulfil=False, from_large=4), "sources_without_shipment")
    # with the agent, the sources add up to the changed contract
    s = clothes_contract_scene(("SHIP-4A", "SHIP-4B"), price=9, stock=4, agent=True)
    five, fx = pos.play(s, 0, ShipContract(fulfil=True, agent=-1, from_surplus=1, from_large=4))
    assert pos.one(fx, "contract_delivered").goods == 5
    assert five.players[0].stock[CLOTHES] == 2  # the 2 unshipped surplus clothes were stored
    pos.rejected(
        s, 0, ShipContract(fulfil=True, agent=-1, from_surplus=3, from_large=3), "sources_do_not_add_up"
    )


def test_dt_the_foreman_and_the_workshop_must_name_the_factory_they_serve() -> None:
    """Spec §6.9 and D-04: "Foreman and workshop name the factory they are assigned to"."""
    s = pos.on_display(pos.new_1770(3), "FOREMAN", "WORKSHOP", "OFFICE")  # seat 0: food and clothes
    s, _ = pos.start_turn(s, 0, "WORKERS", 2)
    pos.rejected(s, 0, TakeTile(tile="FOREMAN"), "assign_required")
    pos.rejected(s, 0, TakeTile(tile="WORKSHOP"), "assign_required")
    pos.rejected(s, 0, TakeTile(tile="FOREMAN", assign="LAMPS"), "assign_to_factory")
    pos.rejected(s, 0, TakeTile(tile="OFFICE", assign="FOOD"), "not_assignable")
    legal = E.legal_decisions(s, 0)
    assert {d.assign for d in legal if isinstance(d, TakeTile) and d.tile == "FOREMAN"} == {"FOOD", "CLOTHES"}
    assert TakeTile(tile="OFFICE") in legal
    taken, fx = pos.play(s, 0, TakeTile(tile="FOREMAN", assign="CLOTHES"))
    assert pos.one(fx, "tile_taken").assigned == "CLOTHES"
    assert taken.players[0].assigned == (("FOREMAN", CLOTHES),)
    # without any factory the foreman and the workshop cannot be taken
    bare, _ = pos.start_turn(
        pos.with_factories(pos.on_display(pos.new_1770(3), "FOREMAN"), 0, {}), 0, "WORKERS", 2
    )
    assert not [d for d in E.legal_decisions(bare, 0) if isinstance(d, TakeTile) and d.tile == "FOREMAN"]
    pos.rejected(bare, 0, TakeTile(tile="FOREMAN", assign="FOOD"), "assign_to_factory")
    # the predetermined set-up's tile from the box names its factory too
    s, _ = pos.settle_draws(E.new_game(WaterFrameOptions(predetermined_setup=True), 3))
    assert s.phase == Phase.PREDETERMINED_TILE
    seat = s.awaiting[0]
    for tile in {"FOREMAN", "WORKSHOP"} & set(box_tiles(s)):
        pos.rejected(s, seat, TakeTile(tile=tile), "assign_required")  # type: ignore[arg-type]
        assert all(
            d.assign is not None
            for d in E.legal_decisions(s, seat)
            if isinstance(d, TakeTile) and d.tile == tile
        )


def keeps_the_lamps_by_returning_the_clothes(s: State) -> tuple[State, tuple[Effect, ...]]:
    """Seat 0 (3 lamps made, 2 food and 1 clothes on the small warehouse) keeps the 3 lamps by
    returning the clothes: all 3 stored, none lost, no compensation."""
    empty = (0, 0, 0, 0)
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, StoreGoods(large=empty, small=(2, 0, 0, 3)))
    stored = pos.one(fx, "goods_stored", seat=0)
    assert (stored.good, stored.stored, stored.lost) == ("LAMPS", 3, 0)
    discarded = pos.one(fx, "goods_discarded", seat=0)
    assert (discarded.good, discarded.count) == ("CLOTHES", 1)
    assert pos.one(fx, "warehouse_arranged", seat=0).small == (2, 0, 0, 3)
    p = s.players[0]
    assert (p.stock, p.small_stock) == (empty, (2, 0, 0, 3))
    assert pos.cash(s, 0) == c0
    return s, fx


def test_ex51_a_small_warehouse_with_2_food_and_1_clothes_keeps_3_surplus_lamps_only_by_discarding_one_of_them() -> (
    None
):
    """Spec §3.5 D-34 (StoreGoods) and §5.8: a storage conflict is the player's choice; she "must
    return either 1 food or 1 clothes" [R16 §III.5]."""
    base = pos.scene()
    base = pos.with_factory(base, 0, LAMPS, pos.factory(LAMPS))  # appeal 0: 3 lamps made, none sold
    base = pos.with_tiles(base, 0, "SMALL_WAREHOUSE")
    # room for all three: 2 food + 3 lamps = 5, stored without asking
    s, fx = pos.produce(pos.with_player(base, 0, small_stock=(2, 0, 0, 0)), LAMPS)
    stored = pos.one(fx, "goods_stored", seat=0)
    assert (stored.stored, stored.lost) == (3, 0)
    assert s.players[0].small_stock == (2, 0, 0, 3)
    assert s.phase != Phase.STORAGE and s.sale is None
    # 2 food + 1 clothes leave room for 2: keeping all 3 lamps needs the player's choice
    s, fx = pos.produce(pos.with_player(base, 0, small_stock=(2, 1, 0, 0)), LAMPS)
    assert (s.phase, s.awaiting) == (Phase.STORAGE, (0,)), (
        f"the engine stored automatically: small warehouse {s.players[0].small_stock}, "
        f"{[(e.stored, e.lost) for e in pos.of_kind(fx, 'goods_stored', seat=0)]} (stored, lost)"
    )
    assert pos.of_kind(fx, "goods_stored", seat=0) == []
    assert E.view(s, None)["sale"]["surplus"][0] == 3
    empty = (0, 0, 0, 0)
    legal = E.legal_decisions(s, 0)
    assert legal[0] == StoreGoods(large=empty, small=(2, 1, 0, 2))  # the automatic fill: 1 lamp lost
    assert StoreGoods(large=empty, small=(1, 1, 0, 3)) in legal  # return 1 food
    assert StoreGoods(large=empty, small=(2, 0, 0, 3)) in legal  # return 1 clothes
    pos.rejected(s, 0, StoreGoods(large=empty, small=(2, 1, 0, 3)), "small_warehouse_full")
    pos.rejected(s, 0, StoreGoods(large=(0, 0, 0, 3), small=(2, 0, 0, 0)), "large_warehouse_full")
    pos.rejected(s, 0, StoreGoods(large=empty, small=(1, 1, 1, 2)), "goods_not_available")  # no cutlery
    pos.rejected(s, 0, StoreGoods(large=empty, small=(1, 0, 0, 4)), "goods_not_available")  # 3 lamps made
    pos.rejected(s, 0, ShipContract(fulfil=False), "wrong_decision")
    s, _ = keeps_the_lamps_by_returning_the_clothes(s)
    assert s.phase != Phase.STORAGE and s.sale is None


def test_dt_storage_asks_only_when_a_choice_keeps_more_and_the_bot_keeps_the_most_valuable_goods() -> None:
    """D-34: no pause when nothing can be gained (the small warehouse already full of lamps, or no
    warehouse at all); moving stored food to an open food column makes room without any loss."""
    base = pos.scene()
    base = pos.with_factory(base, 0, LAMPS, pos.factory(LAMPS))  # 3 lamps made, none sold
    base = pos.with_tiles(base, 0, "SMALL_WAREHOUSE")
    # the small warehouse full of lamps: the price scale and the 5 spaces allow no more lamps
    s, fx = pos.produce(pos.with_player(base, 0, small_stock=(0, 0, 0, 5)), LAMPS)
    assert s.phase != Phase.STORAGE
    assert (pos.one(fx, "goods_stored", seat=0).stored, pos.one(fx, "goods_stored", seat=0).lost) == (0, 3)
    # an open food column: the food may move to the large warehouse
    s, _ = pos.produce(
        pos.with_player(base, 0, small_stock=(2, 1, 0, 0), wh_cols=(True, False, False, False)), LAMPS
    )
    assert (s.phase, s.awaiting) == (Phase.STORAGE, (0,))
    moved = StoreGoods(large=(1, 0, 0, 0), small=(1, 1, 0, 3))
    assert moved in E.legal_decisions(s, 0)
    assert bot.choose(s, 0) == moved  # nothing lost beats returning a good
    after, fx = pos.play(s, 0, moved)
    assert pos.of_kind(fx, "goods_discarded") == []
    assert (after.players[0].stock, after.players[0].small_stock) == ((1, 0, 0, 0), (1, 1, 0, 3))
    pos.rejected(s, 0, StoreGoods(large=(3, 0, 0, 0), small=(0, 0, 0, 2)), "goods_not_available")
    pos.rejected(s, 0, StoreGoods(large=(0, 1, 0, 0), small=(2, 0, 0, 2)), "large_warehouse_full")
    # the bot returns the food rather than the clothes when nothing can move: most valuable kept
    s, _ = pos.produce(pos.with_player(base, 0, small_stock=(2, 1, 0, 0)), LAMPS)
    assert bot.choose(s, 0) == StoreGoods(large=(0, 0, 0, 0), small=(1, 1, 0, 3))


def test_dt_goods_on_the_small_warehouse_may_not_cover_the_price() -> None:
    """[R16 §III.5] "he may only store as many goods of this kind as there are spaces to the right
    of the price marker": with lamps at £22 three lamps fit on the small warehouse."""
    s = pos.scene()
    lamps = pos.factory(LAMPS, level=4, quality=2, price=22, rows=pos.full_rows(LAMPS, 2))  # appeal 0
    s = pos.with_factory(s, 0, LAMPS, lamps)
    s = pos.with_tiles(s, 0, "SMALL_WAREHOUSE")
    s = pos.with_player(s, 0, small_stock=(2, 1, 0, 0))
    s, fx = pos.produce(s, LAMPS)
    assert pos.one(fx, "goods_produced", seat=0).count == C.row_output[3][0] + C.row_output[3][1] >= 3
    assert (s.phase, s.awaiting) == (Phase.STORAGE, (0,))
    assert max(d.small[LAMPS] for d in E.legal_decisions(s, 0) if isinstance(d, StoreGoods)) == 25 - 22
    pos.rejected(s, 0, StoreGoods(large=(0, 0, 0, 0), small=(1, 0, 0, 4)), "price_scale_occupied")
    s, _ = pos.play(s, 0, StoreGoods(large=(0, 0, 0, 0), small=(1, 1, 0, 3)))
    assert s.players[0].small_stock == (1, 1, 0, 3)


def production_action_scene(
    marker: str = "LIGHT:PRODUCTION", lamps: Factory | None = None, **player: Any
) -> State:
    """Seat 0 has placed its grey production marker on the £2 space; its lamps factory (level I,
    rows 1-2 full: 3 lamps) and the small warehouse; ``player`` changes its warehouses."""
    s = pos.scene()
    s = pos.with_factories(s, 0, {LAMPS: lamps or pos.factory(LAMPS), FOOD: pos.factory(FOOD)})
    s = pos.with_tiles(s, 0, "SMALL_WAREHOUSE")
    s = pos.with_player(s, 0, **player)
    s = pos.give_turn(pos.with_grey(s, 0, marker), 0)
    shade, action = marker.split(":")
    s, _ = pos.play(s, 0, PlaceMarker(action=action, space=2, shade=shade))  # type: ignore[arg-type]
    return s


def test_dt_a_production_action_with_a_storage_conflict_pauses_for_the_same_store_goods_choice() -> None:
    """Spec §6.8 "The player may discard stored goods to make room"; [R16 §II.2.8] "he always may
    return goods from the warehouse to the common supply ... He may also transfer goods to the
    large warehouse if there is room": the production action stores like the production phase
    (D-34), and the turn goes on afterwards as after an automatic store."""
    empty = (0, 0, 0, 0)
    s = production_action_scene(small_stock=(2, 1, 0, 0))  # room for 2 of the 3 lamps
    before = s.players[0]
    s, fx = pos.play(s, 0, ProduceGoods(good="LAMPS", rows=2))
    assert (s.phase, s.awaiting) == (Phase.ACTION, (0,))
    assert pos.turn_view(s)["storage_choice"] == {"good": "LAMPS", "rows": 2, "produced": 3}
    assert E.pending(s).prompt.startswith("storage:")
    assert not {"goods_made_by_action", "goods_stored", "warehouse_arranged"} & set(pos.kinds(fx))
    assert (s.players[0].stock, s.players[0].small_stock) == (before.stock, before.small_stock)
    paused = s
    # the same options as in the production phase's storage (WF-EX-51)
    legal = E.legal_decisions(s, 0)
    assert all(isinstance(d, StoreGoods) for d in legal)
    assert legal[0] == StoreGoods(large=empty, small=(2, 1, 0, 2))  # the automatic fill: 1 lamp lost
    assert StoreGoods(large=empty, small=(1, 1, 0, 3)) in legal  # return 1 food
    assert StoreGoods(large=empty, small=(2, 0, 0, 3)) in legal  # return 1 clothes
    # nothing else until the goods are stored; illegal arrangements keep their codes
    for d in (
        EndTurn(),
        FinishMainAction(),
        AdjustPrice(good="LAMPS", price=10),
        ProduceGoods(good="LAMPS", rows=2),
        ProduceGoods(good="FOOD", rows=1),
    ):
        pos.rejected(s, 0, d, "wrong_decision")
    pos.rejected(s, 1, StoreGoods(large=empty, small=(2, 0, 0, 3)), "not_your_turn")
    pos.rejected(s, 0, StoreGoods(large=empty, small=(2, 1, 0, 3)), "small_warehouse_full")
    pos.rejected(s, 0, StoreGoods(large=(0, 0, 0, 3), small=(2, 0, 0, 0)), "large_warehouse_full")
    pos.rejected(s, 0, StoreGoods(large=empty, small=(1, 1, 1, 2)), "goods_not_available")  # no cutlery
    pos.rejected(s, 0, StoreGoods(large=empty, small=(1, 0, 0, 4)), "goods_not_available")  # 3 lamps made
    # the phase's effects come after the action's record; the wages are paid with the main action
    s, fx = keeps_the_lamps_by_returning_the_clothes(s)
    assert pos.kinds(fx) == ["goods_made_by_action", "goods_stored", "goods_discarded", "warehouse_arranged"]
    made = pos.one(fx, "goods_made_by_action", seat=0)
    assert (made.good, made.rows, made.produced, made.stored, made.lost) == ("LAMPS", 2, 3, 3, 0)
    # the turn goes on: still the main action of the production marker, nothing more to produce
    assert (s.phase, s.awaiting) == (Phase.ACTION, (0,))
    view = pos.turn_view(s)
    assert (view["stage"], view["storage_choice"], view["affected"]) == ("main", None, ["LAMPS"])
    pos.rejected(s, 0, ProduceGoods(good="LAMPS", rows=1), "produced_already")
    pos.rejected(s, 0, StoreGoods(large=empty, small=(2, 0, 0, 3)), "wrong_decision")
    assert not any(isinstance(d, StoreGoods) for d in E.legal_decisions(s, 0))
    costs = view["main_costs"]
    assert costs == 6 * pos.wage_at(s.jm_empty) > 0  # rows 1-2 of level-I lamps: 3 + 3 workers
    s, fx = pos.play(s, 0, FinishMainAction())
    assert pos.one(fx, "money_changed", seat=0, reason="main_action").amount == -costs
    pos.rejected(s, 0, AdjustPrice(good="FOOD", price=8), "price_not_adjustable")  # only the producer
    s, _ = pos.play(s, 0, AdjustPrice(good="LAMPS", price=10))
    s, fx = pos.play(s, 0, EndTurn())
    assert s.turn is None and s.awaiting == (1,)
    assert s.players[0].small_stock == (2, 0, 0, 3)
    # choosing the automatic fill leaves exactly what an automatic store leaves
    t = paused.turn
    assert t is not None
    auto, fx = pos.play(paused, 0, legal[0])
    expected, lost = store(paused, 0, LAMPS, 3)
    assert lost == 1
    assert auto.players == expected.players and auto.turn == replace(t, storing=None)
    made = pos.one(fx, "goods_made_by_action", seat=0)
    assert (made.produced, made.stored, made.lost) == (3, 2, 1)
    assert pos.of_kind(fx, "goods_discarded") == []


def test_dt_a_production_action_stores_without_asking_when_no_choice_keeps_more() -> None:
    """No pause when the automatic fill keeps as much as any choice: room for everything, the
    small warehouse full of lamps, or no small warehouse at all (each good has its own room in
    the large warehouse, so discarding other goods gains nothing there)."""
    cases: list[tuple[dict[str, Any], tuple[int, int]]] = [
        ({"small_stock": (2, 0, 0, 0)}, (3, 0)),  # 2 food + 3 lamps = 5
        ({"small_stock": (0, 0, 0, 5)}, (0, 3)),  # the five spaces hold lamps already
        ({"wh_cols": (False, False, False, True), "stock": (0, 0, 0, 4)}, (1, 2)),  # the lamps column
    ]
    for changes, (kept, lost) in cases:
        s = production_action_scene(**changes)
        if "small_stock" not in changes:
            s = pos.with_tiles(s, 0)  # no small warehouse: only the large one
        s, fx = pos.play(s, 0, ProduceGoods(good="LAMPS", rows=2))
        assert s.turn is not None and s.turn.storing is None, changes
        made = pos.one(fx, "goods_made_by_action", seat=0)
        assert (made.produced, made.stored, made.lost) == (3, kept, lost), changes
        assert pos.of_kind(fx, "goods_stored") == [] and pos.of_kind(fx, "warehouse_arranged") == []
        assert FinishMainAction() in E.legal_decisions(s, 0)


def test_dt_in_a_production_action_food_moves_to_the_large_warehouse_and_the_price_scale_limits_the_lamps() -> (
    None
):
    """[R16 §II.2.8] "He may also transfer goods to the large warehouse if there is room", and
    only as many lamps fit on the small warehouse as there are spaces right of the price; the
    bot keeps the most valuable goods, as in the production phase."""
    s = production_action_scene(small_stock=(2, 1, 0, 0), wh_cols=(True, False, False, False))
    s, _ = pos.play(s, 0, ProduceGoods(good="LAMPS", rows=2))
    assert s.turn is not None and s.turn.storing == (LAMPS, 2, 3)
    moved = StoreGoods(large=(1, 0, 0, 0), small=(1, 1, 0, 3))
    assert moved in E.legal_decisions(s, 0)
    assert bot.choose(s, 0) == moved  # nothing lost beats returning a good
    pos.rejected(s, 0, StoreGoods(large=(3, 0, 0, 0), small=(0, 0, 0, 2)), "goods_not_available")
    pos.rejected(s, 0, StoreGoods(large=(0, 1, 0, 0), small=(2, 0, 0, 2)), "large_warehouse_full")
    after, fx = pos.play(s, 0, moved)
    assert pos.of_kind(fx, "goods_discarded") == []
    assert (after.players[0].stock, after.players[0].small_stock) == ((1, 0, 0, 0), (1, 1, 0, 3))
    assert bot.choose(after, 0) in E.legal_decisions(after, 0)  # the bot goes on with its turn
    # lamps at £22: three spaces right of the price; the dark marker's rows 1-2 of level IV make 5
    lamps = pos.factory(LAMPS, level=4, quality=2, price=22, rows=pos.full_rows(LAMPS, 2))
    s = production_action_scene("DARK:PRODUCTION", lamps=lamps, small_stock=(2, 1, 0, 0))
    s, _ = pos.play(s, 0, ProduceGoods(good="LAMPS", rows=2))
    assert s.turn is not None and s.turn.storing == (LAMPS, 2, C.row_output[3][0] + C.row_output[3][1])
    assert max(d.small[LAMPS] for d in E.legal_decisions(s, 0) if isinstance(d, StoreGoods)) == 25 - 22
    pos.rejected(s, 0, StoreGoods(large=(0, 0, 0, 0), small=(1, 0, 0, 4)), "price_scale_occupied")
    assert bot.choose(s, 0) == StoreGoods(large=(0, 0, 0, 0), small=(1, 1, 0, 3))  # the food goes
    s, fx = pos.play(s, 0, bot.choose(s, 0))
    made = pos.one(fx, "goods_made_by_action", seat=0)
    assert (made.produced, made.stored, made.lost) == (5, 3, 2)
    assert pos.one(fx, "goods_discarded", seat=0).good == "FOOD"


# --- 8.7 end of round and end of game ---------------------------------------------------------------------


def test_ex52_a_capacity_4_ship_with_one_crew_and_a_capacity_2_ship_cost_one_wage_of_4_in_the_event_phase() -> (
    None
):
    """[uses DEFAULT] a job market whose lowest empty row pays £4 (C.jm_wage_of_row)."""
    s = pos.with_ships(pos.scene(), 0, "SHIP-2A", "SHIP-4A")
    c0 = pos.cash(s, 0)
    s, fx = pos.at_phase(
        s, Phase.RETURN_MARKERS, cycle=-1, start_player=0, jm_empty=pos.jm_empty_for(FOOD, wage=4)
    )
    paid = pos.one(fx, "harbour_wages_paid", seat=0)
    assert (paid.workers, paid.amount) == (1, 4)
    assert pos.cash(s, 0) == c0 - 4
    assert pos.of_kind(fx, "harbour_wages_paid", seat=1) == []
    assert (s.phase, s.awaiting) == (Phase.RELEASE, (0,))
    # she may then release the ship with its whole crew
    f0 = s.fired
    s, fx = pos.play(s, 0, ReleaseShip(ship="SHIP-4A"))
    assert pos.one(fx, "ship_released").crew_fired == 1
    assert (s.fired, s.players[0].ships) == (f0 + 1, ("SHIP-2A",))
    assert "SHIP-4A" in s.mat_ships[C.ship("SHIP-4A").row - 1]


def test_ex56_unfulfilled_contracts_on_6_and_on_10_cost_6_and_10_share_spaces_at_the_end() -> None:
    s = replace(pos.new_1770(3), decade=1810)
    s = pos.with_player(s, 0, contracts=pos.contracts(FOOD=6), share_space=30)
    s = pos.with_player(s, 1, contracts=pos.contracts(LAMPS=10), share_space=30)
    s = pos.with_tiles(s, 1, "AGENT_IN_THE_COLONIES")  # no effect at the end
    # the lamps contract on 10 is not shipped in the last lamps phase: -2, it stays on 10
    s, _ = pos.produce(s, LAMPS)
    assert (s.phase, s.awaiting) == (Phase.SHIPPING, (1,))
    s, fx = pos.play(s, 1, ShipContract(fulfil=False))
    assert pos.one(fx, "contract_escalated", seat=1).penalty == 2
    assert s.players[1].share_space == 28
    assert s.phase == Phase.FINAL_STOCK_EXCHANGE  # the lamps cycle was the last one of 1810
    s, end = pos.all_done(s)
    assert s.phase == Phase.FINISHED
    penalties = {e.seat: e.spaces for e in pos.of_kind(end, "end_penalty")}
    assert penalties == {0: 6, 1: 10}
    assert [p.share_space for p in s.players] == [24, 18, 10]
    assert s.scores == tuple(p.shares * C.share_value(p.share_space) for p in s.players)


def test_ex57_the_unfulfilled_contract_on_6_drops_space_41_to_35_so_19_shares_score_19_times_22_418() -> None:
    s = pos.with_player(
        pos.new_1770(3),
        0,
        share_space=41,
        shares=16,
        bank_shares=14,
        cash=80,
        loans=0,
        contracts=pos.contracts(LAMPS=6),
    )
    s, _ = pos.at_phase(s, Phase.FINAL_STOCK_EXCHANGE, decade=1810, cycle=-1, start_player=0)
    s, bought = pos.play(s, 0, BuyShares(count=3))
    assert pos.one(bought, "shares_changed").price == 24
    s, fx = pos.all_done(s)
    assert s.phase == Phase.FINISHED
    penalty = pos.one(fx, "end_penalty", seat=0)
    assert (penalty.reason, penalty.spaces) == ("unfulfilled_lamps_contract", 6)
    assert (s.players[0].shares, s.players[0].share_space, C.share_value(35)) == (19, 35, 22)
    assert s.scores[0] == 19 * 22 == 418


# --- 8.8 derived tests ----------------------------------------------------------------------------------


def test_dt01_an_unshipped_contract_climbs_from_6_to_8_and_one_on_the_last_space_stays_and_costs_2_spaces() -> (
    None
):
    s = pos.scene()
    s = pos.with_player(s, 0, contracts=pos.contracts(CLOTHES=6, FOOD=2))
    s = pos.with_player(s, 1, contracts=pos.contracts(CLOTHES=10))
    s, _ = pos.produce(s, CLOTHES)
    assert (s.phase, s.awaiting) == (Phase.SHIPPING, (0,))
    s, _ = pos.play(s, 0, ShipContract(fulfil=False))
    s, fx = pos.play(s, 1, ShipContract(fulfil=False))
    up = {e.seat: (e.space, e.penalty) for e in pos.of_kind(fx, "contract_escalated")}
    assert up == {0: (8, 0), 1: (10, 2)}
    assert s.players[0].contracts == pos.contracts(CLOTHES=8, FOOD=2)  # only the active good escalates
    assert s.players[1].contracts == pos.contracts(CLOTHES=10)
    assert [p.share_space for p in s.players] == [10, 8, 10]

    # two players: the track ends on 4
    s = pos.scene(2)
    s = pos.with_player(s, 0, contracts=pos.contracts(CLOTHES=4))
    s = pos.with_player(s, 1, contracts=pos.contracts(CLOTHES=2))
    s, _ = pos.produce(s, CLOTHES)
    s, _ = pos.play(s, 0, ShipContract(fulfil=False))
    s, fx = pos.play(s, 1, ShipContract(fulfil=False))
    up = {e.seat: (e.space, e.penalty) for e in pos.of_kind(fx, "contract_escalated")}
    assert up == {0: (4, 2), 1: (4, 0)}
    assert [p.share_space for p in s.players] == [8, 10]


@pytest.mark.parametrize(("charisma", "y_space"), [(False, 12), (True, 13)])
def test_dt06_charisma_takes_the_most_goods_step_when_its_owner_ties_with_3_goods_each(
    charisma: bool, y_space: int
) -> None:
    """[uses DEFAULT] the demand of 8 comes from the job-market layout (C.jm_numbered)."""
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, price=5))  # X: appeal 4, produces 3
    s = pos.with_factory(s, 1, CLOTHES, pos.factory(CLOTHES, price=6))  # Y: appeal 3, produces 3
    s = pos.with_importer(s, CLOTHES, 1)
    s = replace(s, jm_empty=pos.jm_empty_for(CLOTHES, demand=8))
    if charisma:
        s = pos.with_tiles(s, 1, "CHARISMA")
    s, fx = pos.produce(s, CLOTHES)
    assert pos.one(fx, "goods_sold", seat=0).from_production == 3
    assert pos.one(fx, "goods_sold", seat=1).from_production == 3
    assert pos.one(fx, "importer_sold").count == 1
    # X: sold >= 2 and the single best appeal; Y: sold >= 2 and, with charisma, the most goods
    assert (s.players[0].share_space, s.players[1].share_space) == (10 + 2 + 1, y_space)


def test_dt11_reusing_a_marker_on_the_4_space_with_the_administrator_costs_4() -> None:
    s = pos.with_tiles(pos.new_1770(3), 0, "ADMINISTRATOR")
    c0 = pos.cash(s, 0)
    s, fx = pos.start_turn(s, 0, "QUALITY", 4, reuse=True)
    placed = pos.one(fx, "marker_placed")
    assert (placed.space, placed.cost, placed.reuse) == (4, 4, True)
    assert pos.cash(s, 0) == c0 - 4
    assert (pos.turn_view(s)["paid"], pos.turn_view(s)["budget"]) == (4, 4)
    # without the administrator the fee is added
    s, fx = pos.start_turn(pos.new_1770(3), 0, "QUALITY", 4, reuse=True)
    assert pos.one(fx, "marker_placed").cost == 4 + C.reuse_fee


def test_dt12_after_bureaucracy_the_administrator_may_still_use_the_2_space() -> None:
    s = pos.new(4, predetermined=True)
    decade = next(d for d, e in C.events_predetermined.items() if e == C.event_bureaucracy)
    s = pos.with_tiles(replace(s, decade=decade), 0, "ADMINISTRATOR")
    s, fx = pos.at_phase(s, Phase.RETURN_MARKERS, cycle=-1)
    assert pos.one(fx, "event_revealed").event == C.event_bureaucracy
    s, _ = pos.play(s, s.awaiting[0], ChooseStartPlayer(seat=0))
    assert (s.decade, s.phase, s.awaiting, s.bureaucracy) == (decade + 10, Phase.ACTION, (0,), True)
    on_two = PlaceMarker(action="FACTORY", space=2)
    assert on_two in E.legal_decisions(s, 0)
    c0 = pos.cash(s, 0)
    s, fx = pos.play(s, 0, on_two)
    assert pos.one(fx, "marker_placed").cost == 2
    assert pos.cash(s, 0) == c0 - 2
    # the next player, without the administrator, may not
    s, _ = pos.play(s, 0, EndTurn())
    assert s.awaiting == (1,)
    pos.rejected(s, 1, PlaceMarker(action="FACTORY", space=2), "bureaucracy")
