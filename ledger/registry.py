"""The titles the ledger knows, by id. Metadata loads without the engines."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

from ledger.engine import RulesEngine, TitleMeta
from ledger.errors import NotFoundError
from ledger.games.arkwright_card_game.meta import META as ARKWRIGHT_CARD_GAME
from ledger.games.cotton_trade.meta import META as COTTON_TRADE
from ledger.games.water_frame.meta import META as WATER_FRAME

TITLES: dict[str, TitleMeta] = {meta.id: meta for meta in (COTTON_TRADE, WATER_FRAME, ARKWRIGHT_CARD_GAME)}


def meta(title_id: str) -> TitleMeta:
    try:
        return TITLES[title_id]
    except KeyError:
        raise NotFoundError(f"Unknown title {title_id!r}.", code="game/unknown_title") from None


@cache
def bot(title_id: str) -> Callable[[Any, int], Any] | None:
    """The title's scripted player ``choose(state, seat) -> decision``, if it has one."""
    package = meta(title_id).engine_module.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.bot")
    except ModuleNotFoundError:
        return None
    return module.choose  # type: ignore[no-any-return]


@cache
def engine(title_id: str) -> RulesEngine:
    module = importlib.import_module(meta(title_id).engine_module)
    return module.ENGINE  # type: ignore[no-any-return]
