"""The ledger's season use cases: a league's season created, its players enrolled, its rounds
seated (games created and started), its deadlines kept, its rounds closed and the season ended.

Every refusal has a stable code and changes nothing. Bounds: ``MAX_ROUNDS`` rounds,
``MAX_SEASON_PLAYERS`` players, ``MAX_SEASONS`` seasons a league, ``MAX_ROUND_HOURS`` hours a
round; points 0 to ``MAX_POINTS`` a place.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError
from pydantic import ValidationError

from ledger import registry
from ledger.clocks import parse_time_control
from ledger.domain import ACTIVE, ADMIN, BOT, FINISHED, Game, League
from ledger.domain.season import DIRECTORY_ID, Season, SeasonDirectory
from ledger.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError
from ledger.preview import first_error
from ledger.retry import retrying
from ledger.season_standings import (
    DEFAULT_POINTS,
    DEFAULT_TIE_BREAKS,
    TIE_BREAKS,
    Result,
    ranking_for_round,
    season_history,
    standings,
)
from ledger.seating import (
    MAX_TABLE,
    SeatingError,
    first_turn_order,
    game_seed,
    seat_round,
    seats_from,
    table_sizes,
)

MAX_ROUNDS = 50
MAX_SEASON_PLAYERS = 1000
MAX_SEASONS = 100
MAX_ROUND_HOURS = 24 * 90
MAX_POINTS = 1000
MAX_RUNNING_CHECKED = 10_000  # seasons the clock looks at in one tick
PLAY_OUT_REQUESTS = 2  # runs of automatic decisions (each at most MAX_REQUEST_STEPS) a late game gets a tick
PLAY_OUTS_PER_TICK = 8  # late games of one season played out in one tick (the rest: the next ticks)
FORMATS = ("swiss", "round_robin", "open")
DEADLINE_RULES = ("bot", "forfeit")


def _bad(message: str, code: str = "season/invalid") -> InvalidRequestError:
    return InvalidRequestError(message, code=code)


def season_spec(title: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The season's rules, checked against the title, with every default filled in."""
    meta = registry.meta(title)
    fmt = raw.get("format", "swiss")
    if fmt not in FORMATS:
        raise _bad(f"format is one of {list(FORMATS)}.", "season/invalid_format")
    rounds = raw.get("rounds", 0 if fmt == "open" else 3)
    if not isinstance(rounds, int) or not (0 if fmt == "open" else 1) <= rounds <= MAX_ROUNDS:
        raise _bad(f"rounds is 1 to {MAX_ROUNDS}.", "season/invalid_rounds")
    high_default = min(meta.max_players, 4)
    low = raw.get("table_min", raw.get("table_max", high_default))
    high = raw.get("table_max", max(low, high_default) if isinstance(low, int) else high_default)
    if (
        not isinstance(low, int)
        or not isinstance(high, int)
        or not meta.min_players <= low <= high <= min(meta.max_players, MAX_TABLE)
    ):
        raise _bad(
            f"Tables of {meta.name} seat {meta.min_players} to {meta.max_players}: table_min <= table_max "
            "within that range.",
            "season/invalid_table_size",
        )
    points: dict[str, list[int]] = {}
    given = raw.get("points") or {}
    if not isinstance(given, dict):
        raise _bad("points maps a table size to its places' points.", "season/invalid_points")
    for k in range(low, high + 1):
        row = given.get(str(k), given.get(k)) if given else None
        row = list(DEFAULT_POINTS[k]) if row is None else row
        if (
            not isinstance(row, list)
            or len(row) != k
            or not all(isinstance(x, int) and 0 <= x <= MAX_POINTS for x in row)
            or any(a < b for a, b in itertools.pairwise(row))
        ):
            raise _bad(
                f"points for {k} players: {k} whole numbers 0 to {MAX_POINTS}, first place's the most.",
                "season/invalid_points",
            )
        points[str(k)] = row
    extra = set(map(str, given)) - set(points)
    if extra:
        raise _bad(
            f"points given for table sizes outside {low}-{high}: {sorted(extra)}.", "season/invalid_points"
        )
    ties = raw.get("tie_breaks", list(DEFAULT_TIE_BREAKS))
    if (
        not isinstance(ties, list)
        or len(ties) > len(TIE_BREAKS)
        or len(set(ties)) != len(ties)
        or any(t not in TIE_BREAKS for t in ties)
    ):
        raise _bad(f"tie_breaks: distinct names from {list(TIE_BREAKS)}.", "season/invalid_tie_breaks")
    try:
        options = meta.options.model_validate(raw.get("options") or {}).model_dump(mode="json")
    except ValidationError as exc:
        raise _bad(
            f"Invalid options for {meta.name}: {first_error(exc)}", "request/invalid_options"
        ) from None
    clock = parse_time_control(raw.get("time_control"))
    hours = raw.get("round_hours", 24 * 7)
    if not isinstance(hours, int) or not 1 <= hours <= MAX_ROUND_HOURS:
        raise _bad(f"round_hours is 1 to {MAX_ROUND_HOURS}.", "season/invalid_deadline")
    rule = raw.get("on_deadline", "bot")
    if rule not in DEADLINE_RULES:
        raise _bad(f"on_deadline is one of {list(DEADLINE_RULES)}.", "season/invalid_deadline")
    return {
        "format": fmt,
        "rounds": rounds,
        "table_min": low,
        "table_max": high,
        "points": points,
        "tie_breaks": list(ties),
        "options": options,
        "time_control": clock,
        "round_hours": hours,
        "on_deadline": rule,
    }


