"""A season's standings: points by place and the ordered tie-breaks, from the games' results.

Pure: the same function serves the API, the seating of the next round and ``gameledger
verify-league``. A result is one game's table: its players seat by seat, their ranks (1 =
first; tied players share a rank, the next rank skips), final values and forfeits; a void
result (the game was abandoned) gives nobody anything.

- **points**: a table of ``k`` players gives the places' points of the season for ``k``
  (default: 4 / 2 / 1 / 0 at four, 3 / 1 / 0 at three, 6 / 4 / 2 / 1 / 0 at five, 8 / 5 / 3 / 2 /
  1 / 0 at six, 2 / 0 at two); players tied on a rank share the points of the places they span
  (their sum divided by their number, rounded down).
- **wins**: the games ranked first (a forfeited seat never wins).
- **average place**: the mean rank (lower is better).
- **score ratio**: the mean, over the player's games, of their final value divided by the
  table's best final value (1 when that is not positive and the player has it; a forfeited
  seat scores 0).
- **opponents' points** (Buchholz): the sum, over every game, of the season points of each
  opponent at that table.
- **head to head**: among the players still tied on every earlier key, the number of those
  players they finished ahead of, less those they finished behind, over the games they shared.
- **rating**: the Plackett-Luce ordinal (openskill defaults: mu 25, sigma 25/3; ordinal =
  mu - 3 sigma), every player starting fresh, the season's games rated in order (round, then
  table), rounded to 4 decimals.

The ranking sorts by points, then each tie-break in the season's order; players still tied
share a place and are listed by the ``last`` key given (their player id for the published
standings, the round's lot for seating).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ledger.seating import lot, pair

TIE_BREAKS = ("points", "wins", "average_place", "score_ratio", "opponents_points", "head_to_head", "rating")
DEFAULT_TIE_BREAKS = ("wins", "opponents_points", "average_place")
DEFAULT_POINTS: dict[int, tuple[int, ...]] = {
    1: (0,),
    2: (2, 0),
    3: (3, 1, 0),
    4: (4, 2, 1, 0),
    5: (6, 4, 2, 1, 0),
    6: (8, 5, 3, 2, 1, 0),
}
LOWER_IS_BETTER = frozenset({"average_place"})


@dataclass(frozen=True)
class Result:
    """One game's table as a season counts it."""

    round: int
    table: int
    game: str
    seats: tuple[str, ...]
    ranks: tuple[int, ...] = ()  # by seat; empty: void
    values: tuple[int, ...] = ()
    forfeited: tuple[bool, ...] = ()

    @property
    def void(self) -> bool:
        return not self.ranks

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round,
            "table": self.table,
            "game": self.game,
            "seats": list(self.seats),
        }
        if not self.void:
            out |= {"ranks": list(self.ranks), "values": list(self.values), "forfeited": list(self.forfeited)}
        else:
            out["void"] = True
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Result:
        return cls(
            round=int(d["round"]),
            table=int(d["table"]),
            game=str(d["game"]),
            seats=tuple(d["seats"]),
            ranks=tuple(int(r) for r in d.get("ranks", ())),
            values=tuple(int(v) for v in d.get("values", ())),
            forfeited=tuple(bool(f) for f in d.get("forfeited", ())),
        )


def result_from_standings(
    title: str,
    round_no: int,
    table: int,
    game: str,
    seats: Sequence[str],
    standings: Sequence[Mapping[str, Any]] | None,
) -> Result:
    """A result from a finished game's recorded standings (its ``finished`` event); ``None``:
    void."""
    if standings is None:
        return Result(round_no, table, game, tuple(seats))
    by_seat = {int(s["seat"]): s for s in standings}
    ranks, values, forfeited = [], [], []
    for seat in range(len(seats)):
        s = by_seat[seat]
        ranks.append(int(s["rank"]))
        values.append(final_value(title, s.get("score", [])))
        forfeited.append(bool(s.get("forfeited", False)))
    return Result(round_no, table, game, tuple(seats), tuple(ranks), tuple(values), tuple(forfeited))


def final_value(title: str, score: Sequence[Any]) -> int:
    """The title's final value in a recorded score: the Arkwright titles record ``(in play,
    value, money)``; Cotton Trade its pounds, shillings and pence (9 and 3 pence), or the total."""
    nums = [int(x) for x in score]
    if title == "cotton-trade":
        return nums[0] * 9 + nums[1] * 3 + nums[2] if len(nums) == 3 else (nums[0] if nums else 0)
    return nums[1] if len(nums) >= 2 else (nums[0] if nums else 0)


