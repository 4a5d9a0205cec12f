"""Arkwright: The Card Game worked examples ACG-EX-01..22 (shared/rules/arkwright-card-game.md §7).

Examples that rest on an assumed default ([U] in the spec) say so and read the value from the
component data instead of repeating it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.engine import DrawOutcome
from ledger.games.arkwright_card_game import rules
from ledger.games.arkwright_card_game.components import RESERVE
from ledger.games.arkwright_card_game.decisions import (
    BreakTieWithEntrepreneur,
    BuildFactory,
    BuyShares,
    BuyStartingShares,
    FinishProduction,
    HireWorker,
    SellGoods,
    SetDistributionCard,
    SetPriceAndAppeal,
    SetQualityCard,
    UpgradeFactory,
)
from ledger.games.arkwright_card_game.economy import allowed_sales, total_at
from ledger.games.arkwright_card_game.meta import CardGameOptions as Options
from ledger.games.arkwright_card_game.state import Phase, Production
from ledger.rng import permutation
from tests import acg_positions as pos
from tests.acg_positions import CLOTHES, CUTLERY, FOOD, LAMPS, C, E


def test_ex01_rafael_flips_his_distribution_card_from_1_to_3() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.cards(s, 0, "distribution", {"D1": ("FOOD", 1, "APPEAL")})
    s = pos.in_action(s, 0, "DISTRIBUTION")
    assert C.track_value(1, 0) == 2, "distribution level 0 allows 2 per action [S]"
    s, fx = pos.play(s, 0, SetDistributionCard(card="D1", good="FOOD", value=3))
    assert total_at(s.players[0].distribution, FOOD) == 3
    assert pos.kinds(fx, "distribution_card_set")[0].value == 3


def _sebastian(quality_level: int):  # type: ignore[no-untyped-def]
    s = pos.open_factory(pos.open_factory(pos.scene(), 0, CLOTHES), 0, LAMPS)
    s = pos.cards(s, 0, "quality", {"Q1": ("CLOTHES", 1, "APPEAL"), "Q3": ("LAMPS", 3, "APPEAL")})
    s = pos.level(s, 0, "QUALITY", quality_level)
    return pos.in_action(s, 0, "QUALITY")


def test_ex02_sebastian_rotates_one_card_and_adds_another_to_reach_3_quality() -> None:
    s = _sebastian(1)
    s, _ = pos.play(
        s,
        0,
        SetQualityCard(card="Q1", good="CLOTHES", value=2, mode="APPEAL"),
        SetQualityCard(card="Q2", good="CLOTHES", value=1, mode="APPEAL"),
    )
    assert total_at(s.players[0].quality, CLOTHES) == 3
    assert total_at(s.players[0].quality, LAMPS) == 3


def test_ex02_with_quality_level_0_only_one_quality_may_be_added() -> None:
    s = _sebastian(0)
    s, _ = pos.play(s, 0, SetQualityCard(card="Q1", good="CLOTHES", value=2, mode="APPEAL"))
    pos.violates(s, 0, SetQualityCard(card="Q2", good="CLOTHES", value=1, mode="APPEAL"), "quality_allowance")


def test_ex03_eva_moves_a_card_from_food_to_clothes_and_puts_the_3_on_food() -> None:
    s = pos.open_factory(pos.open_factory(pos.scene(), 0, CLOTHES), 0, FOOD)
    s = pos.cards(s, 0, "quality", {"Q1": ("CLOTHES", 2, "APPEAL"), "Q2": ("FOOD", 2, "APPEAL")})
    s = pos.in_action(pos.level(s, 0, "QUALITY", 1), 0, "QUALITY")
    s, _ = pos.play(
        s,
        0,
        SetQualityCard(card="Q2", good=None),
        SetQualityCard(card="Q3", good="FOOD", value=3, mode="APPEAL"),
        SetQualityCard(card="Q2", good="CLOTHES", value=1, mode="APPEAL"),
    )
    q = s.players[0].quality
    assert (total_at(q, FOOD), total_at(q, CLOTHES)) == (3, 3)


def _wim(**options):  # type: ignore[no-untyped-def]
    s = pos.scene(**options)
    for g in (FOOD, CLOTHES, CUTLERY):
        s = pos.open_factory(s, 0, g)
    s = pos.give_card(s, 0, "ENGINEER")
    s = pos.cards(
        s,
        0,
        "quality",
        {
            "ENGINEER": ("FOOD", 5, "APPEAL"),
            "Q3": ("CLOTHES", 4, "APPEAL"),
            "Q1": ("CUTLERY", 1, "APPEAL"),
            "Q2": ("CUTLERY", 2, "APPEAL"),
        },
    )
    return pos.in_action(pos.level(s, 0, "QUALITY", 1), 0, "QUALITY")


@pytest.mark.parametrize("reading", ["each_1_to_4", "two_low_one_high"])
def test_ex04_wim_swaps_the_engineer_and_loses_the_decreased_food_quality(reading: str) -> None:
    """Both A-38 readings of the quality cards' values (ACG-U-23) fit Example 4."""
    s = _wim(quality_cards=reading)
    flip = (
        SetQualityCard(card="Q2", good="CUTLERY", value=3, mode="APPEAL")
        if reading == "each_1_to_4"
        else SetQualityCard(card="Q1", good="CUTLERY", value=2, mode="APPEAL")
    )
    s, _ = pos.play(
        s,
        0,
        flip,
        SetQualityCard(card="Q3", good=None),
        SetQualityCard(card="ENGINEER", good="CLOTHES", value=5, mode="APPEAL"),
        SetQualityCard(card="Q3", good="FOOD", value=4, mode="APPEAL"),
    )
    q = s.players[0].quality
    assert (total_at(q, FOOD), total_at(q, CLOTHES), total_at(q, CUTLERY)) == (4, 5, 4)


