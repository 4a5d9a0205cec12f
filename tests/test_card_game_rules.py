"""Arkwright: The Card Game rules: setup, turns, actions, cards, production, the end of rounds,
rule violations with their codes, and the engine's contracts (state round trip, views, data)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from ledger.games.arkwright_card_game import rules
from ledger.games.arkwright_card_game.components import RESERVE
from ledger.games.arkwright_card_game.decisions import (
    DECISION_ADAPTER,
    AddMachine,
    BuildFactory,
    BuyShares,
    ChooseAction,
    ChooseStartingFactory,
    DiscardDevelopmentCard,
    DiscardEntrepreneur,
    FinishAction,
    FinishProduction,
    FinishReplacement,
    HireWorker,
    PlaceReplacementQuality,
    ProduceExtra,
    RegainShips,
    SetDistributionCard,
    SetPriceAndAppeal,
    SetQualityCard,
    ShipGoods,
    ShipStoredGoods,
    SkipAction,
    SkipDevelopment,
    StoreGoods,
    TakeDevelopment,
    TakeDevelopmentCard,
    TakeLoans,
    UpgradeFactory,
    UpgradeWithInventor,
    UseBroker,
    UseDeveloper,
    UseInventor,
    UsePatron,
)
from ledger.games.arkwright_card_game.meta import EXPERT_VARIANTS, CardGameOptions
from ledger.games.arkwright_card_game.state import Phase
from tests import acg_positions as pos
from tests.acg_positions import CLOTHES, CUTLERY, FOOD, LAMPS, C, E

# --- setup ----------------------------------------------------------------------------------


def test_a_base_game_opens_the_starting_factories_and_hands_out_the_starting_developments() -> None:
    """Starting factories (ACG-U-16) and the '+' development (ACG-U-21) are assumed defaults."""
    s = pos.new(4, first=1)
    for rel in range(4):
        seat = (1 + rel) % 4
        p = s.players[seat]
        opened = tuple(g for g in range(4) if p.factories[g] is not None)
        assert opened == tuple(sorted(C.start_factories[4][rel]))
        for g in opened:
            f = p.factories[g]
            assert f is not None and (f.side, f.spot, f.office_appeal) == (1, C.start_spot, False)
            assert [(w.position, w.side) for w in f.workers] == [(1, 1)]
            assert p.appeal[g] == C.start_appeal
        entry = C.start_developments[4][rel]
        if entry.startswith("TRACK:"):
            assert p.levels[2] == 1 and not p.cards
        else:
            assert [C.card_type(h.card) for h in p.cards] == [entry]
    foreman = next(h for p in s.players for h in p.cards if C.card_type(h.card) == "FOREMAN")
    assert foreman.good != RESERVE, "the Foreman is placed at once"
    assert len(s.supply) == len(C.base_supply(4)) - 2
    assert s.phase == Phase.ACTION and s.awaiting == (1,) and s.turn is not None
    assert not E.conservation(s)


@pytest.mark.parametrize(("players", "cards_"), [(2, 11), (3, 17), (4, 22)])
def test_the_base_supply_matches_the_player_count_table(players: int, cards_: int) -> None:
    assert len(C.base_supply(players)) == cards_


def test_the_expert_draft_goes_clockwise_then_counter_clockwise_from_the_right() -> None:
    s = pos.new(4, first=0, choose_start=True)
    seen = []
    while s.phase in (Phase.DRAFT_FIRST, Phase.DRAFT_SECOND):
        seat = s.awaiting[0]
        seen.append(seat)
        if s.phase == Phase.DRAFT_SECOND:
            first = next(g for g in range(4) if s.players[seat].factories[g] is not None)
            pos.violates(s, seat, ChooseStartingFactory(good=C.goods[first]), "factory_taken")  # type: ignore[arg-type]
        good = next(g for g in range(4) if s.players[seat].factories[g] is None)
        s, _ = E.apply(s, seat, ChooseStartingFactory(good=C.goods[good]))  # type: ignore[arg-type]
    assert seen == [0, 1, 2, 3, 3, 2, 1, 0]
    assert s.phase == Phase.START_DEVELOPMENT and s.awaiting == (0,)


def test_the_starting_development_respects_the_decade_restriction() -> None:
    """Restricted levels are assumed defaults (ACG-U-20)."""
    s = pos.new(2, choose_start=True, decade_restrictions=True)
    while s.phase != Phase.START_DEVELOPMENT:
        seat = s.awaiting[0]
        good = next(g for g in range(4) if s.players[seat].factories[g] is None)
        s, _ = E.apply(s, seat, ChooseStartingFactory(good=C.goods[good]))  # type: ignore[arg-type]
    pos.violates(s, 0, TakeDevelopment(track="QUALITY"), "decade_restriction")
    s, _ = pos.play(s, 0, TakeDevelopment(track="DEV_CARDS"))
    s, _ = pos.play(s, 1, TakeDevelopmentCard(card="ENGINEER"))
    assert s.players[1].engineer_token and s.phase == Phase.ACTION


def test_without_starting_ships_the_shipping_card_is_regained_by_the_stock_exchange() -> None:
    s = pos.new(2, no_starting_ships=True)
    assert [p.ships for p in s.players] == [0, 0]
    s, _ = pos.play(s, 0, ChooseAction(action="STOCK_EXCHANGE"), RegainShips())
    assert s.players[0].ships == C.ships_max
    pos.violates(s, 0, RegainShips(), "exchange_order")


def test_the_random_supply_keeps_its_face_down_cards_out_of_every_view() -> None:
    s, _ = pos.settle_draws(E.new_game(CardGameOptions(expert="all"), 4))
    hidden = E.secrets(s, None)
    assert hidden and hidden == set(s.unseen)
    text = json.dumps([E.view(s, seat) for seat in (None, 0, 1, 2, 3)])
    assert not [h for h in hidden if h in text]
    assert E.view(s, None)["box"]["face_down"] == len(s.unseen)


def test_expert_all_turns_on_every_expert_variant() -> None:
    o = CardGameOptions(expert="all")
    assert all(getattr(o, k) for k in EXPERT_VARIANTS)
    assert CardGameOptions.model_validate(o.model_dump(mode="json", exclude_defaults=True)) == o
    with pytest.raises(ValidationError):
        CardGameOptions.model_validate({"expert": "some"})


# --- turns and actions ----------------------------------------------------------------------


def test_only_the_awaited_player_decides() -> None:
    s = pos.new(2)
    pos.violates(s, 1, SkipAction(), "not_your_turn")


def test_exactly_one_action_per_turn_with_at_least_one_step() -> None:
    s = pos.new(2)
    s, _ = pos.play(s, 0, ChooseAction(action="EMPLOY"))
    pos.violates(s, 0, ChooseAction(action="BUILD"), "one_action")
    pos.violates(s, 0, FinishAction(), "empty_action")
    pos.violates(s, 0, BuildFactory(good="LAMPS"), "wrong_action")


def test_the_expert_actions_need_their_variant() -> None:
    s = pos.new(2)
    pos.violates(s, 0, ChooseAction(action="EXTRA_PRODUCTION"), "expert_action")
    assert not [d for d in E.legal_decisions(s, 0) if getattr(d, "action", "") == "EARLY_SHIPPING"]


def test_building_moves_demand_and_wages_once_per_action() -> None:
    s = pos.in_action(pos.scene(), 0, "BUILD")
    s, fx = pos.play(s, 0, BuildFactory(good="FOOD"), BuildFactory(good="CLOTHES"))
    assert s.demand == (-1, -1, -1, -1) and s.wage == C.wage_start + 1
    assert len(pos.kinds(fx, "wages_moved")) <= 1


def test_the_other_reading_of_a40_moves_the_market_per_factory_built() -> None:
    s = pos.in_action(pos.scene(build_market_per_factory=True), 0, "BUILD")
    s, _ = pos.play(s, 0, BuildFactory(good="FOOD"), BuildFactory(good="CLOTHES"))
    assert s.demand == (-2, -2, -2, -2) and s.wage == C.wage_start + 2


def test_employing_moves_the_market_once_however_many_cards() -> None:
    s = pos.open_factory(pos.open_factory(pos.scene(), 0, FOOD), 0, LAMPS)
    s, _ = pos.play(
        pos.in_action(s, 0, "EMPLOY"),
        0,
        HireWorker(good="FOOD"),
        HireWorker(good="FOOD"),
        HireWorker(good="LAMPS"),
    )
    assert s.demand == (-1, -1, -1, -1) and s.wage == C.wage_start + 1
    pos.violates(s, 0, HireWorker(good="FOOD"), "worker_cards_full")


def test_factories_are_upgraded_from_decade_two_and_only_when_something_changes() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    pos.violates(pos.in_action(s, 0, "BUILD"), 0, UpgradeFactory(good="FOOD"), "upgrade_decade")
    s = pos.open_factory(pos.scene(decade=2), 0, FOOD, pos.factory(side=2, workers=[(1, 2, 0)]))
    pos.violates(pos.in_action(s, 0, "BUILD"), 0, UpgradeFactory(good="FOOD"), "nothing_to_upgrade")


def test_an_upgrade_keeps_the_appeal_value_of_the_factory_token() -> None:
    s = pos.open_factory(pos.scene(decade=2), 0, CUTLERY, pos.factory(side=1, spot=2))
    s, _ = pos.play(pos.in_action(s, 0, "BUILD"), 0, UpgradeFactory(good="CUTLERY"))
    f = s.players[0].factories[CUTLERY]
    assert f is not None and f.side == 2
    assert C.side(CUTLERY, 2).spots[f.spot - 1][1] == C.side(CUTLERY, 1).spots[1][1]


def test_the_inventor_upgrades_two_factories_disregarding_the_decade() -> None:
    s = pos.open_factory(
        pos.open_factory(pos.scene(n=4), 0, FOOD, pos.factory(workers=[(1, 1, 0)])), 0, LAMPS
    )
    s = pos.give_card(s, 0, "INVENTOR")
    s = pos.in_action(s, 0, "BUILD")
    pos.violates(s, 0, UpgradeWithInventor(goods=("FOOD", "FOOD")), "inventor_factories")
    s, fx = pos.play(s, 0, UpgradeWithInventor(goods=("FOOD", "LAMPS")))
    p = s.players[0]
    assert [f.side for f in (p.factories[FOOD], p.factories[LAMPS])] == [2, 2]  # type: ignore[union-attr]
    assert p.factories[FOOD].workers[0].side == 2  # type: ignore[union-attr]
    assert not p.cards and any(C.card_type(c) == "INVENTOR" for c in s.supply)
    assert all(e.inventor for e in pos.kinds(fx, "factory_upgraded"))


def test_the_machine_token_must_be_completed_before_another_card_gets_a_machine() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0), (2, 1, 0)]))
    s = pos.level(s, 0, "MACHINERY", 1)
    s = pos.in_action(s, 0, "AUTOMATE")
    s, _ = pos.play(s, 0, AddMachine(good="FOOD", position=1))
    pos.violates(s, 0, AddMachine(good="FOOD", position=2), "machine_token")
    s, _ = pos.play(s, 0, AddMachine(good="FOOD", position=1), AddMachine(good="FOOD", position=2))
    pos.violates(s, 0, AddMachine(good="FOOD", position=2), "machinery_limit")
    pos.violates(s, 0, AddMachine(good="FOOD", position=1), "card_automated")


def test_quality_is_capped_at_4_per_factory_and_6_with_the_engineer_token() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.cards(s, 0, "quality", {"Q1": ("FOOD", 3, "APPEAL")})
    s = pos.level(s, 0, "QUALITY", 2)
    pos.violates(
        pos.in_action(s, 0, "QUALITY"), 0, SetQualityCard(card="Q2", good="FOOD", value=2), "quality_cap"
    )
    s = pos.give_card(s, 0, "ENGINEER")
    s, _ = pos.play(pos.in_action(s, 0, "QUALITY"), 0, SetQualityCard(card="ENGINEER", good="FOOD", value=3))
    assert s.players[0].quality[0].value == 3 and sum(c.value for c in s.players[0].quality) == 6


def test_distribution_is_capped_at_4_and_values_stay_on_the_card() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.cards(s, 0, "distribution", {"D1": ("FOOD", 3, "APPEAL")})
    s = pos.in_action(s, 0, "DISTRIBUTION")
    pos.violates(s, 0, SetDistributionCard(card="D2", good="FOOD", value=2), "distribution_cap")
    pos.violates(s, 0, SetDistributionCard(card="D2", good="FOOD", value=5), "card_value")
    pos.violates(s, 0, SetDistributionCard(card="D1", good="FOOD", value=3), "nothing_changes")


def test_a_quality_card_side_alone_is_changed_only_in_step_b() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.cards(s, 0, "quality", {"Q1": ("FOOD", 2, "APPEAL")})
    pos.violates(
        pos.in_action(s, 0, "QUALITY"),
        0,
        SetQualityCard(card="Q1", good="FOOD", value=2, mode="PRICE"),
        "nothing_changes",
    )


def test_the_stock_exchange_buys_then_borrows_then_regains_ships() -> None:
    s = pos.set_player(pos.scene(), 0, money=25, share_value=12)
    s = pos.in_action(s, 0, "STOCK_EXCHANGE")
    pos.violates(s, 0, BuyShares(discounted=1), "discount_limit")
    pos.violates(s, 0, BuyShares(full=3), "cannot_afford")
    pos.violates(pos.set_player(s, 0, loans=C.loans_max - 1), 0, TakeLoans(count=2), "loan_limit")
    s, fx = pos.play(s, 0, TakeLoans(count=2))
    assert (s.players[0].money, s.players[0].loans) == (25 + 24, 2)
    pos.violates(s, 0, BuyShares(full=1), "exchange_order")


def test_step_b_moves_the_marker_and_only_this_factorys_quality_rotates() -> None:
    s = pos.open_factory(pos.open_factory(pos.scene(), 0, FOOD), 0, LAMPS)
    s = pos.cards(s, 0, "quality", {"Q1": ("LAMPS", 2, "APPEAL")})
    pos.violates(
        pos.at_step(s, 0, "b"), 0, SetPriceAndAppeal(spot=1, appeal_cards=("Q1",)), "quality_not_here"
    )
    s, fx = pos.play(pos.at_step(s, 0, "b"), 0, SetPriceAndAppeal(spot=1, office="PRICE"))
    assert s.players[0].appeal[FOOD] == C.side(FOOD, 1).spots[0][1]


def test_a_player_without_the_active_factory_skips_step_b() -> None:
    s = pos.open_factory(pos.scene(round=2), 0, FOOD)
    s, _ = pos.play(pos.at_step(s, 0), 0, SkipAction())
    assert s.turn is not None and s.turn.step == "c"


# --- development cards --------------------------------------------------------------------------


def test_the_card_limit_the_same_type_and_no_regain_in_the_same_turn() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.give_card(pos.give_card(s, 0, "WORKSHOP"), 0, "EXTRA_SHIFT")
    s = pos.at_step(s, 0, "c")
    pos.violates(s, 0, TakeDevelopmentCard(card="ENGINEER"), "card_limit")
    s, _ = pos.play(s, 0, DiscardDevelopmentCard(card="WORKSHOP"))
    pos.violates(s, 0, TakeDevelopmentCard(card="WORKSHOP"), "regained_same_turn")
    pos.violates(s, 0, TakeDevelopmentCard(card="EXTRA_SHIFT"), "same_type")
    pos.violates(s, 0, TakeDevelopmentCard(card="FOREMAN"), "foreman_place")
    s, fx = pos.play(s, 0, TakeDevelopmentCard(card="FOREMAN", foreman_good="FOOD"))
    assert pos.kinds(fx, "development_card_taken")[0].good == "FOOD"


def test_a_card_is_discarded_only_to_make_room() -> None:
    s = pos.give_card(pos.open_factory(pos.scene(), 0, FOOD), 0, "WORKSHOP")
    pos.violates(pos.at_step(s, 0, "c"), 0, DiscardDevelopmentCard(card="WORKSHOP"), "discard_without_need")


def test_a_discarded_engineer_may_be_replaced_and_the_engineer_token_stays() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD)
    s = pos.give_card(pos.give_card(s, 0, "ENGINEER"), 0, "WORKSHOP")
    s = pos.cards(s, 0, "quality", {"ENGINEER": ("FOOD", 5, "APPEAL"), "Q1": ("FOOD", 1, "APPEAL")})
    s, fx = pos.play(pos.at_step(s, 0, "c"), 0, DiscardDevelopmentCard(card="ENGINEER"))
    assert pos.kinds(fx, "development_card_discarded")[0].value_lost == 5
    assert s.turn is not None and s.turn.step == "engineer"
    s, _ = pos.play(s, 0, PlaceReplacementQuality(card="Q2", value=4, mode="PRICE"))
    assert s.players[0].engineer_token, "A-16: the token stays flipped for the rest of the game"
    pos.violates(s, 0, PlaceReplacementQuality(card="Q3", value=2), "replacement_value")
    s, _ = pos.play(s, 0, FinishReplacement())
    assert sum(c.value for c in s.players[0].quality if c.good == FOOD) == 5
    assert s.turn is not None and s.turn.step == "c"


def test_the_broker_buys_up_to_two_shares_at_half_value_instead_of_a_development() -> None:
    s = pos.set_player(pos.give_card(pos.scene(), 0, "BROKER"), 0, share_value=15, money=20)
    s = pos.at_step(s, 0, "c")
    pos.violates(s, 0, UseBroker(count=3), "broker_shares")
    s, _ = pos.play(s, 0, UseBroker(count=2))
    assert (s.players[0].shares, s.players[0].money, s.players[0].cards) == (2, 4, ())


def test_the_inventor_expert_use_takes_two_developments_ignoring_the_decade() -> None:
    s = pos.give_card(pos.scene(n=4, decade_restrictions=True), 0, "INVENTOR")
    s = pos.at_step(s, 0, "c")
    pos.violates(s, 0, TakeDevelopment(track="QUALITY"), "decade_restriction")
    pos.violates(s, 0, UseInventor(tracks=("SHIP", "SHIP")), "same_track")
    s, _ = pos.play(s, 0, UseInventor(tracks=("QUALITY", "SHIP")))
    assert s.players[0].levels[0] == 1 and s.players[0].levels[4] == 1
    s = pos.give_card(pos.scene(n=4), 0, "INVENTOR")
    pos.violates(pos.at_step(s, 0, "c"), 0, UseInventor(tracks=("QUALITY", "SHIP")), "inventor_expert")


def test_a_card_lifts_its_track_restriction_while_held() -> None:
    s = pos.give_card(pos.scene(decade_restrictions=True), 0, "WORKSHOP")
    s, _ = pos.play(pos.at_step(s, 0, "c"), 0, TakeDevelopment(track="MACHINERY"))
    assert s.players[0].levels[3] == 1


def test_the_developer_reactivates_another_rotated_card_once_per_decade() -> None:
    s = pos.give_card(pos.scene(), 0, "DEVELOPER")
    s = pos.level(pos.give_card(s, 0, "PATRON_CLOTHES_FOOD", rotated=True), 0, "DEV_CARDS", 1)
    s = pos.at_step(s, 0, "a")
    pos.violates(s, 0, UseDeveloper(card="DEVELOPER"), "nothing_to_reactivate")
    s, _ = pos.play(s, 0, UseDeveloper(card="PATRON_CLOTHES_FOOD"))
    assert [h.rotated for h in s.players[0].cards] == [True, False]
    pos.violates(s, 0, UseDeveloper(card="PATRON_CLOTHES_FOOD"), "no_developer")


def test_the_entrepreneur_discarded_at_the_end_of_a_round_names_the_start_player() -> None:
    s = pos.give_card(pos.scene(n=3), 1, "ENTREPRENEUR")
    s, _ = rules.resume(replace(s, phase=Phase.END_OF_ROUND))
    assert s.phase == Phase.ENTREPRENEUR and s.awaiting == (1,)
    s, fx = pos.play(s, 1, DiscardEntrepreneur(start_player=2))
    assert s.start_player == 2 and s.round == 2 and not s.players[1].cards


def test_rotated_cards_are_reactivated_at_the_end_of_a_decade() -> None:
    s = pos.give_card(pos.scene(round=4), 0, "PATRON_CLOTHES_FOOD", rotated=True)
    s, fx = rules.resume(replace(s, phase=Phase.END_OF_ROUND))
    assert s.decade == 2 and not s.players[0].cards[0].rotated and pos.kinds(fx, "cards_reactivated")


# --- production ------------------------------------------------------------------------------------


def test_a_patron_raises_the_home_sale_by_one_even_above_the_appeal() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]), appeal=2)
    s = pos.give_card(s, 0, "PATRON_CLOTHES_FOOD")
    s, _ = pos.producing(s, FOOD)
    s, fx = pos.play(s, 0, UsePatron(card="PATRON_CLOTHES_FOOD"))  # the sale follows by itself
    assert pos.kinds(fx, "goods_sold")[0].from_production == 3


def test_the_other_reading_of_a39_caps_the_patron_by_the_appeal() -> None:
    s = pos.open_factory(
        pos.scene(patron_capped_by_appeal=True), 0, FOOD, pos.factory(workers=[(1, 1, 0)]), appeal=2
    )
    s = pos.give_card(s, 0, "PATRON_CLOTHES_FOOD")
    s, _ = pos.producing(s, FOOD)
    s, fx = pos.play(s, 0, UsePatron(card="PATRON_CLOTHES_FOOD"))
    assert pos.kinds(fx, "goods_sold")[0].from_production == 2


def test_leftovers_are_stored_or_shipped_and_shipping_adds_a_token() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]), appeal=1)
    s = pos.give_card(s, 0, "CONTRACT")
    s, fx = pos.producing(s, FOOD)
    assert pos.kinds(fx, "goods_sold")[0].from_production == 1
    pos.violates(s, 0, ShipGoods(from_production=3), "ship_capacity")
    s, fx = pos.play(s, 0, ShipGoods(from_production=2), StoreGoods(storehouse="S1", count=1))
    (ship,) = pos.kinds(fx, "goods_shipped")
    assert ship.income == 2 * C.side(FOOD, 1).ship_price and ship.contract == 2 * C.contract_bonus
    p = s.players[0]
    assert (p.shipping_tokens, p.ships, p.storehouses[0].goods) == (1, 1, 1)
    s, fx = pos.play(s, 0, FinishProduction())
    assert not pos.kinds(fx, "goods_wasted") and pos.kinds(fx, "production_costs_paid")


def test_the_customs_office_saves_a_shipping_token_and_the_board_holds_nine() -> None:
    s = pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)]))
    s = pos.set_player(pos.give_card(s, 0, "CUSTOMS_OFFICE"), 0, shipping_tokens=9)
    s, _ = pos.producing(s, FOOD)
    pos.violates(s, 0, ShipGoods(from_production=2), "shipping_tokens")
    s, fx = pos.play(s, 0, ShipGoods(from_production=2, customs_office=True))
    assert pos.kinds(fx, "goods_shipped")[0].tokens == 0 and s.players[0].cards[0].rotated


def test_the_other_reading_of_a24_limits_the_ships_used_in_the_game() -> None:
    s = pos.open_factory(pos.scene(ship_limit_counts_ships=True), 0, FOOD, pos.factory(workers=[(1, 1, 0)]))
    s = pos.set_player(pos.give_card(s, 0, "CUSTOMS_OFFICE"), 0, shipping_tokens=8, ships_used=9)
    s, _ = pos.producing(s, FOOD)
    pos.violates(s, 0, ShipGoods(from_production=2, customs_office=True), "ships_in_game")


def test_a_storehouse_taken_from_another_factory_loses_its_goods() -> None:
    s = pos.open_factory(pos.open_factory(pos.scene(), 0, FOOD, pos.factory(workers=[(1, 1, 0)])), 0, LAMPS)
    s = pos.stored(pos.stored(s, 0, "S1", LAMPS, 2), 0, "S2", LAMPS, 1)
    s, _ = pos.producing(s, FOOD)
    s, fx = pos.play(s, 0, StoreGoods(storehouse="S1", count=2))
    assert pos.kinds(fx, "goods_stored")[0].wasted == 2
    assert (s.players[0].storehouses[0].good, s.players[0].storehouses[0].goods) == (FOOD, 2)
    pos.violates(s, 0, StoreGoods(storehouse="S1", count=1), "storehouse_full")


def test_bankruptcy_takes_the_player_out_of_the_game() -> None:
    s = pos.open_factory(pos.scene(round=4), 0, LAMPS, pos.factory(workers=[(1, 1, 0), (2, 1, 0)]))
    s = pos.set_player(s, 0, money=0, loans=C.loans_max)
    s, _ = pos.producing(s)
    s, fx = pos.play(s, 0, FinishProduction())
    assert s.players[0].eliminated and pos.kinds(fx, "player_eliminated")
    assert s.players[0].appeal == (None, None, None, None)
    assert not E.conservation(s)
    assert E.standings(s)[-1].seat == 0


def test_extra_production_goes_to_storehouses_and_early_shipping_sells_them() -> None:
    s = pos.open_factory(
        pos.scene(extra_production=True, early_shipping=True), 0, CLOTHES, pos.factory(workers=[(1, 1, 0)])
    )
    s = pos.in_action(s, 0, "EXTRA_PRODUCTION")
    pos.violates(s, 0, ProduceExtra(good="CLOTHES", worker_cards=2), "no_worker_card")
    s, fx = pos.play(s, 0, ProduceExtra(good="CLOTHES", worker_cards=1))
    assert pos.kinds(fx, "goods_produced")[0].count == 4 and pos.kinds(fx, "production_costs_paid")
    s, fx = pos.play(
        s, 0, StoreGoods(storehouse="S1", count=2), StoreGoods(storehouse="S2", count=1), FinishAction()
    )
    assert pos.kinds(fx, "goods_wasted")[0].count == 1
    s = pos.in_action(s, 0, "EARLY_SHIPPING")
    s, fx = pos.play(s, 0, ShipStoredGoods(loads=(("S1", 1), ("S2", 1))))
    assert pos.kinds(fx, "goods_shipped")[0].income == 2 * C.side(CLOTHES, 1).ship_price
    assert s.players[0].storehouses[1].good == RESERVE


def test_every_state_and_every_legal_decision_survive_a_json_round_trip() -> None:
    s = pos.new(3, expert="all")
    dumped = E.state_adapter.dump_json(s)
    assert E.state_adapter.validate_json(dumped) == s
    for d in E.legal_decisions(s, s.awaiting[0]):
        assert DECISION_ADAPTER.validate_python(d.model_dump(mode="json")) == d


def test_every_value_of_the_data_file_names_its_provenance() -> None:
    from ledger.games.arkwright_card_game import components

    raw = json.loads(Path(components.__file__).with_name("components.json").read_text())
    ids: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "value" in node:
                assert node["provenance"] in ("S", "D", "U")
                if node["provenance"] == "U":
                    ids.add(node["id"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(raw)
    numbered = {int(x) for i in ids for x in i.removeprefix("ACG-U-").split("/")}
    assert numbered == set(range(1, 24)), "all 23 UNKNOWN items of spec §6.12"


def test_legal_decisions_cover_a_whole_turn_and_are_all_accepted() -> None:
    s = pos.new(2)
    seat = s.awaiting[0]
    for d in E.legal_decisions(s, seat):
        E.apply(s, seat, d)
    s, _ = pos.play(s, seat, SkipAction())
    options = E.legal_decisions(s, seat)
    assert options and all(isinstance(d, SetPriceAndAppeal) for d in options)
    assert len(options) <= 100
    s, _ = pos.play(s, seat, options[0])
    assert SkipDevelopment() in E.legal_decisions(s, seat)
