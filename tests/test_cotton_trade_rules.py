"""Cotton Trade rule violations carry stable codes and change nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ledger.errors import RuleViolationError
from ledger.games.cotton_trade import rules
from ledger.games.cotton_trade.components import Region
from ledger.games.cotton_trade.decisions import (
    BuyContract,
    DeclineContract,
    KeepNewShip,
    PassRenting,
    RentShip,
    SailShip,
)
from ledger.games.cotton_trade.meta import CottonTradeOptions
from ledger.games.cotton_trade.state import Phase, War
from tests.ct_positions import (
    at_phase,
    cleared_board,
    new,
    play,
    ship,
    with_pence,
    with_player,
    with_row,
    with_track,
)

NA, EG = Region.NORTH_AMERICA, Region.EGYPT


def violation(state, seat, decision) -> str:  # type: ignore[no-untyped-def]
    before = state
    with pytest.raises(RuleViolationError) as err:
        play(state, seat, decision)
    assert state == before  # pure: nothing changed
    assert err.value.message
    return err.value.code


def test_renting_a_second_ship_of_the_same_capacity_is_refused() -> None:
    s = new(3)
    seat = s.awaiting[0]
    card = s.ship_row[0]
    s = with_player(
        s,
        seat,
        ships=[
            ship(
                next(
                    c
                    for c, d in rules.C.ships.items()
                    if d.capacity == rules.C.ships[card].capacity and c != card
                )
            )
        ],
    )
    assert violation(s, seat, RentShip(card=card)) == "rule/cotton-trade/capacity_held"


def test_renting_a_ship_not_in_the_row_is_refused() -> None:
    s = new(3)
    missing = next(c for c in rules.C.ships if c not in s.ship_row)
    assert violation(s, s.awaiting[0], RentShip(card=missing)) == "rule/cotton-trade/ship_not_in_row"


def test_renting_more_than_money_and_shares_cover_is_refused() -> None:
    s = new(3)
    seat = s.awaiting[0]
    s = with_player(s, seat, coins=(0, 0, 0), shares=())
    card = next(c for c in s.ship_row if rules.C.ships[c].value > 0)
    assert violation(s, seat, RentShip(card=card)) == "rule/cotton-trade/cannot_afford"


def test_when_voluntary_share_sales_are_forbidden_only_money_counts() -> None:
    s = new(3, share_sale_for_voluntary_purchases="FORBIDDEN")
    seat = s.awaiting[0]
    s = with_pence(s, seat, 1)
    card = next(c for c in s.ship_row if rules.C.ships[c].value > 1)
    assert violation(s, seat, RentShip(card=card)) == "rule/cotton-trade/cannot_afford"


def test_a_player_with_no_affordable_ship_passes_automatically() -> None:
    s = cleared_board(new(2))
    s = with_player(s, 0, coins=(0, 0, 0), shares=())
    s = replace(s, ship_row=("S19",))
    s, fx = at_phase(s, Phase.RENT)
    assert [e.automatic for e in fx if e.kind == "renting_passed" and e.seat == 0] == [True]


def test_only_the_awaited_seat_may_decide() -> None:
    s = new(3)
    other = next(seat for seat in range(3) if seat not in s.awaiting)
    assert violation(s, other, PassRenting()) == "rule/cotton-trade/not_your_turn"


def test_a_decision_of_another_phase_is_refused() -> None:
    s = new(3)
    assert violation(s, s.awaiting[0], DeclineContract()) == "rule/cotton-trade/wrong_decision"


def _sail(**changes):  # type: ignore[no-untyped-def]
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S12")])
    s, _ = at_phase(s, Phase.SAIL, **changes)
    return s


def test_egypt_is_closed_in_stage_one() -> None:
    assert violation(_sail(), 0, SailShip(capacity=3, region=EG)) == "rule/cotton-trade/region_closed"


def test_a_region_at_war_cannot_be_entered() -> None:
    s = _sail(war=War(region=NA, side="WAR"))
    assert violation(s, 0, SailShip(capacity=3, region=NA)) == "rule/cotton-trade/region_at_war"
    assert all(d.region != NA for d in rules.legal_decisions(s, 0))


def test_after_the_war_the_region_is_open_again() -> None:
    s = _sail(war=War(region=NA, side="PEACE"))
    s, fx = play(s, 0, SailShip(capacity=3, region=NA))
    assert any(e.kind == "ship_sailed" for e in fx)


def test_only_a_fast_ship_overtakes() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S12")])
    s = with_player(s, 1, ships=[ship("S05", location=NA.value)])
    s = with_track(s, NA, [(1, 2)])
    s, _ = at_phase(s, Phase.SAIL)
    assert violation(s, 0, SailShip(capacity=3, region=NA, overtake=True)) == "rule/cotton-trade/not_fast"


def test_sailing_a_ship_that_is_not_in_the_uk_is_refused() -> None:
    assert violation(_sail(), 0, SailShip(capacity=2, region=NA)) == "rule/cotton-trade/ship_not_in_uk"


def test_a_drought_card_cannot_be_bought() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S12", location=NA.value)])
    s = with_track(s, NA, [(0, 3)])
    s = with_row(s, NA, ["C011", "C001"])  # C011 is a drought card
    s, _ = at_phase(s, Phase.BUY)
    assert violation(s, 0, BuyContract(card="C011")) == "rule/cotton-trade/drought"
    assert BuyContract(card="C011") not in rules.legal_decisions(s, 0)
    assert BuyContract(card="C001") in rules.legal_decisions(s, 0)


def test_keeping_a_ship_without_the_new_icon_is_refused() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S15"), ship("S05")])
    s, _ = at_phase(s, Phase.KEEP_NEW, round=3)
    assert violation(s, 0, KeepNewShip(card="S05")) == "rule/cotton-trade/not_new_ship"


def test_maintenance_beyond_money_and_shares_is_waived() -> None:
    s = cleared_board(new(3))
    s = with_player(s, 0, ships=[ship("S19")], coins=(1, 0, 0), shares=())  # maintenance 2
    s, fx = at_phase(s, Phase.MAINTENANCE)
    paid = next(e for e in fx if e.kind == "maintenance_paid" and e.seat == 0)
    assert (paid.amount, paid.waived) == (2, 1)


def test_player_counts_outside_two_to_six_are_refused() -> None:
    for n in (1, 7):
        with pytest.raises(RuleViolationError):
            rules.new_game(CottonTradeOptions(), n)


def test_the_data_file_holds_every_component_with_its_provenance() -> None:
    import json
    from pathlib import Path

    raw = json.loads(Path(rules.__file__).with_name("components.json").read_text())
    for key in ("ship_cards", "contract_cards", "demand_row", "turn_order_track", "tickets", "war_threshold"):
        assert raw[key]["provenance"] in ("S", "D", "U")
    assert all(v["provenance"] in ("S", "D", "U") for v in raw["constants"].values())
    assert len(rules.C.contracts) == 103 and len(rules.C.ships) == 24
