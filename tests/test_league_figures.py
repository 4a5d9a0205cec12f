"""Issue 27 item 1: every published league figure, recomputed from the games' exported records.

A world of people plays every title (tests/league_world.py): mixed player counts, greedy and
random play, Water Frame's start player drawn and chosen, seats that forfeit, an annulled game
per title and an abandoned one. Then the API's league standings and ratings, title statistics
and player statistics are compared with a plain computation over each game's public export
(``ledger.export.game_export``): the finished event's standings, the effects, the timestamps,
and openskill over the results in finishing order. Nothing here reads the read models' tables.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from api.services import Services
from ledger.export import game_export
from tests.api_helpers import API
from tests.league_world import TITLES, World, play_world

ADMIN = {"Authorization": "Bearer test-admin-token-0123456789"}
FINISHED = "gameledger.game.finished"
DECISION = "gameledger.game.decision_recorded"


# --- the plain computation: one game's record -----------------------------------------------


def record_of(services: Services, game_id: str) -> list[dict[str, Any]]:
    """The game's public export (a spectator's: everything, once the game is over), parsed."""
    game = services.ledger.get_game(game_id)
    return [json.loads(line) for line in game_export(services.ledger, game, [], talk=False)]


def pounds_shillings_pence(summary: str) -> int:
    """Cotton Trade's final money from its standing's words ("£29 2s 2d"), in pence."""
    m = re.fullmatch(r"£(-?\d+) (-?\d+)s (-?\d+)d", summary)  # a debt at the end: below zero
    assert m, summary
    return int(m[1]) * 9 + int(m[2]) * 3 + int(m[3])


def seats_of(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's result, read from the record alone."""
    header, events = lines[0], lines[1:]
    title = header["title"]
    created = events[0]
    finished = next(e for e in events if e["type"] == FINISHED)
    effects = [fx for e in events for fx in e["public"].get("effects", [])]
    n = created["public"]["seat_count"]
    order = None
    for fx in effects:
        if fx["kind"] == "first_player_drawn":
            order = fx["turn_order"]
        elif fx["kind"] == "start_player_drawn" or (
            fx["kind"] == "start_player_changed" and fx["reason"] == "named_at_setup"
        ):
            order = [(fx["seat"] + k) % n for k in range(n)]
        if order:
            break
    scored = next((fx["scores"] for fx in effects if fx["kind"] == "game_scored"), None)
    eliminated = {fx["seat"] for fx in effects if fx["kind"] == "player_eliminated"}
    forfeited = {e["public"]["seat"] for e in events if e["public"].get("consequence") == "forfeit"}
    start = datetime.fromisoformat(created["timestamp"])
    end = datetime.fromisoformat(finished["timestamp"])
    decisions = [e for e in events if e["type"] == DECISION]
    out = []
    for s in finished["public"]["standings"]:
        seat = s["seat"]
        if title == "cotton-trade":
            value: int | None = pounds_shillings_pence(s["summary"])
        else:
            value = None if seat in eliminated else scored[seat]
        did: dict[str, Any] = defaultdict(int)
        regions = set()
        for fx in effects:
            if fx.get("seat") != seat:
                continue
            k = fx["kind"]
            if title == "water-frame":
                did["factories"] += k in ("factory_founded", "factory_built")
                did["modernisations"] += k == "factory_modernized"
                did["tiles"] += k == "tile_taken"
                did["contracts"] += k == "contract_delivered"
            elif title == "arkwright-card-game":
                did["development_cards"] += k == "development_card_taken"
                did["factories"] += k == "factory_built" and fx.get("reason") != "setup"
                did["upgrades"] += k == "factory_upgraded"
                did["shipments"] += k == "goods_shipped"
            else:
                did["contracts"] += k == "contract_bought"
                did["voyages"] += k == "ship_sailed"
                did["passengers"] += k == "passengers_carried"
                if k == "contract_bought":
                    regions.add(fx["region"])
        if title == "cotton-trade":
            did["regions"] = len(regions)
        out.append(
            {
                "game": header["game"],
                "title": title,
                "players": n,
                "seat": seat,
                "player": s["player"],
                "rank": s["rank"],
                "won": s["rank"] == 1,
                "value": value,
                "forfeited": seat in forfeited,
                "counts": not (seat in forfeited or seat in eliminated),  # in averages of final values
                "start": order.index(seat) + 1,
                "days": (end - start).total_seconds() / 86400,
                "decisions": len(decisions),
                "by": sum(1 for e in decisions if e["public"]["seat"] == seat and not e["public"].get("by")),
                "end": end,
                "did": dict(did),
            }
        )
    return out