def place_points(table: Sequence[int], ranks: Sequence[int]) -> list[int]:
    """Each seat's points: tied seats share the points of the places they span."""
    out = []
    for r in ranks:
        tied = sum(1 for x in ranks if x == r)
        span = [table[p] if p < len(table) else 0 for p in range(r - 1, r - 1 + tied)]
        out.append(sum(span) // tied)
    return out


def points_for(points: Mapping[str, Sequence[int]], k: int) -> Sequence[int]:
    return points.get(str(k)) or DEFAULT_POINTS.get(k, (0,) * k)


@dataclass
class _Row:
    player: str
    points: int = 0
    games: int = 0
    wins: int = 0
    place_sum: int = 0
    ratio: Fraction = Fraction(0)
    opponents: int = 0
    rating: float = 0.0


def _rating(results: Sequence[Result], players: Sequence[str]) -> dict[str, float]:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, Any] = {}
    for r in sorted(results, key=lambda x: (x.round, x.table)):
        if r.void or len(r.seats) < 2:
            continue
        teams = [[current.get(p) or model.rating(name=p)] for p in r.seats]
        rated = model.rate(teams, ranks=list(r.ranks))
        for p, team in zip(r.seats, rated, strict=True):
            current[p] = team[0]
    out = {}
    for p in players:
        rating = current.get(p) or model.rating(name=p)
        out[p] = round(float(rating.ordinal()), 4)
    return out


def standings(
    players: Sequence[str],
    results: Sequence[Result],
    points: Mapping[str, Sequence[int]],
    tie_breaks: Sequence[str],
    last: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """The ranking: one row per player, best first, with ``place`` and every column."""
    rows = {p: _Row(p) for p in players}
    counted = [r for r in results if not r.void]
    for r in counted:
        got = place_points(points_for(points, len(r.seats)), r.ranks)
        best = (
            max(v for v, f in zip(r.values, r.forfeited, strict=True) if not f) if not all(r.forfeited) else 0
        )
        for seat, p in enumerate(r.seats):
            row = rows.setdefault(p, _Row(p))
            row.points += got[seat]
            row.games += 1
            row.place_sum += r.ranks[seat]
            if r.ranks[seat] == 1 and not r.forfeited[seat]:
                row.wins += 1
            if not r.forfeited[seat]:
                value = r.values[seat]
                row.ratio += Fraction(value, best) if best > 0 else Fraction(1 if value >= best else 0)
    for r in counted:
        for p in r.seats:
            rows[p].opponents += sum(rows[o].points for o in r.seats if o != p)
    wanted = ["points", *[t for t in tie_breaks if t != "points"]]
    ratings = _rating(counted, list(rows)) if "rating" in wanted else {}

    def column(key: str, row: _Row, group: set[str]) -> Fraction | int | float:
        if key == "points":
            return row.points
        if key == "wins":
            return row.wins
        if key == "average_place":
            return Fraction(row.place_sum, row.games) if row.games else Fraction(0)
        if key == "score_ratio":
            return row.ratio / row.games if row.games else Fraction(0)
        if key == "opponents_points":
            return row.opponents
        if key == "head_to_head":
            return _head_to_head(row.player, group, counted)
        if key == "rating":
            return ratings.get(row.player, 0.0)
        raise ValueError(f"unknown tie-break {key}")

    values: dict[str, dict[str, Any]] = {p: {} for p in rows}
    groups: list[list[str]] = [sorted(rows, key=last or (lambda p: p))]
    for key in wanted:
        refined: list[list[str]] = []
        for group in groups:
            members = set(group)
            for p in group:
                values[p][key] = column(key, rows[p], members)
            sign = 1 if key in LOWER_IS_BETTER else -1
            ordered = sorted(group, key=lambda p: sign * values[p][key])  # stable: keeps ``last``
            current: list[str] = []
            for p in ordered:
                if current and values[current[-1]][key] != values[p][key]:
                    refined.append(current)
                    current = []
                current.append(p)
            if current:
                refined.append(current)
        groups = refined
    out = []
    place = 1
    for group in groups:
        for p in group:
            row = rows[p]
            out.append({"place": place, "player_id": p, "games": row.games, **_shown(values[p])})
        place += len(group)
    return out


def _shown(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (round(float(v), 4) if isinstance(v, Fraction) else v) for k, v in values.items()}


def _head_to_head(player: str, group: set[str], results: Sequence[Result]) -> int:
    total = 0
    for r in results:
        if player not in r.seats:
            continue
        mine = r.ranks[r.seats.index(player)]
        for seat, other in enumerate(r.seats):
            if other != player and other in group:
                total += (r.ranks[seat] > mine) - (r.ranks[seat] < mine)
    return total


def season_history(
    season_rounds: list[dict[str, Any]], high: int
) -> tuple[Counter[tuple[str, str]], dict[str, list[int]]]:
    """How often each pair has met, and each player's start positions held, in seated rounds."""
    met: Counter[tuple[str, str]] = Counter()
    positions: dict[str, list[int]] = {}
    for rnd in season_rounds:
        for table in rnd["tables"]:
            for pos, p in enumerate(table["turn"]):
                positions.setdefault(p, [0] * high)[pos] += 1
            for a, b in itertools.combinations(table["turn"], 2):
                met[pair(a, b)] += 1
    return met, positions


def ranking_for_round(
    players: list[str], results: list[Result], spec: dict[str, Any], seed: bytes, round_no: int
) -> list[str]:
    """The order a round is seated from: the standings (Swiss), or the lot alone (round robin)."""
    by_lot = sorted(players, key=lambda p: lot(seed, round_no, p))
    if spec["format"] == "round_robin":
        return by_lot
    table = standings(
        by_lot, results, spec["points"], spec["tie_breaks"], last=lambda p: lot(seed, round_no, p)
    )
    return [r["player_id"] for r in table]
