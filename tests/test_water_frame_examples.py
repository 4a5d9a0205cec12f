"""Water Frame's worked examples and derived tests (spec §8, WF-EX-*, WF-DT-*) as tests.

Each test builds the position of one example (``tests/wf_positions.py``), applies the
decision or runs the automatic procedure, and checks the numbers the spec gives.
Tests marked "[uses DEFAULT]" rest on an UNKNOWN value of spec §7 and read it from
the components (``ledger.games.water_frame.components.load()``).

These arrive with the special markers (development tiles, grey advanced action
markers, ships, contracts and the production action) and are not tested here:

* WF-EX-15 (developer), WF-EX-16 (developer and inventor), WF-EX-20 (workshop),
  WF-EX-21 (grey machinery markers), WF-EX-24 (patent);
* WF-EX-27 (contracts), WF-EX-28 .. WF-EX-34 (ships, accountant, contracts, office),
  WF-EX-35 (production action), WF-EX-37 (fifth tile, small warehouse, broker),
  WF-EX-38 (ship crews), WF-EX-45 (school), WF-EX-49 (production-phase shipment),
  WF-EX-50 (agent in the colonies), WF-EX-51 (small warehouse), WF-EX-52 (ship crew
  wages), WF-EX-56 (unfulfilled contracts at the end);
* WF-DT-01 (contract escalation), WF-DT-06 (charisma), WF-DT-11 (administrator);
* the tile parts of examples tested here only in part: WF-EX-48 (foreman and workshop
  amounts £19 and £17), WF-EX-57 (the contract on space 6: £418), WF-DT-12 (the
  administrator may still use the £2 space), WF-EX-22 and WF-EX-23 (a single action
  with a budget above the own marker's: £12 quality needs the accountant, engineer or
  a grey marker; a £10 distribution needs a grey marker) are played here with the
  own-colour markers over several actions instead.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pydantic import ValidationError

from ledger.engine import Effect
from ledger.games.shared import set_at
from ledger.games.water_frame.decisions import (
    DECISION_ADAPTER,
    AdjustPrice,
    BuildFactory,
    BuyShares,
    ChooseStartPlayer,
    EndTurn,
    FinishMainAction,
    FireWorkers,
    FoundFactory,
    HireWarehouseWorker,
    HireWorkers,
    ModernizeFactory,
    PlaceMachine,
    PlaceMarker,
    RaiseDistribution,
    RaiseQuality,
    RepayLoans,
    SellShares,
    SellStartShares,
    StopSelling,
)
from ledger.games.water_frame.state import Factory, Phase, Row, State
from tests import wf_positions as pos
from tests.wf_positions import CLOTHES, CUTLERY, FOOD, LAMPS, C, E

# --- 8.1 setup and preparation ------------------------------------------------------------


def test_ex01_level_one_clothes_cost_9_and_lamps_11_and_the_cost_is_the_base_quality() -> None:
    assert C.factory_cost[CLOTHES][0] == 9
    assert C.factory_cost[LAMPS][0] == 11
    s = pos.scene()
    s = pos.with_factories(
        s, 0, {CLOTHES: pos.factory(CLOTHES, price=9), LAMPS: pos.factory(LAMPS, price=11)}
    )
    view = E.view(s, None)["players"][0]["factories"]
    assert (view[CLOTHES]["base_quality"], view[CLOTHES]["appeal"]) == (9, 0)
    assert (view[LAMPS]["base_quality"], view[LAMPS]["appeal"]) == (11, 0)


def test_ex02_founding_a_food_factory_at_6_gives_appeal_2() -> None:
    s = pos.new(3)
    assert (s.phase, s.awaiting) == (Phase.FOUNDATION_1, (0,))
    e0 = s.jm_empty
    pos.rejected(s, 0, FoundFactory(good="FOOD", price=9), "bad_price")  # appeal -1
    pos.rejected(s, 0, FoundFactory(good="FOOD", price=4), "bad_price")  # below the £5 minimum
    s, fx = pos.play(s, 0, FoundFactory(good="FOOD", price=6))
    f = s.players[0].factories[FOOD]
    assert f is not None
    assert (f.level, f.price) == (1, 6)
    assert f.rows == (Row(2, 0), Row(2, 0), Row(), Row())
    assert s.jm_empty == e0 + 4
    assert pos.appeal_of(s, 0, FOOD) == 8 - 6 == 2
    assert pos.one(fx, "factory_founded", seat=0).appeal == 2
    assert s.players[0].cash == 0  # no payment yet

    # she can sell at most 2 food: alone on the food market with ample demand
    others = (("CUTLERY", 10), ("LAMPS", 11))
    s, _ = pos.through_1760(s, foundations={0: (("FOOD", 6), ("CLOTHES", 9)), 1: others, 2: others})
    assert pos.demand_at(s.jm_empty, FOOD) > 3
    s, fx = pos.produce(s, FOOD)
    sold = pos.one(fx, "goods_sold", seat=0)
    assert (sold.from_production, sold.income) == (2, 12)


def test_ex03_paying_for_a_food_and_a_lamps_factory_costs_19() -> None:
    s = pos.new(2)
    s, _ = pos.play(s, 0, FoundFactory(good="FOOD", price=5))
    s, _ = pos.play(s, 1, FoundFactory(good="FOOD", price=5))
    assert s.awaiting == (1,)  # the second foundation runs in reverse order
    pos.rejected(s, 1, FoundFactory(good="FOOD", price=5), "same_good")
    s, _ = pos.play(s, 1, FoundFactory(good="CLOTHES", price=6))
    s, _ = pos.play(s, 0, FoundFactory(good="LAMPS", price=8))
    s, _ = pos.play(s, 1, SellStartShares(count=6))
    assert (s.phase, s.awaiting) == (Phase.START_SHARES, (0,))
    pos.rejected(s, 0, SellStartShares(count=1), "start_shares")  # £10 cannot pay £19
    s, fx = pos.play(s, 0, SellStartShares(count=3))
    assert pos.one(fx, "money_changed", seat=0, reason="building_costs").amount == -19
    assert s.players[0].cash == 30 - 19
    assert (s.players[0].shares, s.players[0].share_space) == (12, 10)
    assert s.decade == 1770


PREDETERMINED = {
    # seat: ((good, price, appeal, workers), (good, price, appeal, workers)), shares, building cost, cash
    4: [
        (((CLOTHES, 6, 3, 4), (CUTLERY, 6, 4, 5)), 9, 19, 41),
        (((FOOD, 7, 1, 4), (CUTLERY, 7, 3, 5)), 10, 18, 32),
        (((CLOTHES, 5, 4, 4), (LAMPS, 8, 3, 6)), 9, 20, 40),
        (((FOOD, 5, 3, 4), (LAMPS, 9, 2, 6)), 10, 19, 31),
    ],
    3: [
        (((FOOD, 7, 1, 4), (CLOTHES, 8, 1, 4)), 10, 17, 33),
        (((FOOD, 6, 2, 4), (CUTLERY, 8, 2, 5)), 9, 18, 42),
        (((FOOD, 5, 3, 4), (LAMPS, 9, 2, 6)), 9, 19, 41),
    ],
    2: [
        (((FOOD, 5, 3, 4), (CUTLERY, 8, 2, 5)), 8, 18, 52),
        (((FOOD, 7, 1, 4), (CLOTHES, 8, 1, 4)), 7, 17, 63),
    ],
}


def _check_predetermined(n: int, fired: int, boxed: int, jm_empty: int) -> None:
    s, fx = pos.new_with_effects(n, predetermined=True)
    # the setup completed; the 1770 food economy phase has since returned a few fired workers
    returned = pos.one(fx, "economy_marker_revealed").returned
    assert (s.fired + returned, s.boxed, s.jm_empty + returned) == (fired, boxed, jm_empty)
    assert s.start_player == 0 and s.decade == 1770
    for seat, (factories, shares, cost, money) in enumerate(PREDETERMINED[n]):
        p = s.players[seat]
        owned = [g for g in range(4) if p.factories[g] is not None]
        assert owned == sorted(g for g, *_ in factories), seat
        for g, price, appeal, workers in factories:
            f = p.factories[g]
            assert f is not None
            assert (f.level, f.price, pos.appeal_of(s, seat, g)) == (1, price, appeal), (seat, g)
            assert (f.rows[0].workers + f.rows[1].workers, f.rows[2], f.rows[3]) == (workers, Row(), Row())
        assert (p.shares, p.cash, p.share_space, p.loans) == (shares, money, 10, 0), seat
        assert pos.one(fx, "money_changed", seat=seat, reason="building_costs").amount == -cost


def test_ex04_the_predetermined_four_player_setup_matches_the_printed_tables() -> None:
    _check_predetermined(4, fired=4, boxed=0, jm_empty=4 + 38)


def test_ex05_the_predetermined_three_player_setup_matches_the_printed_tables() -> None:
    _check_predetermined(3, fired=8, boxed=0, jm_empty=8 + 27)


def test_ex06_the_predetermined_two_player_setup_matches_the_printed_tables() -> None:
    _check_predetermined(2, fired=4, boxed=8, jm_empty=12 + 17)


# --- 8.2 cycle flow, economy, administration ------------------------------------------------------


def test_ex07_the_first_cycle_of_1770_makes_food_the_active_good() -> None:
    s, fx = pos.through_1760(pos.new(3))
    ks = pos.kinds(fx)
    assert ks.index("decade_started") < ks.index("cycle_started") < ks.index("economy_marker_revealed")
    assert pos.one(fx, "decade_started").decade == 1770
    started = pos.one(fx, "cycle_started")
    assert (started.decade, started.cycle, started.good) == (1770, 1, "FOOD")
    assert (s.decade, s.cycle, s.phase) == (1770, FOOD, Phase.ACTION)
    assert E.view(s, None)["active_good"] == "FOOD"


def test_ex08_the_economy_phase_advances_the_importer_and_returns_three_workers() -> None:
    marker = "CLOTHES-13"
    assert C.economy_marker(marker) == (1, 3)
    s = pos.new_1770(3)
    s = replace(s, economy=set_at(s.economy, 0 * 4 + CLOTHES, marker))  # 1770, clothes
    s = pos.with_importer(s, CLOTHES, 2)
    after, fx = pos.at_phase(s, Phase.ECONOMY, cycle=CLOTHES, fired=5, jm_empty=40)
    assert (after.importers[CLOTHES], after.fired, after.jm_empty) == (3, 2, 37)
    revealed = pos.one(fx, "economy_marker_revealed")
    assert (revealed.good, revealed.advance, revealed.workers, revealed.returned) == ("CLOTHES", 1, 3, 3)
    assert after.phase == Phase.ACTION
    # with only two fired workers the remainder is forfeit
    after, _ = pos.at_phase(s, Phase.ECONOMY, cycle=CLOTHES, fired=2, jm_empty=40)
    assert (after.fired, after.jm_empty) == (0, 38)


def test_ex09_a_quality_marker_on_the_4_space_costs_4_and_allows_only_the_price_adjustment() -> None:
    s = pos.new_1770(3)
    c0 = pos.cash(s, 0)
    s, fx = pos.start_turn(s, 0, "QUALITY", 4)
    assert pos.one(fx, "marker_placed").cost == 4
    assert pos.cash(s, 0) == c0 - 4
    assert pos.turn_view(s)["main_action_possible"] is False
    pos.rejected(s, 0, RaiseQuality(good="FOOD"), "quality_budget")
    s, fx = pos.play(s, 0, AdjustPrice(good="FOOD", price=6))
    assert s.players[0].factories[FOOD].price == 6  # type: ignore[union-attr]
    assert pos.cash(s, 0) == c0 - 4


def test_ex10_reusing_the_machinery_marker_on_6_costs_8_and_buys_up_to_two_machines() -> None:
    """[uses DEFAULT] lamps rows 1-2 have 2 flexible slots each (C.row_slots)."""
    s = pos.with_factory(
        pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS)
    )  # rows 1-2: 6 workers, 4 flexible slots
    c0, fired0 = pos.cash(s, 0), s.fired
    s, fx = pos.start_turn(s, 0, "MACHINERY", 6, reuse=True)
    placed = pos.one(fx, "marker_placed")
    assert (placed.cost, placed.reuse) == (8, True)
    assert pos.cash(s, 0) == c0 - 8
    assert (pos.turn_view(s)["paid"], pos.turn_view(s)["budget"]) == (6, 6)
    s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=1))
    s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=2))
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=1), "no_more_machines")
    assert s.players[0].factories[LAMPS].rows[:2] == (Row(2, 1), Row(2, 1))  # type: ignore[union-attr]
    assert s.fired == fired0 + 2
    assert pos.cash(s, 0) == c0 - 8


def test_ex11_distribution_on_the_2_space_has_a_budget_of_2_and_nothing_more_can_be_paid() -> None:
    with pytest.raises(ValidationError):
        DECISION_ADAPTER.validate_python(
            {"type": "place_marker", "action": "DISTRIBUTION", "space": 2, "paid": 4}
        )
    s = pos.new_1770(3)
    c0 = pos.cash(s, 0)
    s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 2)
    assert pos.cash(s, 0) == c0 - 2
    assert pos.turn_view(s)["budget"] == 2
    s, _ = pos.play(s, 0, RaiseDistribution(good="FOOD"))  # 0 -> 1: £1
    pos.rejected(s, 0, RaiseDistribution(good="FOOD"), "distribution_budget")  # 1 -> 2 needs £2, £1 left
    assert s.players[0].factories[FOOD].distribution == 1  # type: ignore[union-attr]


def test_ex12_quality_on_the_10_space_pays_10_for_one_level_and_the_rest_only_buys_price_adjustments() -> (
    None
):
    s = pos.new_1770(3)
    c0, a0 = pos.cash(s, 0), pos.appeal_of(s, 0, FOOD)
    s, fx = pos.start_turn(s, 0, "QUALITY", 10)
    assert pos.cash(s, 0) == c0 - 10
    s, _ = pos.play(s, 0, RaiseQuality(good="FOOD"))
    pos.rejected(s, 0, RaiseQuality(good="CLOTHES"), "quality_budget")  # two levels need £12
    assert s.players[0].factories[FOOD].quality == 1  # type: ignore[union-attr]
    assert pos.appeal_of(s, 0, FOOD) == a0 + 1
    assert (pos.turn_view(s)["budget"], pos.turn_view(s)["spent"]) == (10, 6)
    s, _ = pos.play(s, 0, AdjustPrice(good="CLOTHES", price=7))  # not raised: £1 of the £4 left
    assert s.players[0].factories[CLOTHES].price == 7  # type: ignore[union-attr]
    assert pos.turn_view(s)["spent"] == 7
    assert pos.cash(s, 0) == c0 - 10


# --- 8.3 factory action ----------------------------------------------------------------------------


def test_ex13_a_new_level_one_food_factory_priced_5_has_appeal_3() -> None:
    s = pos.with_factory(pos.new_1770(3), 0, FOOD, None)
    s, _ = pos.start_turn(s, 0, "FACTORY", 2)
    c0, e0 = pos.cash(s, 0), s.jm_empty
    pos.rejected(s, 0, BuildFactory(good="FOOD", level=1, price=4), "bad_price")
    pos.rejected(s, 0, BuildFactory(good="FOOD", level=1, price=9), "bad_price")
    s, fx = pos.play(s, 0, BuildFactory(good="FOOD", level=1, price=5))
    f = s.players[0].factories[FOOD]
    assert f is not None and (f.level, f.price) == (1, 5)
    assert pos.appeal_of(s, 0, FOOD) == 8 - 5 == 3
    assert f.rows == (Row(C.slots(FOOD, 0)), Row(), Row(), Row())  # row 1 only
    assert s.jm_empty == e0 + C.slots(FOOD, 0)
    assert pos.one(fx, "factory_built").cost == 8
    s, _ = pos.play(s, 0, FinishMainAction())
    assert pos.cash(s, 0) == c0 - 8


def test_ex14_modernizing_food_from_level_one_to_three_costs_22_and_raises_appeal_by_4() -> None:
    """[uses DEFAULT] 1790 is the first decade of level III (C.level_of_decade)."""
    decade = min(d for d, lvl in C.level_of_decade.items() if lvl >= 3)
    s = replace(pos.new_1770(3), decade=decade)
    a0 = pos.appeal_of(s, 0, FOOD)
    s, _ = pos.start_turn(s, 0, "FACTORY", 2)
    c0 = pos.cash(s, 0)
    s, fx1 = pos.play(s, 0, ModernizeFactory(good="FOOD"))
    s, fx2 = pos.play(s, 0, ModernizeFactory(good="FOOD"))
    assert [e.cost for e in pos.of_kind([*fx1, *fx2], "factory_modernized")] == [10, 12]
    assert s.players[0].factories[FOOD].level == 3  # type: ignore[union-attr]
    assert pos.appeal_of(s, 0, FOOD) == a0 + 4
    if C.level_of_decade[decade] == 3:
        pos.rejected(s, 0, ModernizeFactory(good="FOOD"), "level_not_available")
    s, _ = pos.play(s, 0, FinishMainAction())
    assert pos.cash(s, 0) == c0 - 22


# --- 8.4 workers, machinery, quality, distribution ----------------------------------------------------


def test_ex17_a_worker_above_the_clothes_column_opens_room_for_five_clothes() -> None:
    s = pos.new_1770(3)
    s, _ = pos.start_turn(s, 0, "WORKERS", 2)
    e0 = s.jm_empty
    s, _ = pos.play(s, 0, HireWarehouseWorker(edge="col:CLOTHES"))
    p = s.players[0]
    assert p.wh_cols == (False, True, False, False)
    capacity = E.view(s, None)["players"][0]["warehouse"]["capacity"]
    assert capacity == {"FOOD": 0, "CLOTHES": 5, "CUTLERY": 0, "LAMPS": 0}
    assert s.jm_empty == e0 + 1
    pos.rejected(s, 0, HireWarehouseWorker(edge="col:CLOTHES"), "edge_taken")


@pytest.mark.parametrize(("space", "machines"), [(2, 0), (4, 1), (6, 2), (8, 2), (10, 2)])
def test_ex18_the_own_machinery_marker_buys_one_machine_from_3_and_two_from_6(
    space: int, machines: int
) -> None:
    """[uses DEFAULT] lamps rows 1-2 have 2 flexible slots each (C.row_slots)."""
    s = pos.with_factory(pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS))
    s, _ = pos.start_turn(s, 0, "MACHINERY", space)
    assert pos.turn_view(s)["main_action_possible"] is (machines > 0)
    for row in range(1, machines + 1):
        s, _ = pos.play(s, 0, PlaceMachine(good="LAMPS", row=row))
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=1), "no_more_machines")


def test_ex19_machinery_on_the_4_space_buys_one_machine_and_1_pound_is_forfeit() -> None:
    """[uses DEFAULT] lamps rows 1-2 have 2 flexible slots each (C.row_slots)."""
    s = pos.with_factory(pos.new_1770(3), 0, LAMPS, pos.factory(LAMPS))
    c0, fired0 = pos.cash(s, 0), s.fired
    s, _ = pos.start_turn(s, 0, "MACHINERY", 4)
    s, fx = pos.play(s, 0, PlaceMachine(good="LAMPS", row=2))
    assert pos.one(fx, "machine_placed").row == 2
    pos.rejected(s, 0, PlaceMachine(good="LAMPS", row=1), "no_more_machines")
    s, _ = pos.play(s, 0, EndTurn())
    assert s.players[0].factories[LAMPS].rows[1] == Row(2, 1)  # type: ignore[union-attr]
    assert s.fired == fired0 + 1
    assert pos.cash(s, 0) == c0 - 4


def test_ex22_two_quality_levels_on_food_raise_its_appeal_by_two() -> None:
    """Two own-marker actions (new on £6, then re-used): one action with a £12 budget needs a tile."""
    s = pos.new_1770(3)
    q0, a0, c0 = s.players[0].factories[FOOD].quality, pos.appeal_of(s, 0, FOOD), pos.cash(s, 0)  # type: ignore[union-attr]
    s, _ = pos.start_turn(s, 0, "QUALITY", 6)
    s, _ = pos.play(s, 0, RaiseQuality(good="FOOD"))
    s, _ = pos.play(s, 0, EndTurn())
    s, fx = pos.start_turn(s, 0, "QUALITY", 6, reuse=True)
    assert pos.one(fx, "marker_placed").cost == 8
    s, fx = pos.play(s, 0, RaiseQuality(good="FOOD"))
    assert pos.one(fx, "quality_raised").level == q0 + 2
    assert s.players[0].factories[FOOD].quality == q0 + 2  # type: ignore[union-attr]
    assert pos.appeal_of(s, 0, FOOD) == a0 + 2
    assert pos.cash(s, 0) == c0 - 6 - 8


def test_ex23_distribution_costs_the_new_level_so_food_0_to_4_costs_10_and_clothes_1_to_3_costs_5() -> None:
    """The own marker's £4 limit spreads food 0 -> 4 over three actions; clothes 1 -> 3 (£5) does not fit one."""
    s = pos.with_factory(pos.new_1770(3), 0, CLOTHES, pos.factory(CLOTHES, price=6, distribution=1))
    costs: list[int] = []
    s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 4)
    for _ in range(2):
        s, fx = pos.play(s, 0, RaiseDistribution(good="FOOD"))
        costs += [e.cost for e in pos.of_kind(fx, "distribution_raised")]
    pos.rejected(s, 0, RaiseDistribution(good="FOOD"), "distribution_budget")  # £3 more, £1 left
    s, _ = pos.play(s, 0, EndTurn())
    for _ in range(2):
        s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 4, reuse=True)
        s, fx = pos.play(s, 0, RaiseDistribution(good="FOOD"))
        costs += [e.cost for e in pos.of_kind(fx, "distribution_raised")]
        s, _ = pos.play(s, 0, EndTurn())
    assert costs == [1, 2, 3, 4] and sum(costs) == 10
    assert s.players[0].factories[FOOD].distribution == 4  # type: ignore[union-attr]

    s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 4, reuse=True)
    s, fx = pos.play(s, 0, RaiseDistribution(good="CLOTHES"))  # 1 -> 2: £2
    assert pos.one(fx, "distribution_raised").cost == 2
    pos.rejected(s, 0, RaiseDistribution(good="CLOTHES"), "distribution_budget")  # 2 -> 3: £3 > £2 left
    pos.rejected(s, 0, RaiseDistribution(good="FOOD"), "distribution_max")