# --- the plain computation: the figures -------------------------------------------------------


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959964
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z / den * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def ratings(games: list[list[dict[str, Any]]]) -> tuple[dict[str, float], dict[str, int]]:
    """openskill (Plackett-Luce) after each game in finishing order: final ordinals, games rated."""
    model = PlackettLuce()
    now: dict[str, Any] = {}
    rated: dict[str, int] = defaultdict(int)
    for seats in sorted(games, key=lambda g: (g[0]["end"], g[0]["game"])):
        seats = sorted(seats, key=lambda s: s["seat"])
        if len(seats) < 2:
            continue
        teams = [[now.get(s["player"]) or model.rating(name=s["player"])] for s in seats]
        for s, team in zip(seats, model.rate(teams, ranks=[s["rank"] for s in seats]), strict=True):
            now[s["player"]] = team[0]
            rated[s["player"]] += 1
    return {p: r.ordinal() for p, r in now.items()}, dict(rated)


def close(a: float | None, b: float | None, tol: float = 1e-3) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= tol


def win_rates(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by: dict[int, list[bool]] = defaultdict(list)
    for s in seats:
        by[s["start"]].append(s["won"])
    out = []
    for pos in sorted(by):
        w = by[pos]
        low, high = wilson(sum(w), len(w))
        out.append({"start_position": pos, "games": len(w), "wins": sum(w), "low": low, "high": high})
    return out


def same_rates(published: list[dict[str, Any]], plain: list[dict[str, Any]]) -> None:
    assert [(r["start_position"], r["games"], r["wins"]) for r in published] == [
        (r["start_position"], r["games"], r["wins"]) for r in plain
    ]
    for a, b in zip(published, plain, strict=True):
        assert close(a["win_rate"], b["wins"] / b["games"], 1e-4)
        assert close(a["low"], b["low"], 1e-4) and close(a["high"], b["high"], 1e-4)


def summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "mean": sum(values) / len(values),
        "max": max(values),
    }


def same_summary(published: dict[str, Any], values: list[float], tol: float = 1e-3) -> None:
    plain = summary(values)
    assert published["count"] == plain["count"]
    for k in ("min", "median", "mean", "max"):
        if k in plain:
            assert close(published[k], plain[k], tol), (k, published[k], plain[k])


# --- the test ------------------------------------------------------------------------------


