"""Arkwright: The Card Game's scoreboard, reduced from the public effects of its events.

A company is worth its shares times the share value ([R003] end of the game);
seats rank by that, ties going to more cash, until the recorded standings (which
count stored goods and the last share purchase) rank the finished game. The
neutral company of a two-player game has a seat of its own in the effects and is
shown as such.
"""

from __future__ import annotations

from typing import Any

from ledger.games.arkwright_card_game.components import load
from projections.titles.companies import CompanyScoreboard, apply_company_effect

C = load()


class CardGameScoreboard(CompanyScoreboard):
    def initial(self, created: dict[str, Any]) -> dict[str, Any]:
        return {
            "title": "arkwright-card-game",
            "decade": None,
            "round": None,
            "active_good": None,
            "start_player": 0,
            "seats": [self._seat(i, created.get("options", {})) for i in range(created["seat_count"])],
        }

    @staticmethod
    def _seat(i: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        options = options or {}
        no_ships = options.get("no_starting_ships") or options.get("expert") == "all"
        return {
            "seat": i,
            "cash": 0,
            "shares": 0,
            "loans": 0,
            "space": None,
            "share_value": 0,
            "ships": 0 if no_ships else C.start_ships,
            "factories": {},
            "goods_sold": 0,
            "eliminated": False,
        }

    def apply(self, doc: dict[str, Any], e: dict[str, Any]) -> None:
        kind = e["kind"]
        seats = doc["seats"]
        seat_no = e.get("seat", e.get("company"))
        if isinstance(seat_no, int):
            while seat_no >= len(seats):  # the neutral company of a two-player game
                seats.append(self._seat(len(seats)))
        if apply_company_effect(seats, e):
            return
        if kind == "ships_changed":
            seats[e["seat"]]["ships"] = e["ships"]
        elif kind in ("factory_built", "factory_upgraded"):
            seats[e["seat"]]["factories"][e["good"]] = e["side"]
        elif kind == "goods_sold":
            seats[e["seat"]]["goods_sold"] += e["from_production"] + e["from_storage"]
        elif kind == "player_eliminated":
            seats[e["seat"]]["eliminated"] = True
        elif kind == "decade_started":
            doc["decade"] = e.get("decade")
        elif kind == "cycle_started":
            doc["round"], doc["active_good"] = e.get("cycle", e.get("round")), e.get("good")
        elif kind in ("start_player_drawn", "start_player_changed"):
            doc["start_player"] = e["seat"]


REDUCER = CardGameScoreboard()