# --- 8.5 stock exchange, price adjustment ----------------------------------------------------------------


def _at_the_stock_exchange(share_space: int) -> State:
    """The first player, her share value on ``share_space``, at the stock exchange with 2 actions."""
    s = pos.with_player(pos.new_1770(3), 0, share_space=share_space)
    s, _ = pos.start_turn(s, 0, "STOCK_EXCHANGE", 2)
    return s


def test_ex25_on_space_22_a_share_costs_16_and_buying_does_not_move_the_indicator() -> None:
    s = _at_the_stock_exchange(22)
    c0, shares0 = pos.cash(s, 0), s.players[0].shares
    s, fx = pos.play(s, 0, BuyShares(count=2))
    assert pos.one(fx, "shares_changed").price == 16
    assert (pos.cash(s, 0), s.players[0].shares, s.players[0].share_space) == (c0 - 32, shares0 + 2, 22)
    assert "share_price_changed" not in pos.kinds(fx)


def test_ex26_on_space_9_a_share_sells_for_9_and_costs_10() -> None:
    s = _at_the_stock_exchange(9)
    c0, shares0 = pos.cash(s, 0), s.players[0].shares
    s, fx = pos.play(s, 0, SellShares(count=1))
    assert pos.one(fx, "shares_changed").price == 9
    assert pos.cash(s, 0) == c0 + 9
    s, fx = pos.play(s, 0, BuyShares(count=1))
    assert pos.one(fx, "shares_changed").price == 10
    assert (pos.cash(s, 0), s.players[0].shares, s.players[0].share_space) == (c0 - 1, shares0, 9)


