"""The effects both Arkwright titles record for a company: cash, shares, loans, share value."""

from __future__ import annotations

from typing import Any


def apply_company_effect(seats: list[dict[str, Any]], e: dict[str, Any]) -> bool:
    """Update a seat's row from a company effect; False when the effect is not one of them."""
    kind = e["kind"]
    if kind == "money_changed":
        seats[e["seat"]]["cash"] = e["balance"]
    elif kind == "shares_changed":
        seats[e["seat"]]["shares"] = e["held"]
    elif kind == "loans_changed":
        seats[e["seat"]]["loans"] = e["loans"]
    elif kind == "share_price_changed":
        seat = seats[e["company"]]
        seat["space"], seat["share_value"] = e["space_to"], e["value_to"]
    else:
        return False
    return True
