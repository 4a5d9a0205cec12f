"""The ledger's aggregates: Game (``game``), Player (``player``) and League (``league``)."""

from ledger.domain.game import (
    ABANDONED,
    ACTIVE,
    ADMIN,
    ANNULLED,
    BOT,
    FINISHED,
    GAME_TOPICS,
    WAITING,
    Game,
    final_standings,
    split_effects,
)
from ledger.domain.league import League, LeagueGame
from ledger.domain.player import Player

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "ADMIN",
    "ANNULLED",
    "BOT",
    "FINISHED",
    "GAME_TOPICS",
    "WAITING",
    "Game",
    "League",
    "LeagueGame",
    "Player",
    "final_standings",
    "split_effects",
]