def test_ex36_distribution_budget_left_over_pays_1_pound_per_other_factory_price_adjustment() -> None:
    s = pos.scene()
    three = {
        FOOD: pos.factory(FOOD, price=6, distribution=1),
        CLOTHES: pos.factory(CLOTHES, price=6, distribution=1),
        CUTLERY: pos.factory(CUTLERY, price=6, distribution=1),
    }
    s = pos.with_factories(s, 0, three)
    c0 = pos.cash(s, 0)
    s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 4)
    s, fx = pos.play(s, 0, RaiseDistribution(good="FOOD"))
    assert pos.one(fx, "distribution_raised").cost == 2
    s, _ = pos.play(s, 0, AdjustPrice(good="CLOTHES", price=7))
    s, _ = pos.play(s, 0, AdjustPrice(good="CUTLERY", price=8))
    s, _ = pos.play(s, 0, AdjustPrice(good="FOOD", price=9))  # raised: free
    assert pos.turn_view(s)["spent"] == 4
    fs = s.players[0].factories
    assert [f.distribution for f in fs[:3]] == [2, 1, 1]  # type: ignore[union-attr]
    assert [f.price for f in fs[:3]] == [9, 7, 8]  # type: ignore[union-attr]
    assert pos.cash(s, 0) == c0 - 4

    # had she owned a fourth factory, the £4 would not reach its price
    s = pos.with_factories(pos.scene(), 0, {**three, LAMPS: pos.factory(LAMPS, price=6)})
    s, _ = pos.start_turn(s, 0, "DISTRIBUTION", 4)
    s, _ = pos.play(s, 0, RaiseDistribution(good="FOOD"))
    s, _ = pos.play(s, 0, AdjustPrice(good="CLOTHES", price=7))
    s, _ = pos.play(s, 0, AdjustPrice(good="CUTLERY", price=8))
    pos.rejected(s, 0, AdjustPrice(good="LAMPS", price=7), "price_not_adjustable")


