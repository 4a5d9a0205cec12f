"""Cotton Trade's scoreboard, reduced from the public effects of its events.

Wealth is money in the stage's currency plus the value of the ships held
(rulebook, 1. Determine players turn order); a company's share value is read
off its space on the turn-order track; portfolio value is the shares a seat
holds times their companies' share values. While the game runs, seats rank by
wealth, ties going to the later position in turn order (the track keeps the
previous order on ties); once it is finished, the recorded standings rank.
"""

from __future__ import annotations

from typing import Any

from projections.titles.companies import rank_seats

CURRENCIES = ("pence", "shillings", "pounds")
STAGES = ("I", "II", "III")


class CottonTradeScoreboard:
    def initial(self, created: dict[str, Any]) -> dict[str, Any]:
        n = created["seat_count"]
        return {
            "title": "cotton-trade",
            "round": 1,
            "stage": "I",
            "currency": "pence",
            "turn_order": [],
            "bank_shares": [],
            "seats": [
                {
                    "seat": i,
                    "coins": dict.fromkeys(CURRENCIES, 0),
                    "ships": {},
                    "shares": [[i, k] for k in range(1, 5)],
                    "space": 1,
                    "share_value": None,
                    "share_currency": "pence",
                    "reputation": {},
                }
                for i in range(n)
            ],
        }

    def apply(self, doc: dict[str, Any], e: dict[str, Any]) -> None:
        kind = e["kind"]
        seats = doc["seats"]
        if kind == "money_changed":
            seats[e["seat"]]["coins"][e["currency"]] = e["balance"]
        elif kind == "currency_exchanged":
            seats[e["seat"]]["coins"] = dict(zip(CURRENCIES, e["after"], strict=True))
        elif kind == "coins_changed":  # shares trade: a winning bid paid coin for coin
            seats[e["seat"]]["coins"] = dict(zip(CURRENCIES, e["balance"], strict=True))
        elif kind == "share_auctioned":
            share = [e["company"], e["number"]]
            if e["seller"] >= 0:
                seats[e["seller"]]["shares"] = [x for x in seats[e["seller"]]["shares"] if x != share]
            elif e["buyer"] >= 0:
                doc["bank_shares"] = [x for x in doc["bank_shares"] if x != share]
            if e["buyer"] >= 0:
                seats[e["buyer"]]["shares"] = sorted([*seats[e["buyer"]]["shares"], share])
            elif e["seller"] >= 0:
                doc["bank_shares"] = sorted([*doc["bank_shares"], share])
        elif kind in ("reputation_gained", "reputation_spent"):
            seats[e["seat"]]["reputation"][e["region"]] = e["level"]
        elif kind in ("first_player_drawn", "turn_order_determined"):
            doc["turn_order"] = list(e["turn_order"])
        elif kind == "share_price_changed":
            s = seats[e["company"]]
            s["space"], s["share_value"], s["share_currency"] = e["space_to"], e["value_to"], e["currency"]
        elif kind == "round_started":
            doc["round"], doc["stage"] = e["round"], e["stage"]
            doc["currency"] = CURRENCIES[STAGES.index(e["stage"])]
        elif kind == "ship_rented":
            seats[e["seat"]]["ships"][e["card"]] = e["fee"]
        elif kind == "ship_refunded":
            seats[e["seat"]]["ships"].pop(e["card"], None)
        elif kind == "new_ship_kept":
            ships = seats[e["seat"]]["ships"]
            ships.pop(e["card"], None)
            ships["GOOD_OL"] = 0
        elif kind == "share_sold":
            share = [e["company"], e["number"]]
            seats[e["seat"]]["shares"] = [x for x in seats[e["seat"]]["shares"] if x != share]
            doc["bank_shares"] = sorted([*doc["bank_shares"], share])
        elif kind == "share_bought_back":
            share = [e["seat"], e["number"]]
            seats[e["seat"]]["shares"] = sorted([*seats[e["seat"]]["shares"], share])
            holder = e.get("holder", -1)
            if holder >= 0:
                seats[holder]["shares"] = [x for x in seats[holder]["shares"] if x != share]
            else:
                doc["bank_shares"] = [x for x in doc["bank_shares"] if x != share]

    def finish(self, doc: dict[str, Any]) -> None:
        """Derived columns, recomputed after every batch."""
        currency = doc["currency"]
        order = doc["turn_order"]
        values = {s["seat"]: s["share_value"] or 0 for s in doc["seats"]}
        for s in doc["seats"]:
            s["money"] = s["coins"][currency]
            s["ship_value"] = sum(s["ships"].values())
            s["wealth"] = s["money"] + s["ship_value"]
            s["shares_held"] = len(s["shares"])
            s["portfolio_value"] = sum(values[company] for company, _ in s["shares"])
            s["loans"] = 0
            s["turn_position"] = order.index(s["seat"]) + 1 if s["seat"] in order else None
        rank_seats(doc, lambda s: (s["wealth"], s["turn_position"] or 0))


REDUCER = CottonTradeScoreboard()