def test_ex04_wim_may_not_use_the_decreased_food_quality_to_turn_the_engineer_to_6() -> None:
    s = _wim()
    s, _ = pos.play(
        s,
        0,
        SetQualityCard(card="Q2", good="CUTLERY", value=3, mode="APPEAL"),
        SetQualityCard(card="Q3", good=None),
    )
    pos.violates(
        s, 0, SetQualityCard(card="ENGINEER", good="CLOTHES", value=6, mode="APPEAL"), "quality_allowance"
    )


def test_ex05_eva_sets_clothes_to_price_4_and_appeal_7_passing_4_red_arrows() -> None:
    s = pos.scene(round=2)  # clothes is the active good
    s = pos.open_factory(s, 0, CLOTHES, pos.factory(side=1, spot=1), appeal=3)
    s = pos.cards(s, 0, "distribution", {"D1": ("CLOTHES", 2, "APPEAL")})
    assert C.side(CLOTHES, 1).spots[2] == (4, 1), "[S] spot 3 of clothes decade I: price 4, appeal 1"
    assert C.office[CLOTHES][1] == 4, "[S] the office card rotated to 4 appeal"
    d = s.demand[CLOTHES]
    s, fx = pos.play(pos.at_step(s, 0, "b"), 0, SetPriceAndAppeal(spot=3, office="APPEAL"))
    (setting,) = pos.kinds(fx, "price_and_appeal_set")
    assert (setting.price, setting.appeal) == (4, 7)
    (moved,) = pos.kinds(fx, "appeal_marker_moved")
    assert (moved.appeal_from, moved.appeal_to, moved.arrows) == (3, 7, 4)
    assert s.demand[CLOTHES] == d + 4
    assert s.turn is not None and s.turn.step == "c"


def test_ex06_a_decade_one_factory_with_its_first_worker_card_produces_4() -> None:
    """Factory and worker-card goods icons are assumed defaults (ACG-U-04, ACG-U-07)."""
    s = pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]))
    s, fx = pos.producing(s, FOOD)
    expected = C.side(FOOD, 1).goods + C.worker_cards[1].sides[1]
    assert expected == 4, "the rulebook's production figure '= 4'"
    assert pos.kinds(fx, "goods_produced")[0].count == expected


def test_ex07_appeal_5_against_demand_3_allows_2_home_sales() -> None:
    s = replace(
        pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]), appeal=5),
        demand=(3, 0, 0, 0),
    )
    s, fx = pos.producing(s, FOOD)
    (sale,) = pos.kinds(fx, "goods_sold")
    assert (sale.allowed, sale.from_production) == (2, 2)