# --- 8.6 production phase -------------------------------------------------------------------------------


def test_ex39_a_clothes_factory_with_two_complete_rows_and_distribution_2_priced_7_has_appeal_4() -> None:
    """[uses DEFAULT] clothes row 1 = 1 worker-only + 1 flexible slot, so one machine fits (C.row_slots)."""
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, rows=[(1, 1), 2], distribution=2, price=7))
    f = E.view(s, None)["players"][0]["factories"][CLOTHES]
    assert (f["quality"], f["appeal"], f["output"]) == (9, 9 + 0 + 2 - 7, 1 + 2)
    s, fx = pos.produce(s, CLOTHES)
    assert pos.one(fx, "goods_produced", seat=0).count == 3


def test_ex40_seven_numbered_empty_clothes_cells_make_a_demand_of_seven() -> None:
    """[uses DEFAULT] job-market layout (C.jm_numbered)."""
    e = pos.jm_empty_for(CLOTHES, demand=7)
    numbered_clothes = [c for c in range(e) if c % 4 == CLOTHES and C.jm_numbered[c]]
    assert len(numbered_clothes) == 7
    s = replace(pos.scene(), jm_empty=e)
    assert E.view(s, None)["job_market"]["demand"]["CLOTHES"] == 7
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, price=7))
    _, fx = pos.produce(s, CLOTHES)
    assert pos.one(fx, "sale_started").demand == 7


