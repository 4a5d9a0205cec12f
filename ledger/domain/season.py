"""The Season aggregate: a league's season of rounds, its players, seatings, results and seed.

A season's id derives from its league's and its number. Its stream is, in order: created (the
format, rounds, table sizes, points, tie-breaks, the games' options and time control, the round's
deadline and rule, and the commitment to the season's secret seed), players enrolled, then for
each round: seated (the ranking it was seated from, each table's game, seats and start
positions, the deadline), possibly the deadline reached (the games it caught), closed (each
game's result); finally ended (the seed revealed, the final standings).

``SeasonDirectory`` lists the seasons still running, so that the clock can find their deadlines.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate

from ledger.rng import seed_commitment

SEASON_NAMESPACE = UUID("9d3c2b17-4a6e-4f0b-8e15-2c7a9b4d6e01")


class Season(Aggregate):
    TOPIC = "gameledger.season"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.season.created"
        league_id: str
        number: int
        title: str
        spec: dict[str, Any]
        created_by: str
        seed: str  # secret until the season ends
        seed_commitment: str

    class Enrolled(Aggregate.Event):
        TOPIC = "gameledger.season.enrolled"
        player_id: str
        by: str

        def apply(self, aggregate: Any) -> None:
            aggregate.players.append(self.player_id)

    class RoundSeated(Aggregate.Event):
        TOPIC = "gameledger.season.round_seated"
        round: int
        ranking: list[str]
        tables: list[dict[str, Any]]
        deadline: str

        def apply(self, aggregate: Any) -> None:
            aggregate.rounds.append(
                {
                    "round": self.round,
                    "ranking": self.ranking,
                    "tables": self.tables,
                    "deadline": self.deadline,
                }
            )

    class DeadlineReached(Aggregate.Event):
        TOPIC = "gameledger.season.deadline_reached"
        round: int
        rule: str
        games: list[str]

        def apply(self, aggregate: Any) -> None:
            aggregate.rounds[self.round - 1]["deadline_games"] = self.games

    class RoundClosed(Aggregate.Event):
        TOPIC = "gameledger.season.round_closed"
        round: int
        results: list[dict[str, Any]]

        def apply(self, aggregate: Any) -> None:
            aggregate.rounds[self.round - 1]["closed"] = True
            aggregate.results.extend(self.results)

    class Ended(Aggregate.Event):
        TOPIC = "gameledger.season.ended"
        seed: str
        standings: list[dict[str, Any]]

        def apply(self, aggregate: Any) -> None:
            aggregate.ended = True

    def __init__(
        self,
        league_id: str,
        number: int,
        title: str,
        spec: dict[str, Any],
        created_by: str,
        seed: str,
        seed_commitment: str,
    ) -> None:
        self.league_id = league_id
        self.number = number
        self.title = title
        self.spec = spec
        self.created_by = created_by
        self.seed = seed
        self.seed_commitment = seed_commitment
        self.players: list[str] = []
        self.rounds: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.ended = False

    @staticmethod
    def id_for(league_id: str, number: int) -> UUID:
        return uuid5(SEASON_NAMESPACE, f"{league_id}:{number}")

    @property
    def seed_bytes(self) -> bytes:
        return bytes.fromhex(self.seed)

    @property
    def current(self) -> dict[str, Any] | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def round_open(self) -> bool:
        return bool(self.rounds) and not self.rounds[-1].get("closed")

    @classmethod
    def create(
        cls,
        *,
        league_id: str,
        number: int,
        title: str,
        spec: dict[str, Any],
        created_by: str,
        seed: bytes,
        timestamp: datetime,
    ) -> Season:
        return cast(
            Season,
            cls._create(
                cls.Created,
                id=cls.id_for(league_id, number),
                league_id=league_id,
                number=number,
                title=title,
                spec=spec,
                created_by=created_by,
                seed=seed.hex(),
                seed_commitment=seed_commitment(seed),
                timestamp=timestamp,
            ),
        )

    def enrol(self, player_id: str, by: str, timestamp: datetime) -> None:
        if player_id not in self.players:
            self.trigger_event(self.Enrolled, player_id=player_id, by=by, timestamp=timestamp)

    def seat(
        self,
        round_no: int,
        ranking: list[str],
        tables: list[dict[str, Any]],
        deadline: str,
        timestamp: datetime,
    ) -> None:
        self.trigger_event(
            self.RoundSeated,
            round=round_no,
            ranking=ranking,
            tables=tables,
            deadline=deadline,
            timestamp=timestamp,
        )

    def reach_deadline(self, round_no: int, rule: str, games: list[str], timestamp: datetime) -> None:
        self.trigger_event(self.DeadlineReached, round=round_no, rule=rule, games=games, timestamp=timestamp)

    def close_round(self, round_no: int, results: list[dict[str, Any]], timestamp: datetime) -> None:
        self.trigger_event(self.RoundClosed, round=round_no, results=results, timestamp=timestamp)

    def end(self, standings: list[dict[str, Any]], timestamp: datetime) -> None:
        self.trigger_event(self.Ended, seed=self.seed, standings=standings, timestamp=timestamp)


DIRECTORY_ID = uuid5(SEASON_NAMESPACE, "running seasons")


class SeasonDirectory(Aggregate):
    """The seasons still running, for the clock."""

    TOPIC = "gameledger.season_directory"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.season_directory.created"

    class Opened(Aggregate.Event):
        TOPIC = "gameledger.season_directory.opened"
        season_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.running.append(self.season_id)

    class Finished(Aggregate.Event):
        TOPIC = "gameledger.season_directory.finished"
        season_id: str

        def apply(self, aggregate: Any) -> None:
            if self.season_id in aggregate.running:
                aggregate.running.remove(self.season_id)

    def __init__(self) -> None:
        self.running: list[str] = []

    @classmethod
    def create(cls, timestamp: datetime) -> SeasonDirectory:
        return cast(SeasonDirectory, cls._create(cls.Created, id=DIRECTORY_ID, timestamp=timestamp))

    def open(self, season_id: str, timestamp: datetime) -> None:
        self.trigger_event(self.Opened, season_id=season_id, timestamp=timestamp)

    def finish(self, season_id: str, timestamp: datetime) -> None:
        if season_id in self.running:
            self.trigger_event(self.Finished, season_id=season_id, timestamp=timestamp)
