"""The game table: each title's drawn board, its words, and the framework placing the seat's
legal decisions on it (see ``base``).

To give a title its board: write ``api/web/table/<title>.py`` with a ``Renderer`` subclass
(``draw(table) -> "<svg ...>"``, calling ``table.claim(...)`` and ``table.target(...)`` for
every thing a decision acts on; a ``Board`` draws the titles' layout from its ``_header``,
``_shared`` and ``_player``) and a ``Words`` subclass made with the title's tables (its
decisions and codes in players' words), and add one line to ``RENDERERS``. A title without
one gets the generic table: its HTML board template and every decision in the list in words.
"""

from __future__ import annotations

from api.web.table import arkwright_card_game, cotton_trade, options, water_frame
from api.web.table.base import (
    Board,
    Choice,
    Drawn,
    Menu,
    Renderer,
    Table,
    Words,
    canonical_decision,
    choices_of,
    decision_json,
    render_board,
)

GENERIC = Renderer()

RENDERERS: dict[str, Renderer] = {
    "water-frame": water_frame.RENDERER,
    "arkwright-card-game": arkwright_card_game.RENDERER,
    "cotton-trade": cotton_trade.RENDERER,
}


def renderer_for(title: str) -> Renderer:
    return RENDERERS.get(title, GENERIC)


__all__ = [
    "GENERIC",
    "RENDERERS",
    "Board",
    "Choice",
    "Drawn",
    "Menu",
    "Renderer",
    "Table",
    "Words",
    "canonical_decision",
    "choices_of",
    "decision_json",
    "options",
    "render_board",
    "renderer_for",
]