def test_ex41_a_player_out_of_goods_is_skipped_without_being_asked() -> None:
    """[uses DEFAULT] the demand comes from the job-market layout (C.jm_numbered)."""
    s = pos.scene()
    s = pos.with_factory(s, 0, FOOD, pos.factory(FOOD, distribution=1, price=5))  # appeal 4, produces 3
    s = replace(s, jm_empty=pos.jm_empty_for(FOOD, demand=6))
    assert pos.appeal_of(s, 0, FOOD) == 4
    after, fx = pos.produce(s, FOOD)
    assert after.phase == Phase.ACTION and after.cycle == CLOTHES  # the sale never waited for her
    assert pos.one(fx, "goods_sold", seat=0).from_production == 3
    assert pos.one(fx, "importer_sold").count == 0
    # with a stored food she would have been asked at that call
    s = pos.with_stock(pos.with_player(s, 0, wh_cols=(True, False, False, False)), 0, FOOD, 1)
    asked, _ = pos.produce(s, FOOD)
    assert (asked.phase, asked.awaiting) == (Phase.SALE, (0,))
    assert asked.sale is not None and asked.sale.sold_prod[0] == 3
    done, fx = pos.play(asked, 0, StopSelling())
    assert pos.one(fx, "goods_sold", seat=0).from_stock == 0
    assert done.players[0].stock[FOOD] == 1


def clothes_sale(demand: int = 7) -> tuple[State, tuple[Effect, ...]]:
    """WF-EX-42: M (seat 0) appeal 4 with 3 clothes at £7; H (seat 1) appeal 3 with 3 clothes;
    the clothes importer on 3; wage £2."""
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, rows=[(1, 1), 2], distribution=2, price=7))
    s = pos.with_factory(s, 1, CLOTHES, pos.factory(CLOTHES, price=6))
    s = pos.with_importer(s, CLOTHES, 3)
    s = replace(s, jm_empty=pos.jm_empty_for(CLOTHES, demand=demand, wage=2 if demand == 7 else None))
    assert (pos.appeal_of(s, 0, CLOTHES), pos.appeal_of(s, 1, CLOTHES)) == (4, 3)
    return pos.produce(s, CLOTHES)


def test_ex42_the_sales_allocation_gives_marion_3_harold_2_and_the_importer_2() -> None:
    s, fx = clothes_sale()
    assert pos.one(fx, "sale_started").demand == 7
    assert pos.one(fx, "goods_sold", seat=0).from_production == 3
    assert pos.one(fx, "goods_sold", seat=1).from_production == 2
    assert pos.one(fx, "importer_sold").count == 2
    assert pos.of_kind(fx, "goods_sold", seat=2) == []
    # the call order shows with one token less: at level 2 the importer, called last, gets none
    s, fx = clothes_sale(demand=6)
    assert pos.one(fx, "goods_sold", seat=0).from_production == 3
    assert pos.one(fx, "goods_sold", seat=1).from_production == 2
    assert pos.one(fx, "importer_sold").count == 1
    # with a higher demand Harold still sells at most 3 (appeal 3)
    s, fx = clothes_sale(demand=12)
    assert pos.one(fx, "goods_sold", seat=1).from_production == 3
    assert pos.one(fx, "importer_sold").count == 3


def test_ex43_a_food_produced_but_not_sold_goes_into_the_warehouse_if_there_is_room() -> None:
    """[uses DEFAULT] one worker beside a warehouse row opens one space per good (U-24), and the demand comes from the job-market layout (C.jm_numbered)."""
    base = pos.scene()
    base = pos.with_factory(base, 1, FOOD, pos.factory(FOOD, price=6))  # appeal 2, produces 3
    base = replace(base, jm_empty=pos.jm_empty_for(FOOD, demand=6))
    s = pos.with_player(base, 1, wh_rows=(True, False, False, False, False))
    s, fx = pos.produce(s, FOOD)
    assert pos.one(fx, "goods_sold", seat=1).from_production == 2
    stored = pos.one(fx, "goods_stored", seat=1)
    assert (stored.stored, stored.lost) == (1, 0)
    assert s.players[1].stock[FOOD] == 1
    # without warehouse room the surplus food is lost
    s, fx = pos.produce(base, FOOD)
    stored = pos.one(fx, "goods_stored", seat=1)
    assert (stored.stored, stored.lost) == (0, 1)
    assert s.players[1].stock[FOOD] == 0


def test_ex44_marion_receives_21_pounds_for_three_clothes_at_7() -> None:
    _, fx = clothes_sale()
    sold = pos.one(fx, "goods_sold", seat=0)
    assert (sold.price, sold.income) == (7, 21)
    assert pos.one(fx, "money_changed", seat=0, reason="sales").amount == 21


def test_ex46_marion_moves_up_four_share_spaces_and_harold_two() -> None:
    s, fx = clothes_sale()
    moves = {
        e.company: (e.space_from, e.space_to) for e in pos.of_kind(fx, "share_price_changed", cause="sales")
    }
    assert moves == {0: (10, 14), 1: (10, 12)}
    assert [p.share_space for p in s.players] == [14, 12, 10]


def test_ex47_three_workers_and_a_machine_at_a_wage_of_2_cost_7() -> None:
    s, fx = clothes_sale()
    paid = pos.one(fx, "wages_paid", seat=0)
    assert (paid.workers, paid.machines, paid.wage, paid.amount) == (3, 1, 2, 7)
    after_sales = pos.one(fx, "money_changed", seat=0, reason="sales").balance
    assert pos.one(fx, "money_changed", seat=0, reason="wages").amount == -7
    assert s.players[0].cash == after_sales - 7


def test_ex48_six_workers_and_three_machines_at_a_wage_of_4_cost_27_without_tiles() -> None:
    """[uses DEFAULT] a job market whose lowest empty row pays £4 (C.jm_wage_of_row).
    The foreman (£19) and workshop (£17) amounts arrive with the development tiles."""
    s = pos.scene()
    s = pos.with_factory(s, 0, LAMPS, pos.factory(LAMPS, rows=[(2, 1), (2, 1), (2, 1)]))  # appeal 0: no sale
    s = replace(s, jm_empty=pos.jm_empty_for(LAMPS, wage=4))
    c0 = pos.cash(s, 0)
    s, fx = pos.produce(s, LAMPS)
    paid = pos.one(fx, "wages_paid", seat=0)
    assert (paid.workers, paid.machines, paid.wage, paid.amount) == (6, 3, 4, 27)
    assert pos.cash(s, 0) == c0 - 27