def test_ex08_price_14_times_2_goods_is_28() -> None:
    """Lamps decade II spot 4 and the office price are assumed defaults (ACG-U-04, ACG-U-05)."""
    s = pos.scene(decade=2)
    s = pos.open_factory(s, 0, LAMPS, pos.factory(side=2, spot=4), appeal=2)
    s = pos.cards(s, 0, "quality", {"Q1": ("LAMPS", 1, "PRICE")})
    s = pos.cards(s, 0, "distribution", {"D1": ("LAMPS", 2, "APPEAL")})
    price = C.side(LAMPS, 2).spots[3][0] + C.office[LAMPS][0] + 1
    assert price == 14
    s, fx = pos.producing(s, LAMPS)
    (sale,) = pos.kinds(fx, "goods_sold")
    assert (sale.price, sale.from_production, sale.income) == (14, 2, 28)
    assert s.players[0].money == C.start_money + 28


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_ex09_the_expert_supply_of_3_players_has_17_cards_at_most_2_of_a_type(seed: int) -> None:
    """Whatever the shuffle and the faces (their pairings are assumed defaults, ACG-U-22)."""
    s = E.new_game(Options(random_dev_supply=True), 3)
    s, _ = E.apply_draw(s, DrawOutcome("start_player", (0,)))
    req = s.draws[0]
    order = tuple(range(len(req.items))) if seed == 0 else permutation(bytes([seed]) * 32, 0, len(req.items))
    s, fx = E.apply_draw(s, DrawOutcome(req.key, order))
    types = [C.card_type(c) for c in s.supply]
    assert len(types) == 5 + 12 == 17
    assert max(types.count(t) for t in set(types)) <= 2
    assert types.count("ENTREPRENEUR") == 1 and types.count("ENGINEER") == 2 and types.count("PATENT") == 2
    assert pos.kinds(fx, "development_supply_built")


def test_ex10_two_engineers_in_a_3_player_game_the_third_in_the_box() -> None:
    s, _ = pos.settle_draws(E.new_game(Options(random_dev_supply=True), 3))
    assert [C.card_type(c) for c in s.supply].count("ENGINEER") == 2
    assert [C.card_type(c) for c in s.box].count("ENGINEER") == 1


def test_ex11_starting_shares_3_cost_30_and_6_are_too_many() -> None:
    s, _ = pos.settle_draws(E.new_game(Options(starting_shares=True), 2))
    assert s.phase == Phase.START_FOREMAN
    s = pos.new(2, starting_shares=True)
    assert s.phase == Phase.START_SHARES and s.awaiting == (0,)
    pos.violates(s, 0, BuyStartingShares(count=6), "cannot_afford")
    s, _ = pos.play(s, 0, BuyStartingShares(count=3))
    assert (s.players[0].shares, s.players[0].money) == (3, 20)


def test_ex12_the_two_player_neutral_moves_up_at_the_end_of_decades_one_and_two() -> None:
    """The arrows on every boundary from 3|4 up are assumed defaults (ACG-U-06)."""
    assert 3 in C.arrows_up[2][FOOD] and 2 not in C.arrows_up[2][CUTLERY]
    s = pos.new(2)
    assert s.neutral == (3, 3, 2, 2)
    s = replace(s, round=4, phase=Phase.END_OF_ROUND, turn=None, awaiting=(), demand=(0, 0, 0, 0))
    s, _ = rules.resume(s)
    assert s.neutral == (4, 4, 3, 3) and s.decade == 2
    assert s.demand == (1, 1, 0, 0), "red arrows (ACG-U-06) passed by food and clothes"
    s = replace(s, round=4, phase=Phase.END_OF_ROUND, awaiting=(), demand=(0, 0, 0, 0))
    s, _ = rules.resume(s)
    assert s.neutral == (5, 5, 4, 4) and s.demand == (1, 1, 1, 1)


def test_ex13_the_stock_exchange_discount_is_half_the_share_value_rounded_up() -> None:
    s = pos.set_player(pos.level(pos.scene(), 0, "STOCK_EXCHANGE", 1), 0, share_value=15, money=30)
    s, _ = pos.play(pos.in_action(s, 0, "STOCK_EXCHANGE"), 0, BuyShares(discounted=1, full=1))
    assert (s.players[0].money, s.players[0].shares) == (7, 2)
    s = pos.set_player(pos.level(pos.scene(), 0, "STOCK_EXCHANGE", 2), 0, share_value=15, money=30)
    s, _ = pos.play(pos.in_action(s, 0, "STOCK_EXCHANGE"), 0, BuyShares(discounted=2, full=0))
    assert s.players[0].money == 30 - 16


