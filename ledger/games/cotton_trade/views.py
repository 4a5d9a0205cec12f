"""What a seat (or a spectator) may see: the board without deck orders or face-down contracts
(but with the contracts the seat has peeked at), every player's coins, ships, shares and
reputation; and the card ids a seat may not see now."""

from __future__ import annotations

from typing import Any

from ledger.games.cotton_trade import advanced as adv
from ledger.games.cotton_trade.common import (
    UNIT,
    C,
    currency,
    money,
    region_open,
    share_price,
    ship_of,
    war_locked,
    wealth,
)
from ledger.games.cotton_trade.components import CURRENCIES, REGIONS, STAGE_NAMES
from ledger.games.cotton_trade.state import State


def view(s: State, seat: int | None) -> dict[str, Any]:
    """What a seat (or a spectator) may see: no deck order, no face-down contract."""
    stage = s.stage
    seen = {card for who, card in s.peeks if who == seat}
    regions = []
    for r, region in enumerate(REGIONS):
        slots = []
        for slot in s.contract_row[r]:
            if slot.face_up or slot.card in seen:
                slots.append(
                    {**_contract_view(slot.card), "face_up": slot.face_up, "peeked": not slot.face_up}
                )
            else:
                slots.append({"card": None, "face_up": False})
        h = s.harbours[r]
        regions.append(
            {
                "region": region.value,
                "open": region_open(s, region) and not war_locked(s, region),
                "war": None if s.war is None or s.war.region != region else s.war.side,
                "harbour": {"coins": h.coins, "passengers": h.passengers, "vip": h.vip},
                "contract_deck": len(s.contract_deck[r]),
                "contract_discard": list(s.contract_discard[r]),
                "contracts": slots,
                "track": [
                    {"seat": st, "capacity": cap, "stayed": ship_of(s, st, cap).stayed}
                    for st, cap in s.tracks[r]
                ],
            }
        )
    players = []
    for p in s.players:
        players.append(
            {
                "seat": p.seat,
                "coins": dict(zip(CURRENCIES, p.coins, strict=True)),
                "money": p.coins[stage],
                "wealth": wealth(s, p.seat),
                "track_space": s.track_space[p.seat],
                "share_value": share_price(s, p.seat),
                "shares": [{"company": c, "number": n} for c, n in p.shares],
                "reputation": {
                    **{region.value: p.reputation[r] for r, region in enumerate(REGIONS)},
                    adv.UK_REP: p.uk_reputation,
                },
                "separate_income": p.separate_income,
                "ships": [
                    {
                        "card": sh.card,
                        "capacity": sh.capacity,
                        "location": sh.location,
                        "cargo": sh.cargo,
                        "stayed": sh.stayed,
                        **_ship_card_view(sh.card),
                    }
                    for sh in p.ships
                ],
            }
        )
    return {
        "round": s.round,
        "stage": STAGE_NAMES[stage],
        "currency": CURRENCIES[stage],
        "phase": s.phase.value,
        "turn_order": list(s.turn_order),
        "awaiting": list(s.awaiting),
        "demand": {
            "tokens": s.demand,
            "length": len(C.demand_row),
            "next_price": C.demand_row[s.demand] if s.demand < len(C.demand_row) else C.guaranteed_price,
        },
        "ship_row": [{"card": c, **_ship_card_view(c)} for c in s.ship_row],
        "ship_deck": len(s.ship_deck),
        "ship_discard": list(s.ship_discard),
        "regions": regions,
        "war_threshold": C.war_threshold[s.players_count],
        "players": players,
        "bank_shares": [{"company": c, "number": n} for c, n in s.bank_shares],
        "modules": {"shares_trade": s.options.shares_trade, "reputation": s.options.reputation},
        "revealed": _revealed_view(s),
        "payment": None
        if s.payment is None
        else {
            "seat": s.payment.seat,
            "amount": s.payment.amount,
            "currency": currency(s),
            "purpose": str(s.payment.purpose),
            "mandatory": s.payment.mandatory,
            "short": max(0, s.payment.amount - money(s, s.payment.seat)),
        },
        "auction": _auction_view(s),
        "bank_auction_queue": [{"company": c, "number": n} for c, n in s.bank_queue],
        "supply": {
            "coins": s.supply_coins,
            "passengers": s.supply_passengers,
            "vip": s.supply_vip,
            "good_ol_ships": s.supply_good_ol,
        },
    }


def _revealed_view(s: State) -> dict[str, Any] | None:
    if not s.revealed or s.revealed == "?":
        return None
    if s.revealed in C.contracts:
        return {"kind": "contract", **_contract_view(s.revealed)}
    return {"kind": "ship", "card": s.revealed, **_ship_card_view(s.revealed)}


def _auction_view(s: State) -> dict[str, Any] | None:
    a = s.auction
    if a is None:
        return None
    return {
        "company": a.company,
        "number": a.number,
        "seller": None if a.seller < 0 else a.seller,
        "start": a.base,
        "currency": CURRENCIES[a.currency],
        "floor": a.floor,
        "bidders": list(a.bidders),
        "high_bidder": None if a.high_bidder < 0 else a.high_bidder,
        "high_bid": dict(zip(CURRENCIES, a.high_bid, strict=True)) if a.high_bidder >= 0 else None,
        "standing": adv.standing(a),
        "awaiting": list(s.awaiting),
        "unit": dict(zip(CURRENCIES, UNIT, strict=True)),
    }


def _contract_view(card: str) -> dict[str, Any]:
    c = C.contracts[card]
    return {
        "card": c.id,
        "price": c.price,
        "cotton": c.cotton,
        "unrest": c.unrest,
        "coins": c.coins,
        "passengers": c.passengers,
        "vip": c.vip,
        "drought": c.drought,
    }


def _ship_card_view(card: str) -> dict[str, Any]:
    c = C.ship(card)
    return {"cabins": c.cabins, "fast": c.fast, "new": c.new, "value": c.value, "maintenance": c.maintenance}
