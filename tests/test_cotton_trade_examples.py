"""Cotton Trade's worked examples (spec §7, CT-EX-*) as tests.

CT-EX-18, -19, -20 and -27 belong to the advanced modules (reputation, shares
trade) and are tested with them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import RuleViolationError
from ledger.games.cotton_trade import rules, ships
from ledger.games.cotton_trade.components import Region
from ledger.games.cotton_trade.decisions import (
    BuyContract,
    KeepNewShip,
    RentShip,
    SailShip,
    StayInRegion,
)
from ledger.games.cotton_trade.state import UK, Phase, War
from tests.ct_positions import (
    at_phase,
    cleared_board,
    kinds,
    new,
    passive_until,
    play,
    ship,
    with_harbour,
    with_pence,
    with_player,
    with_row,
    with_track,
)

NA, SA, BI, EG = Region.NORTH_AMERICA, Region.SOUTH_AMERICA_WI, Region.BRITISH_INDIA, Region.EGYPT


def test_ex01_the_demand_row_starts_with_13_minus_n_tokens() -> None:
    assert new(4).demand == 9
    assert new(2).demand == 11
    assert new(6).demand == 7


def test_ex02_two_plus_n_ship_cards_are_drawn() -> None:
    s = new(5)
    assert s.phase == Phase.RENT
    assert len(s.ship_row) == 7


def test_ex03_starting_money_follows_turn_order_from_the_first_player() -> None:
    s = new(4, first=2)
    assert s.turn_order == (2, 3, 0, 1)
    assert [s.players[seat].coins[0] for seat in s.turn_order] == [7, 8, 9, 10]
    assert s.track_space == (1, 1, 1, 1)


def test_ex04_north_america_shows_half_rounded_up_face_up() -> None:
    row = new(2).contract_row[1]  # 3 cards with 2-4 players
    assert [slot.face_up for slot in row] == [True, True, False]
    row5 = new(5).contract_row[1]  # 5 cards with 5-6 players
    assert [slot.face_up for slot in row5] == [True, True, True, False, False]


def test_ex05_south_america_shows_half_rounded_down_face_up() -> None:
    row = new(4).contract_row[2]  # 3 cards
    assert [slot.face_up for slot in row] == [True, False, False]
    row6 = new(6).contract_row[2]  # 4 cards with 6 players
    assert [slot.face_up for slot in row6] == [True, True, False, False]


def test_ex06_egypt_is_unused_in_stage_one_then_all_face_up_and_india_all_face_down() -> None:
    s = new(4)
    assert s.contract_row[0] == ()
    assert all(not slot.face_up for slot in s.contract_row[3])
    s2 = passive_until(s, 4, Phase.RENT)
    assert [slot.face_up for slot in s2.contract_row[0]] == [True, True]
    assert [slot.face_up for slot in s2.contract_row[3]] == [False, False, False]
    assert all(rules.C.contracts[slot.card].stage == "II" for row in s2.contract_row for slot in row)


def _sail_scene(n: int = 3):  # type: ignore[no-untyped-def]
    s = cleared_board(new(n))
    return s


def test_ex07_bonus_coins_are_two_on_the_first_position_then_one_while_they_last() -> None:
    s = _sail_scene()
    s = with_player(s, 0, ships=[ship("S12")])
    s = with_player(s, 1, ships=[ship("S05")])
    s = with_player(s, 2, ships=[ship("S01")])
    s = with_harbour(s, NA, coins=3)
    s, _ = at_phase(s, Phase.SAIL)
    assert s.awaiting == (0,)
    s, fx = play(s, 0, SailShip(capacity=3, region=NA))
    assert s.players[0].coins[0] == 7 + 2 and s.harbours[1].coins == 1
    s, fx = play(s, 1, SailShip(capacity=2, region=NA))
    assert s.players[1].coins[0] == 8 + 1 and s.harbours[1].coins == 0
    s, fx = play(s, 2, SailShip(capacity=1, region=NA))
    assert s.players[2].coins[0] == 9
    assert "bonus_coins_taken" not in kinds(fx)


def test_ex08_a_fast_ship_overtakes_the_last_ship_unless_it_is_fast_or_stayed() -> None:
    base = _sail_scene()
    base = with_player(base, 0, ships=[ship("S07")])  # fast, capacity 2
    base = with_harbour(base, NA, coins=2)

    # [A] -> [F, A], F gains 2
    s = with_player(base, 1, ships=[ship("S05", location=NA.value)])
    s = with_track(s, NA, [(1, 2)])
    s, _ = at_phase(s, Phase.SAIL)
    s, _ = play(s, 0, SailShip(capacity=2, region=NA, overtake=True))
    assert s.tracks[1] == ((0, 2), (1, 2))
    assert s.players[0].coins[0] == 7 + 2

    # [B stayed, C] -> [B, F, C], F gains 1
    s = with_player(base, 1, ships=[ship("S05", location=NA.value, stayed=True)])
    s = with_player(s, 2, ships=[ship("S06", location=NA.value)])
    s = with_track(s, NA, [(1, 2), (2, 2)])
    s, _ = at_phase(s, Phase.SAIL)
    s, _ = play(s, 0, SailShip(capacity=2, region=NA, overtake=True))
    assert s.tracks[1] == ((1, 2), (0, 2), (2, 2))
    assert s.players[0].coins[0] == 7 + 1

    # [B stayed] and [D fast] cannot be overtaken
    for blocker in (ship("S05", location=NA.value, stayed=True), ship("S14", location=NA.value)):
        s = with_player(base, 1, ships=[blocker])
        s = with_track(s, NA, [(1, blocker.capacity)])
        s, _ = at_phase(s, Phase.SAIL)
        with pytest.raises(RuleViolationError) as err:
            play(s, 0, SailShip(capacity=2, region=NA, overtake=True))
        assert err.value.code == "rule/cotton-trade/overtake_blocked"
        assert SailShip(capacity=2, region=NA, overtake=True) not in rules.legal_decisions(s, 0)


def _buy_scene(card: str, capacity_card: str, pence: int = 20):  # type: ignore[no-untyped-def]
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship(capacity_card, location=NA.value)])
    s = with_pence(s, 0, pence)
    s = with_track(s, NA, [(0, rules.C.ship(capacity_card).capacity)])
    s = with_row(s, NA, [card])
    s, _ = at_phase(s, Phase.BUY)
    return s


def test_ex09_an_oversized_contract_costs_one_less_and_the_surplus_is_discarded() -> None:
    s = _buy_scene("C010", "S12")  # 5 cotton for 14; capacity 3
    assert s.awaiting == (0,)
    s, fx = play(s, 0, BuyContract(card="C010"))
    bought = next(e for e in fx if e.kind == "contract_bought")
    assert (bought.cost, bought.cargo, bought.discarded) == (13, 3, 2)
    paid = next(e for e in fx if e.kind == "money_changed" and e.reason == "contract")
    assert (paid.amount, paid.balance) == (-13, 20 - 13)
    assert "C010" in s.contract_discard[1]


def _sell_scene(demand: int, cargo: int):  # type: ignore[no-untyped-def]
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S12", location=NA.value, cargo=cargo)])
    s = with_track(s, NA, [(0, 3)])
    s, fx = at_phase(s, Phase.SELL, demand=demand)
    return s, fx


def test_ex10_three_tokens_sell_on_the_next_empty_squares() -> None:
    s, fx = _sell_scene(demand=15, cargo=3)
    sold = next(e for e in fx if e.kind == "cotton_sold")
    assert (sold.income, sold.demand_after) == (13, 18)
    gained = next(e for e in fx if e.kind == "money_changed" and e.reason == "cotton_sale")
    assert gained.balance == 7 + 13


def test_ex11_a_full_row_pays_the_guaranteed_two_coins() -> None:
    s, fx = _sell_scene(demand=29, cargo=3)
    sold = next(e for e in fx if e.kind == "cotton_sold")
    assert (sold.income, sold.demand_after) == (6, 30)


def test_ex12_clear_up_removes_three_tokens_per_player_from_the_right() -> None:
    for before, after in ((14, 5), (7, 0)):
        s = cleared_board(new(3))
        _, fx = at_phase(s, Phase.CLEAR_UP, demand=before)
        reduced = next(e for e in fx if e.kind == "demand_reduced")
        assert (reduced.before, reduced.after) == (before, after)


def test_ex13_and_ex14_exchange_three_to_one_keeping_remainders_then_the_forced_sale() -> None:
    s = with_pence(cleared_board(new(3)), 0, 47)
    s, fx = at_phase(s, Phase.RESCALE_MONEY, round=3)
    exchanged = next(e for e in fx if e.kind == "currency_exchanged" and e.seat == 0)
    assert exchanged.after == (2, 15, 0)
    assert s.players[0].coins == (2, 19, 0)  # + 4 shillings for share 1
    assert (0, 1) in s.bank_shares and (0, 1) not in s.players[0].shares

    s = with_player(cleared_board(new(3)), 0, coins=(1, 40, 0))
    s, fx = at_phase(s, Phase.RESCALE_MONEY, round=6)
    exchanged = next(e for e in fx if e.kind == "currency_exchanged" and e.seat == 0)
    assert exchanged.after == (1, 1, 13)
    assert s.players[0].coins == (1, 1, 15)  # + 2 pounds


def test_ex15_ships_are_refunded_at_their_value_before_the_exchange() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S06"), ship("S14")])  # values 3 and 5
    s, fx = at_phase(s, Phase.RESCALE_SHIPS, round=3)
    refunds = [e.value for e in fx if e.kind == "ship_refunded" and e.seat == 0]
    assert sum(refunds) == 8
    assert s.players[0].coins[0] == 7 + 8 and s.players[0].ships == ()


def test_ex16_turn_order_ties_keep_the_previous_order() -> None:
    s = cleared_board(new(3))
    s = with_pence(with_pence(with_pence(s, 0, 12), 1, 12), 2, 9)
    s, _ = at_phase(s, Phase.TURN_ORDER, round=2, turn_order=(1, 0, 2))
    assert s.turn_order == (2, 1, 0)


def _reveal_scene(rows: dict[Region, list[str]], war: War | None = None):  # type: ignore[no-untyped-def]
    s = cleared_board(new(4))
    for region, cards in rows.items():
        s = with_row(s, region, cards, face_up=False)
    return at_phase(s, Phase.REVEAL, war=war)


def test_ex17_war_breaks_at_the_threshold_in_the_region_of_highest_unrest() -> None:
    rows = {NA: ["C006", "C010"], SA: ["C017"], BI: ["C027", "C022"]}  # unrest 4, 3, 3
    s, fx = _reveal_scene(rows)
    assert s.war is not None and s.war.region == NA
    broke = next(e for e in fx if e.kind == "war_broke")
    assert (broke.region, broke.unrest, broke.threshold) == (NA.value, 10, 10)
    s, _ = _reveal_scene({NA: ["C006", "C010"], SA: ["C017"], BI: ["C027"]})  # 9
    assert s.war is None
    s, fx = _reveal_scene(rows, war=War(region=SA, side="PEACE"))
    assert s.war == War(region=SA, side="PEACE") and "war_broke" not in kinds(fx)


def test_ex21_the_first_ship_of_round_one_takes_position_one() -> None:
    s = with_harbour(_sail_scene(), NA, coins=3)
    s = with_player(s, 0, ships=[ship("S12")])
    s, _ = at_phase(s, Phase.SAIL)
    s, fx = play(s, 0, SailShip(capacity=3, region=NA))
    sailed = next(e for e in fx if e.kind == "ship_sailed")
    assert sailed.position == 1 and s.players[0].coins[0] == 9


def test_ex22_a_shortfall_sells_share_one_to_the_bank_at_the_track_price() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S14"), ship("S05")], coins=(1, 0, 0))  # maintenance 2 + 1
    s, fx = at_phase(s, Phase.MAINTENANCE)
    sale = next(e for e in fx if e.kind == "share_sold")
    assert (sale.number, sale.price) == (1, 3)
    paid = next(e for e in fx if e.kind == "maintenance_paid" and e.seat == 0)
    assert (paid.amount, paid.waived) == (3, 0)
    assert s.players[0].coins[0] == 1


def test_ex23_buy_back_moves_the_company_down_the_track_after_each_share() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, coins=(0, 0, 45), shares=((0, 3), (0, 4)))
    s = replace(s, bank_shares=((0, 1), (0, 2)))
    s, fx = at_phase(s, Phase.END, round=9)
    prices = [e.price for e in fx if e.kind == "share_bought_back" and e.seat == 0]
    assert prices == [6, 5]
    assert s.players[0].coins[2] == 34
    assert s.phase == Phase.FINISHED


def test_ex24_empty_ships_may_stay_and_move_up_without_bonus_coins() -> None:
    s = cleared_board(new(3))
    s = with_harbour(s, NA, coins=5)
    s = with_player(s, 0, ships=[ship("S05", location=NA.value)])
    s = with_player(s, 1, ships=[ship("S06", location=NA.value, cargo=2)])
    s = with_player(s, 2, ships=[ship("S09", location=NA.value)])
    s = with_track(s, NA, [(0, 2), (1, 2), (2, 2)])
    s, _ = at_phase(s, Phase.SELL)
    assert s.awaiting == (0,)
    s, fx1 = play(s, 0, StayInRegion())
    assert s.awaiting == (2,)  # B returned and sold on its own
    assert kinds(fx1)[:3] == ["ship_stayed", "ship_returned", "cotton_sold"]
    s, fx2 = play(s, 2, StayInRegion())
    assert kinds(fx2)[0] == "ship_stayed"
    assert s.tracks[1] == ((0, 2), (2, 2))
    assert s.players[0].ships[0].stayed and s.players[2].ships[0].stayed
    assert s.players[1].ships[0].location == UK
    assert "bonus_coins_taken" not in kinds(fx1) + kinds(fx2)


def test_ex25_a_kept_new_ship_becomes_a_good_ol_ship_in_place() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S15", location=SA.value, stayed=True), ship("S05")])
    s = with_track(s, SA, [(0, 3)])
    s, _ = at_phase(s, Phase.KEEP_NEW, round=3)
    assert s.awaiting == (0,)
    s, fx = play(s, 0, KeepNewShip(card="S15"))
    refunds = [(e.card, e.value) for e in fx if e.kind == "ship_refunded" and e.seat == 0]
    assert refunds == [("S05", 2)]
    (kept,) = s.players[0].ships
    assert (kept.card, kept.capacity, kept.location, kept.stayed) == ("GOOD_OL", 1, SA.value, True)
    assert s.tracks[2] == ((0, 1),)
    assert s.supply_good_ol == 3
    s = replace(s, ship_row=("S01",), draws=())
    assert ships.rentable(s, 0, "S01") is not None  # capacity 1 is taken
    with pytest.raises(RuleViolationError) as err:
        play(replace(s, phase=Phase.RENT, awaiting=(0,)), 0, RentShip(card="S01"))
    assert err.value.code == "rule/cotton-trade/capacity_held"


def test_ex26_vip_passengers_board_first_and_pay_the_higher_ticket() -> None:
    s = with_harbour(_sail_scene(), BI, vip=1, passengers=2)
    s = with_player(s, 0, ships=[ship("S10")])  # 2 cabins
    s, _ = at_phase(s, Phase.SAIL)
    s, fx = play(s, 0, SailShip(capacity=2, region=BI))
    carried = next(e for e in fx if e.kind == "passengers_carried")
    assert (carried.vip, carried.regular, carried.income) == (1, 1, 8)
    assert (s.harbours[3].vip, s.harbours[3].passengers) == (0, 1)
