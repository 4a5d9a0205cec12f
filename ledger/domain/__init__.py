"""The ledger's aggregates: Game (``game``), Player (``player``), League (``league``) and a game's
table talk, Conversation (``talk``)."""

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
)
from ledger.domain.league import League, LeagueGame
from ledger.domain.player import Player
from ledger.domain.talk import TALK_TOPICS, Conversation, conversation_id

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "ADMIN",
    "ANNULLED",
    "BOT",
    "FINISHED",
    "GAME_TOPICS",
    "TALK_TOPICS",
    "WAITING",
    "Conversation",
    "Game",
    "League",
    "LeagueGame",
    "Player",
    "conversation_id",
]
