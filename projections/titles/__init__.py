"""What each title's public effects mean for the read models (never the rules themselves)."""

from __future__ import annotations

from typing import Any, Protocol

from projections.titles import arkwright_card_game, cotton_trade, water_frame


class ScoreboardReducer(Protocol):
    def initial(self, created: dict[str, Any]) -> dict[str, Any]: ...
    def apply(self, doc: dict[str, Any], effect: dict[str, Any]) -> None: ...
    def finish(self, doc: dict[str, Any]) -> None: ...


REDUCERS: dict[str, ScoreboardReducer] = {
    "cotton-trade": cotton_trade.REDUCER,
    "water-frame": water_frame.REDUCER,
    "arkwright-card-game": arkwright_card_game.REDUCER,
}


def reducer(title: str) -> ScoreboardReducer | None:
    return REDUCERS.get(title)