class SeasonUseCases(Application[UUID]):
    """A part of the ``Ledger``: its season use cases."""

    if TYPE_CHECKING:  # what they use of the rest of the ledger
        clock: Callable[[], datetime]
        entropy: Callable[[int], bytes]

        def get_league(self, league: UUID | str) -> League: ...
        def get_game(self, game_id: UUID | str, version: int | None = None) -> Game: ...
        def get_player(self, player_id: UUID | str) -> Any: ...
        def create_game(
            self,
            *,
            creator: str,
            title: str,
            options: dict[str, Any] | None = None,
            seats: int | None = None,
            players: list[str] | None = None,
            join: bool = True,
            idempotency_key: str | None = None,
            league: str | None = None,
            time_control: dict[str, Any] | None = None,
            seed: bytes | None = None,
        ) -> Game: ...
        def _check_organiser(self, league: League, who: str) -> None: ...
        def _run_automatic(self, game: Game) -> None: ...
        def _save_game(self, game: Game) -> list[Any]: ...

    # -- reading -------------------------------------------------------------------------

    def get_season(self, league: UUID | str, number: int) -> Season:
        found_league = self.get_league(league)
        if not 1 <= number <= MAX_SEASONS:
            raise NotFoundError(f"No season {number}.", code="season/not_found")
        try:
            found: Any = self.repository.get(Season.id_for(str(found_league.id), number))
        except AggregateNotFoundError:
            raise NotFoundError(
                f"No season {number} in {found_league.name!r}.", code="season/not_found"
            ) from None
        return found  # type: ignore[no-any-return]

    def league_seasons(self, league: UUID | str) -> list[Season]:
        found_league = self.get_league(league)
        out: list[Season] = []
        for n in range(1, MAX_SEASONS + 1):
            try:
                out.append(self.repository.get(Season.id_for(str(found_league.id), n)))
            except AggregateNotFoundError:
                break
        return out

    def season_standings(self, season: Season) -> list[dict[str, Any]]:
        results = [Result.from_dict(r) for r in season.results]
        return standings(season.players, results, season.spec["points"], season.spec["tie_breaks"])

    # -- creating and enrolling ------------------------------------------------------------

    def create_season(self, league: UUID | str, by: str, raw: dict[str, Any]) -> Season:
        def attempt() -> Season:
            found = self.get_league(league)
            self._check_organiser(found, by)
            title = found.title or raw.get("title")
            if not title:
                raise _bad("The league counts every title: name the season's title.", "season/title_needed")
            if found.title and raw.get("title") not in (None, found.title):
                raise _bad(f"League {found.name!r} is for {found.title}.", "league/wrong_title")
            spec = season_spec(title, raw)
            seasons = self.league_seasons(found.id)
            if len(seasons) >= MAX_SEASONS:
                raise ConflictError(f"A league has at most {MAX_SEASONS} seasons.", code="season/too_many")
            now = self.clock()
            season = Season.create(
                league_id=str(found.id),
                number=len(seasons) + 1,
                title=title,
                spec=spec,
                created_by=by,
                seed=self.entropy(32),
                timestamp=now,
            )
            directory = self._directory(now)
            directory.open(str(season.id), now)
            self.save(season, directory)
            return season

        return retrying(attempt, code="season/conflict")

    def _directory(self, now: datetime) -> SeasonDirectory:
        try:
            found: Any = self.repository.get(DIRECTORY_ID)
        except AggregateNotFoundError:
            return SeasonDirectory.create(now)
        return found  # type: ignore[no-any-return]

    def running_seasons(self) -> list[str]:
        try:
            found: Any = self.repository.get(DIRECTORY_ID)
        except AggregateNotFoundError:
            return []
        return list(found.running)[:MAX_RUNNING_CHECKED]

    def enrol(
        self, league: UUID | str, number: int, player_id: str, by: str, *, as_organiser: bool | None = None
    ) -> Season:
        """A player signs up (``by`` is the player), or the organiser enrols them
        (``as_organiser``: only the organiser may, whoever is named); before the first round is
        seated, and in a members-only league only its members."""
        organising = by != player_id if as_organiser is None else as_organiser
        found_league = self.get_league(league)
        if organising:
            self._check_organiser(found_league, by)
        player = str(self.get_player(player_id).id)

        def attempt() -> Season:
            found = self.get_league(league)
            if organising:
                self._check_organiser(found, by)
            elif found.closed:
                raise ConflictError("The league is closed.", code="league/closed")
            season = self.get_season(found.id, number)
            if player == ADMIN or not found.admits(player):
                raise ForbiddenError(
                    f"League {found.name!r} is for its members: ask its organiser to add you.",
                    code="league/members_only",
                )
            if season.spec["format"] == "open":
                raise ConflictError(
                    "An open season has no sign-up: its games are added.", code="season/open_format"
                )
            if season.rounds or season.ended:
                raise ConflictError("The season has started: sign-up is closed.", code="season/started")
            if player not in season.players and len(season.players) >= MAX_SEASON_PLAYERS:
                raise ConflictError(f"A season has at most {MAX_SEASON_PLAYERS} players.", code="season/full")
            season.enrol(player, by, self.clock())
            self.save(season)
            return season

        return retrying(attempt, code="season/conflict")

    # -- rounds --------------------------------------------------------------------------

    def start_round(self, league: UUID | str, number: int, by: str) -> Season:
        """Seat the next round by the published procedure and create and start its games."""
        found = self.get_league(league)
        self._check_organiser(found, by)
        self.settle_season(self.get_season(found.id, number))
        season = self.get_season(found.id, number)
        spec = season.spec
        if spec["format"] == "open":
            raise ConflictError("An open season has no rounds: add its games.", code="season/open_format")
        if season.ended or len(season.rounds) >= spec["rounds"]:
            raise ConflictError("Every round of the season has been played.", code="season/over")
        if season.round_open:
            raise ConflictError("The current round has games still running.", code="season/round_running")
        round_no = len(season.rounds) + 1
        seed = season.seed_bytes
        results = [Result.from_dict(r) for r in season.results]
        ranking = ranking_for_round(season.players, results, spec, seed, round_no)
        met, positions = season_history(season.rounds, spec["table_max"])
        try:
            table_sizes(len(ranking), spec["table_min"], spec["table_max"])
            turns = seat_round(ranking, spec["table_min"], spec["table_max"], met, positions)
        except SeatingError as exc:
            raise ConflictError(
                f"{len(ranking)} players cannot be seated at tables of {spec['table_min']} to "
                f"{spec['table_max']}: {exc}.",
                code="season/cannot_seat",
            ) from None
        tables = []
        for i, turn in enumerate(turns):
            gseed = game_seed(seed, round_no, i)
            order = first_turn_order(season.title, spec["options"], len(turn), gseed)
            seats = seats_from(turn, order)
            game = self.create_game(
                creator=season.created_by,
                title=season.title,
                options=spec["options"],
                players=list(seats),
                league=str(found.id),
                time_control=spec["time_control"] if spec["time_control"].get("kind") == "clock" else None,
                seed=gseed,
                idempotency_key=f"season:{season.id}:{round_no}:{i}",
            )
            tables.append(
                {"game": str(game.id), "seats": list(seats), "turn": list(turn), "order": list(order)}
            )

        def attempt() -> Season:
            again = self.get_season(found.id, number)
            if len(again.rounds) >= round_no:
                raise ConflictError("The round was seated by another request.", code="season/conflict")
            now = self.clock()
            deadline = (now + timedelta(hours=spec["round_hours"])).isoformat()
            again.seat(round_no, ranking, tables, deadline, now)
            self.save(again)
            return again

        return retrying(attempt, code="season/conflict")

    def settle_season(self, season: Season, now: datetime | None = None) -> Season:
        """What the clock does for a season: past the deadline, its games follow the season's
        rule; a round whose games are all over closes; after the last round the season ends."""
        now = now or self.clock()
        current = season.current
        if season.ended or current is None or current.get("closed"):
            return season
        games = {t["game"]: self.get_game(t["game"]) for t in current["tables"]}
        late = [gid for gid, g in games.items() if not g.over]
        if late and now >= datetime.fromisoformat(current["deadline"]):
            rule = season.spec["on_deadline"]
            if "deadline_games" not in current:
                season.reach_deadline(current["round"], rule, late, now)
                self._save_season(season)
            for gid in late[:PLAY_OUTS_PER_TICK]:
                games[gid] = self.play_out(gid, rule, now)
            late = [gid for gid, g in games.items() if not g.over]
        if late:
            return season
        results = []
        for i, table in enumerate(current["tables"]):
            game = games[table["game"]]
            standings_ = game.standings if game.status == FINISHED else None
            results.append(
                result_dict(season.title, current["round"], i, table["game"], table["seats"], standings_)
            )
        season.close_round(current["round"], results, now)
        if len(season.rounds) >= season.spec["rounds"]:
            season.end(self.season_standings(season), now)
            directory = self._directory(now)
            directory.finish(str(season.id), now)
            self._save_season(season, directory)
        else:
            self._save_season(season)
        return season

    def _save_season(self, season: Season, *others: Any) -> None:
        try:
            self.save(season, *others)
        except IntegrityError:
            raise ConflictError("The season changed meanwhile.", code="season/conflict") from None

    def play_out(self, game_id: str, rule: str, now: datetime) -> Game:
        """A game past its season's deadline: every seat is played by the stand-in (``bot``),
        or (``forfeit``) the seats the game waits for forfeit and the stand-in plays the others,
        until the game ends (or this tick's share of automatic decisions is spent)."""
        game = self.get_game(game_id)
        if game.status != ACTIVE:
            return game
        for seat in range(game.seat_count):
            if seat in game.forfeited or seat in game.stand_in:
                continue
            consequence = "forfeit" if rule == "forfeit" and seat in game.awaiting else BOT
            game.time_out(seat, consequence, 0.0, now)
        for _ in range(PLAY_OUT_REQUESTS):
            self._run_automatic(game)
            if game.over:
                break
        self._save_game(game)
        return game

    def settle_seasons(self, now: datetime | None = None) -> list[str]:
        """The clock's round over every running season; the seasons that changed."""
        changed = []
        for sid in self.running_seasons():
            try:
                season: Any = self.repository.get(UUID(sid))
            except AggregateNotFoundError:
                continue
            before = season.version
            try:
                after = self.settle_season(season, now)
            except ConflictError:
                continue  # another writer moved it: the next tick sees
            if after.version != before:
                changed.append(sid)
        return changed


def result_dict(
    title: str, round_no: int, table: int, game: str, seats: list[str], standings_: Any
) -> dict[str, Any]:
    from ledger.season_standings import result_from_standings

    return result_from_standings(title, round_no, table, game, seats, standings_).as_dict()