def check_every_figure(client: TestClient, services: Services, world: World) -> int:
    """Compare each published figure with the plain computation; the number of figures checked."""
    checked = 0
    records = {g: record_of(services, g) for g in world.games}
    status = {g: lines[0]["status"] for g, lines in records.items()}
    assert sorted(g for g, s in status.items() if s == "finished") == sorted(world.finished)
    assert sorted(g for g, s in status.items() if s == "annulled") == sorted(world.annulled)
    seats = [s for g in world.finished for s in seats_of(records[g])]
    assert any(s["forfeited"] for s in seats), "the world has a forfeit"
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in seats:
        by_game[s["game"]].append(s)

    # the leagues' standings and ratings
    for title, league_id in world.leagues.items():
        out = client.get(f"{API}/leagues/{league_id}", headers=ADMIN).json()
        mine = [s for s in seats if s["title"] == title]
        assert out["finished_games"] == len({s["game"] for s in mine})
        rows = {r["player_id"]: r for r in out["standings"]}
        players = {s["player"] for s in mine}
        assert set(rows) == players
        for p in players:
            theirs = [s for s in mine if s["player"] == p]
            row = rows[p]
            assert row["games"] == len(theirs)
            assert row["wins"] == sum(s["won"] for s in theirs)
            assert close(row["average_rank"], mean([s["rank"] for s in theirs]), 1e-4)
            assert close(row["average_final_value"], mean([s["value"] for s in theirs if s["counts"]]), 1e-4)
            assert row["decisions_by"]["person"] == sum(s["by"] for s in theirs)
            checked += 5
        order = sorted(
            players,
            key=lambda p: (
                -rows[p]["wins"],
                mean([s["rank"] for s in mine if s["player"] == p]),
                -rows[p]["games"],
                p,
            ),
        )
        assert [r["player_id"] for r in out["standings"]] == order
        final, rated = ratings([g for g in by_game.values() if g[0]["title"] == title])
        assert {r["player_id"]: r["ordinal"] for r in out["ratings"]}.keys() == final.keys()
        for r in out["ratings"]:
            assert close(r["ordinal"], final[r["player_id"]], 1e-3), "the league's rating"
        history = defaultdict(int)
        for h in out["rating_history"]:
            history[h["player_id"]] += 1
        assert dict(history) == rated, "one rating per player per rated game"
        checked += 3

    # the titles' statistics
    for title in TITLES:
        out = client.get(f"{API}/titles/{title}/stats", headers=ADMIN).json()
        mine = [s for s in seats if s["title"] == title]
        games = {s["game"]: s for s in mine}
        assert out["finished_games"] == len(games)
        assert out["abandoned_games"] == sum(1 for g in world.abandoned if records[g][0]["title"] == title)
        assert out["forfeited_seats"] == sum(s["forfeited"] for s in mine)
        same_rates(out["seat_order_win_rates"], win_rates(mine))
        counts = sorted({s["players"] for s in mine})
        assert sorted(int(n) for n in out["first_player_by_player_count"]) == counts
        for n in counts:
            same_rates(
                out["first_player_by_player_count"][str(n)]["positions"],
                win_rates([s for s in mine if s["players"] == n]),
            )
            scored = [s for s in mine if s["players"] == n and s["counts"] and s["value"] is not None]
            by_n = out["score_distribution_by_player_count"][str(n)]
            same_summary(by_n["all"]["summary"], [s["value"] for s in scored])
            same_summary(by_n["winners"]["summary"], [s["value"] for s in scored if s["won"]])
        scored = [s for s in mine if s["counts"] and s["value"] is not None]
        same_summary(out["score_distribution"]["all"]["summary"], [s["value"] for s in scored])
        assert sum(b["count"] for b in out["score_distribution"]["all"]["bins"]) == len(scored)
        same_summary(
            out["score_distribution"]["winners"]["summary"], [s["value"] for s in scored if s["won"]]
        )
        same_summary(out["game_length"]["decisions"], [g["decisions"] for g in games.values()])
        same_summary(out["game_length"]["days"], [g["days"] for g in games.values()], tol=1e-4)
        assert sum(b["count"] for b in out["game_length"]["days_bins"]) == len(games)
        for b in out["game_length"]["days_bins"]:
            assert b["count"] == sum(1 for g in games.values() if b["from"] <= g["days"] < b["to"])
        assert out["games_by_player_count"] == {
            str(n): sum(1 for g in games.values() if g["players"] == n) for n in counts
        }
        winners = [s for s in mine if s["won"]]
        others = [s for s in mine if not s["won"]]
        for m in out["winners_did"]:
            assert close(m["winners"], mean([s["did"].get(m["measure"], 0) for s in winners]), 1e-3), m
            assert close(m["others"], mean([s["did"].get(m["measure"], 0) for s in others]), 1e-3), m
        assert len(out["winners_did"]) == 4
        checked += 12 + 3 * len(counts) + 2 * len(out["winners_did"])

    # the players' statistics, ratings per title included
    for p in world.players:
        out = client.get(f"{API}/players/{p}/stats", headers=ADMIN).json()
        theirs = [s for s in seats if s["player"] == p]
        assert out["games"] == len(theirs) and out["wins"] == sum(s["won"] for s in theirs)
        for title in TITLES:
            t = [s for s in theirs if s["title"] == title]
            if not t:
                assert title not in out["by_title"]
                continue
            row = out["by_title"][title]
            assert (row["games"], row["wins"]) == (len(t), sum(s["won"] for s in t))
            assert close(row["average_final_value"], mean([s["value"] for s in t if s["counts"]]), 1e-4)
            rates = out["win_rate_by_start_position"][title]
            same_rates(rates, win_rates(t))
            final, rated = ratings([g for g in by_game.values() if g[0]["title"] == title])
            rating = out["ratings_by_title"][title]
            assert close(rating["ordinal"], final[p], 1e-6), "the rating per title"
            assert len(rating["history"]) == rated[p]
            checked += 5
        recent = sorted(theirs, key=lambda s: (s["end"], s["game"]), reverse=True)[:20]
        assert [(g["game_id"], g["rank"], g["final_value"]) for g in out["recent_games"]] == [
            (s["game"], s["rank"], s["value"]) for s in recent
        ]
        faced: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for s in theirs:
            for o in by_game[s["game"]]:
                if o["player"] != p:
                    f = faced[o["player"]]
                    f[0] += 1
                    f[1 if s["rank"] < o["rank"] else 2 if s["rank"] > o["rank"] else 3] += 1
        top = sorted(faced.items(), key=lambda kv: (-kv[1][0], kv[0]))[:10]
        assert [
            (h["player_id"], h["games"], h["ahead"], h["behind"], h["level"]) for h in out["head_to_head"]
        ] == [(o, *f) for o, f in top]
        checked += 4
    return checked


def test_every_published_figure_equals_a_plain_computation_from_the_exported_records(
    client: TestClient, services: Services
) -> None:
    """The default run's world: one finished and one annulled game of each title, forfeits."""
    world = play_world(services, per_title=1)
    assert world.forfeits >= 2 and world.annulled
    assert check_every_figure(client, services, world) > 60


@pytest.mark.slow
def test_every_published_figure_over_fifty_games_of_each_title(
    client: TestClient, services: Services
) -> None:
    """The issue's size: 50 finished games of each title, every player count, forfeits, an
    annulled game of each title."""
    world = play_world(services, per_title=50)
    assert len(world.finished) == 150 and world.forfeits >= 30
    assert check_every_figure(client, services, world) > 350  # 9 players, 3 leagues and titles: 408
