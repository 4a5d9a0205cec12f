"""The ledger's league use cases: a league created, organised (members, admission), its games
added, closed; and the checks a new game or a seat in a league's game passes."""

from __future__ import annotations

import contextlib
import unicodedata
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError

from ledger import registry
from ledger.domain import ADMIN, Game, League, LeagueGame, Player
from ledger.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError
from ledger.retry import retrying

LEAGUE_NAMESPACE = uuid.UUID("0b7e3a1c-5d2f-4e8a-9c61-7f3d2b1a0e55")


def league_id_for(name: str) -> UUID:
    """League names are unique (case-insensitively): the id derives from the name."""
    return uuid.uuid5(LEAGUE_NAMESPACE, unicodedata.normalize("NFC", name).strip().casefold())


class LeagueUseCases(Application[UUID]):
    """A part of the ``Ledger``: its league use cases."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]

        def get_player(self, player_id: UUID | str) -> Player: ...
        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...

    def create_league(
        self,
        *,
        creator: str,
        name: str,
        title: str | None = None,
        members_only: bool = False,
        members: list[str] | None = None,
        for_bots: bool = False,
    ) -> League:
        clean = unicodedata.normalize("NFC", name).strip()
        if not 1 <= len(clean) <= 80 or not clean.isprintable():
            raise InvalidRequestError(
                "A league name is 1 to 80 printable characters.", code="request/invalid_name"
            )
        if title is not None:
            registry.meta(title)
        now = self.clock()
        league = League.create(league_id_for(clean), clean, title, creator, now)
        league.set_admission(members_only, now)
        if for_bots:  # its standings and ratings count bot players
            league.count_bots(now)
        for member in members or ():
            league.add_member(str(self.get_player(member).id), now)
        try:
            self.save(league)
        except IntegrityError:
            raise ConflictError(f"A league named {clean!r} exists.", code="league/exists") from None
        return league

    def get_league(self, league: UUID | str) -> League:
        """A league by id or by name."""
        try:
            lid = UUID(str(league))
        except ValueError:
            lid = league_id_for(str(league))
        try:
            found: Any = self.repository.get(lid)
        except AggregateNotFoundError:
            raise NotFoundError(f"No league {league}.", code="league/not_found") from None
        if not isinstance(found, League):
            raise NotFoundError(f"No league {league}.", code="league/not_found")
        return found

    def _check_organiser(self, league: League, who: str) -> None:
        if who not in (league.created_by, ADMIN):
            raise ForbiddenError("Only the league's organiser may do that.", code="league/not_organiser")
        if league.closed:
            raise ConflictError("The league is closed.", code="league/closed")

    @staticmethod
    def _check_admitted(league: League, player: str) -> None:
        if player != ADMIN and not league.admits(player):
            raise ForbiddenError(
                f"League {league.name!r} is for its members: ask its organiser to add you.",
                code="league/members_only",
            )

    def _organise(self, league: UUID | str, by: str, change: Callable[[League], None]) -> League:
        """The organiser's load-decide-save of a league: run again on the new version when
        another writer saved the league first (every change here is safe to re-run)."""

        def attempt() -> League:
            found = self.get_league(league)
            self._check_organiser(found, by)
            change(found)
            self.save(found)
            return found

        return retrying(attempt, code="league/conflict")

    def set_league_admission(self, league: UUID | str, members_only: bool, by: str) -> League:
        return self._organise(league, by, lambda found: found.set_admission(members_only, self.clock()))

    def add_league_member(self, league: UUID | str, player_id: str, by: str) -> League:
        member = str(self.get_player(player_id).id)
        return self._organise(league, by, lambda found: found.add_member(member, self.clock()))

    def remove_league_member(self, league: UUID | str, player_id: str, by: str) -> League:
        """Takes away the right to open games and take seats in the league; games already
        played or under way stay in it."""
        with contextlib.suppress(ValueError):
            player_id = str(UUID(player_id))

        def change(found: League) -> None:
            if player_id not in found.members:
                raise NotFoundError(f"{player_id} is not a member of the league.", code="league/not_a_member")
            found.remove_member(player_id, self.clock())

        return self._organise(league, by, change)

    def _league_for_new_game(self, league: str, creator: str, title: str) -> League:
        found = self.get_league(league)
        if found.closed:
            raise ConflictError("The league is closed.", code="league/closed")
        self._check_admitted(found, creator)
        if found.title and found.title != title:
            raise InvalidRequestError(
                f"League {found.name!r} is for {found.title}.", code="league/wrong_title"
            )
        return found

    def add_game_to_league(self, league: UUID | str, game_id: UUID | str, by: str) -> League:
        """The organiser adds a game: of the league's title, in no other league, not a sandbox
        fork, (a members-only league) with every seat held by a member, and either a game the
        organiser created or one whose every seat a member holds; each refusal has its own
        code."""

        def attempt() -> League:
            found = self.get_league(league)
            self._check_organiser(found, by)
            game = self.get_game(game_id)
            gid = str(game.id)
            if gid in found.games:
                raise ConflictError("The game is already in the league.", code="league/game_already_added")
            try:
                claim: Any = self.repository.get(LeagueGame.id_for(gid))
            except AggregateNotFoundError:
                claim = None
            self._check_game_admissible(found, game, game.league or (claim and claim.league_id))
            self._check_not_squatted(found, game, by)
            now = self.clock()
            found.add_game(gid, now)
            self.save(found, LeagueGame.claim(gid, str(found.id), now) if claim is None else None)
            return found

        return retrying(attempt, code="league/conflict")

    def _check_game_admissible(self, found: League, game: Game, counted_in: str | None) -> None:
        if found.title and game.title != found.title:
            raise InvalidRequestError(
                f"League {found.name!r} is for {found.title}.", code="league/wrong_title"
            )
        if game.sandbox:
            raise InvalidRequestError(
                "A what-if fork is never counted in a league.", code="league/sandbox_game"
            )
        if counted_in and counted_in != str(found.id):
            raise ConflictError(
                "The game is already counted in another league.", code="league/game_in_other_league"
            )
        if found.members_only:
            strangers = [s for s, p in enumerate(game.seats) if p is None or not found.admits(p)]
            if strangers:
                raise ConflictError(
                    f"League {found.name!r} is for its members: seats {strangers} are open or held by "
                    "players who are not members.",
                    code="league/seats_not_members",
                    seats=strangers,
                )

    @staticmethod
    def _check_not_squatted(found: League, game: Game, by: str) -> None:
        """A game joins a league by its creator's hand (or the operator's), or with every seat
        held by one of the league's members (its organiser included): an organiser cannot claim strangers' games
        for his standings, which would keep them out of their own players' league."""
        if by in (game.created_by, ADMIN):  # the operator, who plays no seat, may add any game
            return
        strangers = [s for s, p in enumerate(game.seats) if p is None or not found.is_member(p)]
        if strangers:
            raise ForbiddenError(
                f"Only the game's creator may add it to a league, unless every seat is held by a "
                f"member of {found.name!r}: seats {strangers} are open or held by players who are not.",
                code="league/not_your_game",
                seats=strangers,
            )

    def close_league(self, league: UUID | str, by: str) -> League:
        return self._organise(league, by, lambda found: found.close(self.clock()))
