"""The League aggregate: a named set of games whose results are counted together, its organiser,
members and admission."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate


class League(Aggregate):
    """A league: a named set of games whose results are counted together."""

    TOPIC = "gameledger.league"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.league.created"
        name: str
        title: str | None
        created_by: str

    class GameAdded(Aggregate.Event):
        TOPIC = "gameledger.league.game_added"
        game_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.games.append(self.game_id)

    class Closed(Aggregate.Event):
        TOPIC = "gameledger.league.closed"

        def apply(self, aggregate: Any) -> None:
            aggregate.closed = True

    class AdmissionChanged(Aggregate.Event):
        """Members only: new games in the league, and seats in its games, are for its
        organiser and members; otherwise (the default) for any player."""

        TOPIC = "gameledger.league.admission_changed"
        members_only: bool

        def apply(self, aggregate: Any) -> None:
            aggregate.members_only = self.members_only

    class BotsCounted(Aggregate.Event):
        """A league for bots: its standings and ratings count players registered as bots (every
        other league leaves them out)."""

        TOPIC = "gameledger.league.bots_counted"

        def apply(self, aggregate: Any) -> None:
            aggregate.for_bots = True

    class MemberAdded(Aggregate.Event):
        TOPIC = "gameledger.league.member_added"
        player_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members.append(self.player_id)

    class MemberRemoved(Aggregate.Event):
        TOPIC = "gameledger.league.member_removed"
        player_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.members.remove(self.player_id)

    def __init__(self, name: str, title: str | None, created_by: str) -> None:
        self.name = name
        self.title = title
        self.created_by = created_by
        self.games: list[str] = []
        self.closed = False
        self.members_only = False
        self.members: list[str] = []
        self.for_bots = False

    def is_member(self, player: str) -> bool:
        """Enrolled in the league (its organiser is, from its creation), whatever its admission."""
        return player == self.created_by or player in self.members

    def admits(self, player: str) -> bool:
        """May this player open a game in the league or take a seat in one of its games?"""
        return not self.members_only or player == self.created_by or player in self.members

    @classmethod
    def create(
        cls, league_id: UUID, name: str, title: str | None, created_by: str, timestamp: datetime
    ) -> League:
        return cast(
            League,
            cls._create(
                cls.Created, id=league_id, name=name, title=title, created_by=created_by, timestamp=timestamp
            ),
        )

    def add_game(self, game_id: str, timestamp: datetime) -> None:
        self.trigger_event(self.GameAdded, game_id=game_id, timestamp=timestamp)

    def close(self, timestamp: datetime) -> None:
        self.trigger_event(self.Closed, timestamp=timestamp)

    def set_admission(self, members_only: bool, timestamp: datetime) -> None:
        if members_only != self.members_only:
            self.trigger_event(self.AdmissionChanged, members_only=members_only, timestamp=timestamp)

    def count_bots(self, timestamp: datetime) -> None:
        if not self.for_bots:
            self.trigger_event(self.BotsCounted, timestamp=timestamp)

    def add_member(self, player_id: str, timestamp: datetime) -> None:
        if player_id not in self.members:
            self.trigger_event(self.MemberAdded, player_id=player_id, timestamp=timestamp)

    def remove_member(self, player_id: str, timestamp: datetime) -> None:
        if player_id in self.members:
            self.trigger_event(self.MemberRemoved, player_id=player_id, timestamp=timestamp)


LEAGUE_GAME_NAMESPACE = UUID("5a0d2f6e-93c4-4b1e-8f27-c1d9e6a4b370")


class LeagueGame(Aggregate):
    """Which league counts a game added to one after its creation (the id derives from the
    game's): saved in one transaction with that league's ``GameAdded``, so two leagues cannot
    both take a game (the second save meets the first's version). A game created in a league
    names it itself (``Game.league``)."""

    TOPIC = "gameledger.league_game"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.league_game.created"
        league_id: str

    def __init__(self, league_id: str) -> None:
        self.league_id = league_id

    @staticmethod
    def id_for(game_id: str) -> UUID:
        return uuid5(LEAGUE_GAME_NAMESPACE, game_id)

    @classmethod
    def claim(cls, game_id: str, league_id: str, timestamp: datetime) -> LeagueGame:
        return cast(
            LeagueGame,
            cls._create(cls.Created, id=cls.id_for(game_id), league_id=league_id, timestamp=timestamp),
        )