# --- 8.7 end of round, end of game, emergency sale ---------------------------------------------------


def test_ex53_the_final_stock_exchange_buys_three_shares_at_22_and_four_are_too_many() -> None:
    s = pos.with_player(pos.new_1770(3), 0, share_space=36, shares=16, bank_shares=14, cash=84, loans=0)
    s, _ = pos.at_phase(s, Phase.FINAL_STOCK_EXCHANGE, decade=1810, cycle=-1, start_player=0)
    assert s.awaiting == (0,)
    pos.rejected(s, 0, BuyShares(count=4), "cannot_afford")  # £88 > £84
    s, fx = pos.play(s, 0, BuyShares(count=3))
    assert pos.one(fx, "shares_changed").price == 22
    assert (s.players[0].shares, s.players[0].cash, s.players[0].share_space) == (19, 18, 36)


def test_ex54_five_workers_for_four_obsolete_factories_go_one_per_factory_in_turn_order() -> None:
    """[uses DEFAULT] level I becomes obsolete on entering 1790, and the wage of an empty job
    market (C.obsolete_level_on_entering, C.jm_wage_of_row)."""
    (entering, lvl), *_ = sorted(C.obsolete_level_on_entering.items())
    newer = lvl + 1
    s = pos.scene()
    s = pos.with_factories(
        s, 0, {FOOD: pos.factory(FOOD, level=lvl), CLOTHES: pos.factory(CLOTHES, level=newer)}
    )  # M
    s = pos.with_factories(s, 1, {FOOD: pos.factory(FOOD, level=lvl)})  # A
    s = pos.with_factories(
        s, 2, {FOOD: pos.factory(FOOD, level=lvl), CUTLERY: pos.factory(CUTLERY, level=lvl)}
    )  # H
    c0 = [pos.cash(s, i) for i in range(3)]
    s, fx = pos.at_phase(
        s,
        Phase.OBSOLESCENCE,
        decade=entering - 10,
        cycle=-1,
        start_player=0,
        fired=2,
        jm_empty=C.jm_cells - 3,
    )
    got = {(e.seat, e.good): (e.workers, e.fee) for e in pos.of_kind(fx, "factory_obsolete")}
    fee = pos.wage_at(C.jm_cells)
    assert fee == 5  # STATED: "the current wage of £5"
    assert got == {
        (0, "FOOD"): (2, 0),
        (1, "FOOD"): (1, fee),
        (2, "FOOD"): (1, fee),
        (2, "CUTLERY"): (1, fee),
    }
    ps = s.players
    assert (ps[0].factories[FOOD].obsolete_workers, ps[1].factories[FOOD].obsolete_workers) == (2, 1)  # type: ignore[union-attr]
    assert (ps[2].factories[FOOD].obsolete_workers, ps[2].factories[CUTLERY].obsolete_workers) == (1, 1)  # type: ignore[union-attr]
    assert ps[0].factories[CLOTHES].obsolete is False  # type: ignore[union-attr]
    assert [c0[i] - pos.cash(s, i) for i in range(3)] == [0, 5, 10]
    assert (s.fired, s.jm_empty, s.decade) == (0, C.jm_cells, entering)


def payday(
    scene: State, good: int, built: Factory, wage: int, **player: Any
) -> tuple[State, tuple[Effect, ...]]:
    """The first player owns only ``built`` (her money as ``player`` says) when ``good`` is
    produced at this wage: the production and what it made her pay and sell."""
    s = pos.with_factory(scene, 0, good, built)
    s = pos.with_player(s, 0, **player)
    s = replace(s, jm_empty=pos.jm_empty_for(good, wage=wage))
    return pos.produce(s, good)


def test_ex55_an_emergency_sale_of_two_shares_on_space_28_raises_38_and_drops_to_24() -> None:
    """The £30 are the wages of 10 food workers at £3 ([uses DEFAULT] wage rows, C.jm_wage_of_row)."""
    ten = pos.factory(FOOD, rows=full_rows_food())  # 10 workers, appeal 0
    s, fx = payday(pos.scene(), FOOD, ten, 3, share_space=28, cash=0, shares=5, bank_shares=25)
    assert pos.one(fx, "wages_paid", seat=0).amount == 30
    sale = pos.one(fx, "shares_changed", seat=0, reason="emergency_sale")
    assert (sale.delta, sale.price) == (-2, 19)
    assert pos.one(fx, "money_changed", seat=0, reason="emergency_sale").amount == 38
    p = s.players[0]
    assert (p.share_space, p.cash, p.shares, p.loans) == (24, 8, 3, 0)


def full_rows_food() -> list[int]:
    return [C.slots(FOOD, r) for r in range(4)]


def test_ex57_nineteen_shares_on_space_41_score_456_without_a_contract() -> None:
    """The unfulfilled contract on space 6 (score £418) arrives with the contracts."""
    s = pos.with_player(pos.new_1770(3), 0, share_space=41, shares=16, bank_shares=14, cash=80, loans=0)
    s, _ = pos.at_phase(s, Phase.FINAL_STOCK_EXCHANGE, decade=1810, cycle=-1, start_player=0)
    s, bought = pos.play(s, 0, BuyShares(count=3))
    assert pos.one(bought, "shares_changed").price == 24
    assert (s.players[0].shares, s.players[0].cash) == (19, 80 - 72)
    s, fx = pos.all_done(s)
    assert s.phase == Phase.FINISHED
    assert s.scores[0] == 19 * 24 == 456
    assert pos.one(fx, "game_scored").winners == (0,)


# --- 8.8 derived tests ----------------------------------------------------------------------------------


def test_dt02_distribution_decay_below_appeal_zero_drops_the_price_and_the_share_value() -> None:
    s = pos.scene()
    s = pos.with_factory(s, 0, CLOTHES, pos.factory(CLOTHES, distribution=1, price=10))  # 9 + 1 - 10 = 0
    assert pos.appeal_of(s, 0, CLOTHES) == 0
    s, fx = pos.produce(s, CLOTHES)
    f = s.players[0].factories[CLOTHES]
    assert f is not None and (f.distribution, f.price) == (0, 9)
    assert pos.appeal_of(s, 0, CLOTHES) == 0
    assert pos.one(fx, "distribution_decayed", seat=0).forced_price_drop is True
    assert s.players[0].share_space == 9