def test_ex14_the_emergency_fund_pays_half_the_share_value_per_token() -> None:
    """Costs 12 = 4 workers at the first wage (ACG-U-02) plus the lamps fixed cost (ACG-U-04)."""
    s = pos.scene(round=4)
    s = pos.open_factory(s, 0, LAMPS, pos.factory(workers=[(1, 1, 0), (2, 1, 0)]))
    s = pos.set_player(s, 0, money=3, share_value=11)
    assert 4 * C.wage(s.wage) + C.side(LAMPS, 1).fixed_cost == 12
    s, _ = pos.producing(s)
    s, fx = pos.play(s, 0, FinishProduction())
    (fund,) = pos.kinds(fx, "emergency_fund_used")
    assert (fund.tokens, fund.amount) == (2, 12)
    assert (s.players[0].money, s.players[0].loans) == (3, 2)


def _tie(entrepreneur: bool):  # type: ignore[no-untyped-def]
    s = pos.scene(n=3)
    for seat, appeal in enumerate((6, 6, 9)):
        s = pos.open_factory(s, seat, FOOD, appeal=appeal)
    if entrepreneur:
        s = pos.give_card(s, 1, "ENTREPRENEUR")
    pr = Production(
        good=FOOD,
        order=(0, 1, 2),
        cursor=3,
        produced=(3, 2, 2),
        extra_shift=(False,) * 3,
        patron=(False,) * 3,
        sold=(3, 2, 1),
        leftover=(0, 0, 0),
        shipped=(0, 0, 0),
    )
    return rules.resume(replace(s, phase=Phase.PRODUCTION, production=pr, awaiting=()))


def test_ex15_a_tie_for_the_highest_appeal_gives_no_bonus() -> None:
    s, _ = _tie(entrepreneur=False)
    assert [p.share_value for p in s.players] == [11, 11, 10]


def test_ex15_the_entrepreneur_breaks_the_tie_once_per_decade() -> None:
    s, _ = _tie(entrepreneur=True)
    assert s.phase == Phase.PRODUCTION and s.awaiting == (1,)
    s, fx = pos.play(s, 1, BreakTieWithEntrepreneur(use=True))
    assert [p.share_value for p in s.players] == [11, 12, 10]
    assert s.players[1].cards[0].rotated
    assert pos.kinds(fx, "card_rotated")[0].card == "ENTREPRENEUR"


def test_ex16_stored_goods_top_up_a_short_production_and_the_storehouse_returns() -> None:
    """A decade-II food factory produces 3 (ACG-U-04)."""
    s = pos.scene(decade=2)
    s = pos.open_factory(s, 0, FOOD, pos.factory(side=2), appeal=5)
    s = pos.stored(s, 0, "S1", FOOD, 2)
    assert C.side(FOOD, 2).goods == 3
    s, _ = pos.producing(s, FOOD)
    assert s.awaiting == (0,)
    s, fx = pos.play(s, 0, SellGoods(from_storage=2))
    (sale,) = pos.kinds(fx, "goods_sold")
    assert (sale.allowed, sale.from_production, sale.from_storage) == (5, 3, 2)
    assert s.players[0].storehouses[0].good == RESERVE


def test_ex17_production_costs_with_foreman_workshop_and_developer() -> None:
    """Wage £5 at track position 9 and the lamps fixed cost £4 are assumed defaults (ACG-U-02, U-04)."""
    s = replace(pos.scene(round=4), wage=C.wage_values.index(5))
    s = pos.open_factory(s, 0, LAMPS, pos.factory(workers=[(1, 1, 2), (2, 1, 0)]))
    s = pos.level(s, 0, "DEV_CARDS", 1)
    for kind in ("WORKSHOP", "DEVELOPER"):
        s = pos.give_card(s, 0, kind)
    s = pos.give_card(s, 0, "FOREMAN", good=LAMPS)
    assert C.side(LAMPS, 1).fixed_cost == 4
    s, _ = pos.producing(s)
    s, fx = pos.play(s, 0, FinishProduction())
    (paid,) = pos.kinds(fx, "production_costs_paid")
    assert (paid.wages, paid.maintenance, paid.fixed, paid.total) == (6, 0, 2, 8)


