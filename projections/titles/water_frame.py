"""Water Frame's scoreboard, reduced from the public effects of its events.

Portfolio value is shares held times the share value of the track space
([R16 §8.0]); seats rank by it, ties going to more cash; players with loans
at the end are eliminated ([R16 §8.0]) and the recorded standings rank once
the game is finished.
"""

from __future__ import annotations

from typing import Any

from ledger.games.water_frame.components import load
from projections.titles.companies import CompanyScoreboard, apply_company_effect

C = load()


class WaterFrameScoreboard(CompanyScoreboard):
    def initial(self, created: dict[str, Any]) -> dict[str, Any]:
        return {
            "title": "water-frame",
            "decade": 1760,
            "cycle": None,
            "active_good": None,
            "start_player": 0,
            "seats": [
                {
                    "seat": i,
                    "cash": 0,
                    "shares": C.start_shares,
                    "loans": 0,
                    "space": C.share_start,
                    "share_value": C.share_value(C.share_start),
                    "factories": {},
                    "goods_sold": 0,
                }
                for i in range(created["seat_count"])
            ],
        }

    def apply(self, doc: dict[str, Any], e: dict[str, Any]) -> None:
        kind = e["kind"]
        seats = doc["seats"]
        if apply_company_effect(seats, e):
            return
        if kind == "decade_started":
            doc["decade"] = e["decade"]
        elif kind == "cycle_started":
            doc["cycle"], doc["active_good"] = e["cycle"], e["good"]
        elif kind in ("start_player_drawn", "start_player_changed"):
            doc["start_player"] = e["seat"]
        elif kind in ("factory_founded", "factory_built"):
            seats[e["seat"]]["factories"][e["good"]] = e.get("level", 1)
        elif kind == "factory_modernized":
            seats[e["seat"]]["factories"][e["good"]] = e["level"]
        elif kind == "factory_closed":
            seats[e["seat"]]["factories"].pop(e["good"], None)
        elif kind == "goods_sold":
            seats[e["seat"]]["goods_sold"] += e["from_production"] + e["from_stock"]


REDUCER = WaterFrameScoreboard()