def test_dt03_the_importer_tops_up_to_its_position_while_tokens_last() -> None:
    """[uses DEFAULT] the demand of 10 comes from the job-market layout (C.jm_numbered)."""
    s = pos.scene()
    s = pos.with_factory(s, 0, FOOD, pos.factory(FOOD, rows=[1, 2], price=6))  # appeal 2, produces 2
    s = pos.with_importer(s, FOOD, 3)
    s = replace(s, jm_empty=pos.jm_empty_for(FOOD, demand=10))
    s, fx = pos.produce(s, FOOD)
    assert pos.one(fx, "sale_started").demand == 10
    assert pos.one(fx, "goods_sold", seat=0).from_production == 2
    assert pos.one(fx, "importer_sold").count == 3  # 5 tokens go back to the supply
    assert s.players[0].share_space == 12  # sold 2; no bonus: the importer beats both


def tie_scene(x_quality: int) -> tuple[State, tuple[Effect, ...]]:
    s = pos.scene()
    x = pos.factory(CLOTHES, rows=[1, 2], quality=x_quality, price=9 + x_quality - 2)  # appeal 2, produces 2
    y = pos.factory(CLOTHES, rows=[1, 2], quality=1, price=8)  # quality 10, appeal 2, produces 2
    s = pos.with_factory(pos.with_factory(s, 0, CLOTHES, x), 1, CLOTHES, y)
    s = replace(s, jm_empty=pos.jm_empty_for(CLOTHES, demand=3))
    return pos.produce(s, CLOTHES)


def test_dt04_fully_tied_players_both_take_the_last_token() -> None:
    """[uses DEFAULT] the demand of 3 comes from the job-market layout (C.jm_numbered)."""
    s, fx = tie_scene(x_quality=1)
    assert pos.one(fx, "sale_started").demand == 3
    assert pos.one(fx, "goods_sold", seat=0).from_production == 2
    assert pos.one(fx, "goods_sold", seat=1).from_production == 2
    assert pos.one(fx, "importer_sold").count == 0
    assert [p.share_space for p in s.players] == [12, 12, 10]


def test_dt05_higher_quality_breaks_an_appeal_tie() -> None:
    s, fx = tie_scene(x_quality=2)
    assert pos.one(fx, "goods_sold", seat=0).from_production == 2
    assert pos.one(fx, "goods_sold", seat=1).from_production == 1
    assert [p.share_space for p in s.players] == [10 + 2 + 1, 10 + 1, 10]  # X sold the most


@pytest.mark.parametrize(("mode", "space"), [("leading", 1), ("tens", 9)])
def test_dt07_an_emergency_sale_on_space_9_drops_nine_spaces_to_the_bottom(mode: str, space: int) -> None:
    """[uses DEFAULT] track bounds (C.share_min) and the literal first-digit rule (A-11);
    the "tens" switch loses nothing on single-digit spaces."""
    scene = pos.scene(emergency_digit_mode=mode)
    two = pos.factory(FOOD, rows=[(1, 1), 1])  # 2 workers + 1 machine, appeal 0
    s, fx = payday(scene, FOOD, two, 2, share_space=9, shares=3, bank_shares=27, cash=0)
    assert pos.one(fx, "wages_paid", seat=0).amount == 5
    sale = pos.one(fx, "shares_changed", seat=0, reason="emergency_sale")
    assert (sale.delta, sale.price) == (-1, 9)
    p = s.players[0]
    assert (p.share_space, p.cash, p.shares) == (space, 4, 2)
    if mode == "leading":
        assert space == max(C.share_min, 9 - 9)


def test_dt08_without_shares_a_shortfall_is_met_by_loans_repaid_at_13_before_buying() -> None:
    """The £15 are the wages of 5 cutlery workers at £3 ([uses DEFAULT] wage rows, C.jm_wage_of_row)."""
    five = pos.factory(CUTLERY)  # 5 workers, appeal 0
    s, fx = payday(pos.scene(), CUTLERY, five, 3, share_space=10, shares=0, bank_shares=30, cash=3)
    assert pos.one(fx, "wages_paid", seat=0).amount == 15
    assert pos.one(fx, "loans_changed", seat=0).delta == 2
    p = s.players[0]
    assert (p.loans, p.cash, p.share_space) == (2, 8, 8)

    s = pos.with_player(s, 0, cash=40)
    s, _ = pos.start_turn(s, 0, "STOCK_EXCHANGE", 2)
    pos.rejected(s, 0, BuyShares(count=1), "loans_first")
    s, fx = pos.play(s, 0, RepayLoans(count=2))
    assert pos.one(fx, "money_changed", seat=0, reason="loan_repayment").amount == -26
    s, _ = pos.play(s, 0, BuyShares(count=1))  # space 8: at least £10
    assert (s.players[0].loans, s.players[0].shares, s.players[0].cash) == (0, 1, 38 - 26 - 10)


def test_dt09_hiring_in_1810_into_an_already_active_factory_costs_4_spaces_and_2_shares() -> None:
    s = replace(pos.new_1770(3), decade=1810, goods_done=(FOOD,))
    s, _ = pos.start_turn(s, 0, "WORKERS", 2, cycle=CLOTHES)
    s, _ = pos.play(s, 0, HireWorkers(good="FOOD", row=3, count=1))
    s, _ = pos.play(s, 0, HireWorkers(good="CLOTHES", row=3, count=1))
    fs = s.players[0].factories
    assert (fs[FOOD].marker_worker, fs[CLOTHES].marker_worker) == (True, False)  # type: ignore[union-attr]
    assert fs[FOOD].rows[0] == Row(2, 0)  # type: ignore[union-attr]  # still counted in row 1
    space0, shares0 = s.players[0].share_space, s.players[0].shares
    s, _ = pos.at_phase(s, Phase.FINAL_STOCK_EXCHANGE, cycle=-1)
    s, fx = pos.all_done(s)
    penalty = pos.one(fx, "end_penalty", seat=0)
    assert (penalty.spaces, penalty.shares) == (4, 2)
    assert (s.players[0].share_space, s.players[0].shares) == (space0 - 4, shares0 - 2)
    assert s.scores[0] == (shares0 - 2) * C.share_value(space0 - 4)
    assert (s.players[1].share_space, s.players[1].shares) == (10, 9)


@pytest.mark.parametrize(("cash_a", "chooser"), [(20, 3), (19, 1)])
def test_dt10_tied_lowest_portfolios_go_to_less_cash_then_farthest_clockwise(
    cash_a: int, chooser: int
) -> None:
    s = pos.new_1770(4)
    s = pos.with_player(s, 0, shares=15, bank_shares=15, share_space=10, cash=5)
    s = pos.with_player(s, 1, shares=5, bank_shares=25, share_space=10, cash=cash_a)  # A
    s = pos.with_player(s, 2, shares=15, bank_shares=15, share_space=10, cash=5)
    s = pos.with_player(s, 3, shares=5, bank_shares=25, share_space=10, cash=20)  # B
    s, _ = pos.at_phase(s, Phase.START_PLAYER, cycle=-1, start_player=0)
    assert (s.phase, s.awaiting) == (Phase.START_PLAYER, (chooser,))
    other = 4 - chooser
    pos.rejected(s, other, ChooseStartPlayer(seat=other), "not_your_turn")
    s, fx = pos.play(s, chooser, ChooseStartPlayer(seat=0))  # the current start player may be named
    assert pos.one(fx, "start_player_changed").seat == 0
    assert (s.start_player, s.decade) == (0, 1780)