def test_ex18_final_scoring_sells_stored_goods_buys_shares_and_takes_the_penalties() -> None:
    """Stored goods fetch £2 at the end (ACG-U-18); one share-value step per shipping token (ACG-U-17)."""
    s = replace(pos.scene(decade=3, round=4), phase=Phase.END_OF_ROUND)
    s = pos.open_factory(s, 0, FOOD)
    s = pos.stored(s, 0, "S1", FOOD, 1)
    s = pos.set_player(s, 0, money=95, share_value=20, shares=6, loans=2, shipping_tokens=3)
    s, _ = rules.resume(s)
    p = s.players[0]
    assert (C.store_price, C.ship_penalty) == (2, 1)
    assert (p.money, p.shares, p.share_value, s.scores[0]) == (17, 8, 17, 136)
    first = next(x for x in E.standings(s) if x.seat == 0)
    assert first.score == (1, 136, 17)


def test_ex19_the_decade_start_chooser_is_the_lowest_score_then_money_then_clockwise() -> None:
    s = pos.scene(n=3, round=4, start=2)
    s = pos.set_player(s, 0, share_value=10, shares=6, money=10)
    s = pos.set_player(s, 1, share_value=10, shares=4, money=12)
    s = pos.set_player(s, 2, share_value=20, shares=2, money=12)
    assert rules.decade_start_chooser(s) == 2
    s, _ = rules.resume(replace(s, phase=Phase.END_OF_ROUND))
    assert s.phase == Phase.CHOOSE_START and s.awaiting == (2,)


@pytest.mark.parametrize(
    ("good", "legal"), [("FOOD", False), ("CLOTHES", False), ("CUTLERY", True), ("LAMPS", True)]
)
def test_ex20_in_decade_three_round_three_only_cutlery_and_lamps_are_built_or_staffed(
    good: str, legal: bool
) -> None:
    s = pos.scene(decade=3, round=3)
    s2 = pos.in_action(s, 0, "BUILD")
    if legal:
        s3, _ = pos.play(s2, 0, BuildFactory(good=good))  # type: ignore[arg-type]
        assert s3.players[0].factories[C.goods.index(good)] is not None
    else:
        pos.violates(s2, 0, BuildFactory(good=good), "will_not_produce")  # type: ignore[arg-type]
    s = pos.open_factory(s, 0, good, pos.factory(side=2))
    s = pos.open_factory(s, 0, "LAMPS" if good != "LAMPS" else "CUTLERY", pos.factory(side=2))
    s = pos.in_action(s, 0, "EMPLOY")
    if legal:
        pos.play(s, 0, HireWorker(good=good))  # type: ignore[arg-type]
    else:
        pos.violates(s, 0, HireWorker(good=good), "will_not_produce")  # type: ignore[arg-type]


def test_ex21_worker_cards_take_the_decade_side_and_flip_on_upgrade() -> None:
    """Printed sides I/II (position 1) and I/III (position 2) are derived (A-03, ACG-U-09)."""
    assert sorted(C.worker_cards[1].sides) == [1, 2] and sorted(C.worker_cards[2].sides) == [1, 3]
    s = pos.open_factory(pos.scene(decade=2), 0, FOOD, pos.factory(side=2))
    s, _ = pos.play(pos.in_action(s, 0, "EMPLOY"), 0, HireWorker(good="FOOD"), HireWorker(good="FOOD"))
    f = s.players[0].factories[FOOD]
    assert f is not None and [w.side for w in f.workers] == [2, 1]
    machined = replace(f, workers=(replace(f.workers[0], machines=1), f.workers[1]))
    s = pos.open_factory(replace(s, decade=3, turn=None), 0, FOOD, machined)
    s, _ = pos.play(pos.in_action(s, 0, "BUILD"), 0, UpgradeFactory(good="FOOD"))
    f = s.players[0].factories[FOOD]
    assert f is not None and [(w.side, w.machines) for w in f.workers] == [(2, 1), (3, 0)]


def test_ex22_with_negative_demand_the_sale_is_capped_by_the_appeal() -> None:
    """The factory with its first worker card makes 4 (ACG-U-04, ACG-U-07): more than the appeal."""
    assert allowed_sales(3, -4) == 3
    s = replace(
        pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]), appeal=3),
        demand=(-4, 0, 0, 0),
    )
    s, fx = pos.producing(s, FOOD)
    (sale,) = pos.kinds(fx, "goods_sold")
    assert (sale.allowed, sale.from_production) == (3, 3)
