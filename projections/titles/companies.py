"""The effects both Arkwright titles record for a company: cash, shares, loans, share value; their
final worth (shares times share value); and the ranking every title's scoreboard shares."""

from __future__ import annotations

from collections.abc import Callable
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


def rank_seats(doc: dict[str, Any], key: Callable[[dict[str, Any]], tuple[int, int]]) -> None:
    """Each seat's ``rank``: the finished game's recorded standings once there are any, else 1 +
    the number of seats ahead of it by ``key`` (equal keys share a rank)."""
    if doc.get("standings"):
        ranks = {x["seat"]: x["rank"] for x in doc["standings"]}
        for s in doc["seats"]:
            s["rank"] = ranks.get(s["seat"])
        return
    for s in doc["seats"]:
        s["rank"] = 1 + sum(1 for o in doc["seats"] if key(o) > key(s))


class CompanyScoreboard:
    """What both Arkwright titles' scoreboards finish alike: a company is worth its shares times the
    share value, and seats rank by that, ties going to more cash."""

    def finish(self, doc: dict[str, Any]) -> None:
        for s in doc["seats"]:
            s["shares_held"] = s["shares"]
            s["portfolio_value"] = s["shares"] * s["share_value"]
        rank_seats(doc, lambda s: (s["portfolio_value"], s["cash"]))