def test_dt12_after_bureaucracy_the_2_space_is_closed_without_the_administrator() -> None:
    s = pos.new(4, predetermined=True)
    decade = next(d for d, e in C.events_predetermined.items() if e == C.event_bureaucracy)
    s = replace(s, decade=decade)
    before, _ = pos.start_turn(s, 0, "FACTORY", 2)  # still legal before the event
    assert before.turn is not None
    s, fx = pos.at_phase(s, Phase.RETURN_MARKERS, cycle=-1)
    assert pos.one(fx, "event_revealed").event == C.event_bureaucracy
    s, _ = pos.play(s, s.awaiting[0], ChooseStartPlayer(seat=0))
    assert (s.decade, s.phase, s.awaiting, s.bureaucracy) == (decade + 10, Phase.ACTION, (0,), True)
    pos.rejected(s, 0, PlaceMarker(action="FACTORY", space=2), "bureaucracy")
    s, fx = pos.play(s, 0, PlaceMarker(action="FACTORY", space=4))
    assert pos.one(fx, "marker_placed").cost == 4


def test_dt13_modernizing_to_the_current_level_releases_the_obsolete_workers() -> None:
    """[uses DEFAULT] 1790 is level III (C.level_of_decade)."""
    decade = next(d for d, lvl in sorted(C.level_of_decade.items()) if lvl == 3)
    s = replace(pos.new_1770(3), decade=decade)
    s = pos.with_factory(s, 0, FOOD, pos.factory(FOOD, level=1, price=5, obsolete_workers=2, obsolete=True))
    s, _ = pos.start_turn(s, 0, "FACTORY", 2)
    fired0 = s.fired
    s, fx = pos.play(s, 0, ModernizeFactory(good="FOOD"))  # level II, still below III
    f = s.players[0].factories[FOOD]
    assert f is not None and (f.level, f.obsolete_workers, f.obsolete) == (2, 2, True)
    assert s.fired == fired0 and pos.one(fx, "factory_modernized").obsolete_released == 0
    s, fx = pos.play(s, 0, ModernizeFactory(good="FOOD"))  # level III = the current level
    f = s.players[0].factories[FOOD]
    assert f is not None and (f.level, f.obsolete_workers, f.obsolete) == (3, 0, False)
    assert s.fired == fired0 + 2 and pos.one(fx, "factory_modernized").obsolete_released == 2


def test_dt14_the_default_job_market_gives_wage_2_and_clothes_demand_8_at_42_and_wage_5_when_empty() -> None:
    """[uses DEFAULT] this test pins the default job market of spec §7.6 (U-13..U-15)."""
    s = pos.new_1770(4)
    jm = E.view(replace(s, jm_empty=42), None)["job_market"]
    assert (jm["wage"], jm["demand"]["CLOTHES"]) == (2, 8)
    assert jm["demand"] == {"FOOD": 8, "CLOTHES": 8, "CUTLERY": 7, "LAMPS": 8}
    assert E.view(replace(s, jm_empty=80), None)["job_market"]["wage"] == 5
    assert (C.jm_cells, pos.wage_at(42), pos.demand_at(42, CLOTHES), pos.wage_at(80)) == (80, 2, 8, 5)


@pytest.mark.parametrize(
    ("top_up", "bystander", "importer", "steps"),
    [(True, False, 2, 3), (False, False, 0, 4), (False, True, 0, 4)],
    ids=["top-up", "r16-literal", "r16-literal-with-a-non-seller"],
)
def test_dt15_the_importer_top_up_switch_decides_the_most_goods_bonus(
    top_up: bool, bystander: bool, importer: int, steps: int
) -> None:
    """With ``bystander`` a second player owns a food factory of appeal 0: he is no seller
    (spec §5.5.1: ``sellers`` are the owners with appeal >= 1, [D14] "mindestens 1"), so the
    R16-literal sale still ends once X is sold out."""
    s = pos.scene(importer_top_up=top_up)
    s = pos.with_factory(
        s, 0, FOOD, pos.factory(FOOD, rows=[1, 2], quality=2, price=5)
    )  # appeal 5, produces 2
    if bystander:
        s = pos.with_factory(s, 1, FOOD, pos.factory(FOOD))  # appeal 0: produces 3, sells nothing
    s = pos.with_importer(s, FOOD, 3)
    s = replace(s, jm_empty=pos.jm_empty_for(FOOD, demand=4))
    assert pos.appeal_of(s, 0, FOOD) == 5
    s, fx = pos.produce(s, FOOD)
    assert pos.one(fx, "goods_sold", seat=0).from_production == 2
    assert pos.of_kind(fx, "goods_sold", seat=1) == []
    assert pos.one(fx, "importer_sold").count == importer
    assert s.players[0].share_space == 10 + steps


def test_dt16_firing_and_hiring_on_the_same_row_in_one_action_is_illegal_in_either_order() -> None:
    base = pos.new_1770(3)
    base = pos.with_factory(base, 0, CLOTHES, pos.factory(CLOTHES, price=6))  # rows 1-2 full, 3-4 empty
    base = pos.with_factory(
        base, 0, CUTLERY, pos.factory(CUTLERY, rows=[2, 2], price=8)
    )  # row 2: one free slot

    s, _ = pos.start_turn(base, 0, "WORKERS", 2)
    s, fx = pos.play(s, 0, FireWorkers(good="CLOTHES", count=1))  # leaves row 2
    assert s.players[0].factories[CLOTHES].rows[1] == Row(1, 0)  # type: ignore[union-attr]
    pos.rejected(s, 0, HireWorkers(good="CLOTHES", row=2, count=1), "fired_and_hired")
    s, _ = pos.play(s, 0, HireWorkers(good="CUTLERY", row=2, count=1))  # another factory: legal
    assert s.players[0].factories[CUTLERY].rows[1] == Row(3, 0)  # type: ignore[union-attr]

    # hire first (row 2 with a free slot), then fire from it
    s = pos.with_factory(base, 0, CLOTHES, pos.factory(CLOTHES, rows=[2, 1], price=6))
    s, _ = pos.start_turn(s, 0, "WORKERS", 2)
    s, _ = pos.play(s, 0, HireWorkers(good="CLOTHES", row=2, count=1))
    pos.rejected(s, 0, FireWorkers(good="CLOTHES", count=1), "fired_and_hired")
