"""The read models against every store: they agree with the rules engine, apply
every event exactly once across crashes, and rebuild to identical rows."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from api.services import PROJECTIONS, Services
from api.settings import Settings
from ledger.conformance import ledger_playout
from ledger.games.cotton_trade.common import money, share_price, wealth
from ledger.games.cotton_trade.components import REGIONS
from projections.base import Catchup

BIN = Path(sys.executable).parent


def dump(services: Services) -> dict[str, list[Any]]:
    """Every row of every projection table, in a stable order."""
    out: dict[str, list[Any]] = {}
    for name, projection in services.projections.items():
        view = projection.view
        for table in view.TABLE_NAMES:
            rows = view.rows(f"SELECT * FROM {view.t(table)}")
            out[f"{name}.{table}"] = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
    return out


def play_league(services: Services, games: int = 3, league: str = "Spring") -> list[str]:
    lg = services.ledger.create_league(creator="admin", name=league, for_bots=True)
    ids = []
    for seed in range(games):
        result = ledger_playout(services.ledger, "cotton-trade", 3, seed=seed, league=str(lg.id))
        ids.append(result.game_id)
    return ids


@pytest.mark.parametrize(
    "options", [{}, {"shares_trade": True, "reputation": True}], ids=["simple", "advanced"]
)
def test_the_scoreboard_agrees_with_the_rules_engine_at_every_step(
    services: Services, options: dict[str, Any]
) -> None:
    import random

    ids = [str(services.ledger.register_player(n)[0]) for n in ("A", "B", "C", "D")]
    game = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, options=options)
    rnd = random.Random(2)
    checked = 0
    while game.status == "active":
        if game.version % 7 == 0:
            services.refresh("scoreboard")
            board = services.view("scoreboard").board(str(game.id))
            s = game.state
            for seat in board["seats"]:
                i = seat["seat"]
                assert seat["money"] == money(s, i)
                assert seat["wealth"] == wealth(s, i)
                assert seat["space"] == s.track_space[i]
                assert seat["share_value"] == share_price(s, i)
                assert sorted(map(tuple, seat["shares"])) == sorted(s.players[i].shares)
                assert tuple(seat["coins"].values()) == s.players[i].coins
                for region, level in seat["reputation"].items():
                    p = s.players[i]
                    assert level == (
                        p.uk_reputation if region == "UK" else p.reputation[REGIONS.index(region)]
                    )
            assert sorted(map(tuple, board["bank_shares"])) == sorted(s.bank_shares)
            checked += 1
        seat = rnd.choice(game.awaiting)
        d = rnd.choice(game.engine.legal_decisions(game.state, seat)).model_dump(mode="json")
        services.ledger.decide(game.id, ids[seat], game.version, d)
        game = services.ledger.get_game(game.id)
    services.refresh()
    board = services.view("scoreboard").board(str(game.id))
    assert board["status"] == "finished" and checked > 10
    ranks = {s["seat"]: s["rank"] for s in game.standings}
    assert {s["seat"]: s["rank"] for s in board["seats"]} == ranks
    for seat in board["seats"]:
        assert seat["coins"]["pounds"] == game.state.players[seat["seat"]].coins[2]


def test_the_share_value_history_has_one_point_per_change(services: Services) -> None:
    (gid,) = play_league(services, games=1)
    services.refresh()
    points = services.view("sharevalues").points(gid)
    changes = [
        fx
        for e in services.ledger.events.get(services.ledger.get_game(gid).id)
        for fx in e.public.get("effects", ())
        if fx["kind"] == "share_price_changed"
    ]
    assert len(points) == len(changes) > 4
    assert [p["seq"] for p in points] == list(range(1, len(points) + 1))
    assert all(p["period"].get("round") and p["period"].get("stage") for p in points)
    game = services.ledger.get_game(gid)
    last = {p["company"]: p for p in points}
    for company, p in last.items():
        assert p["space_to"] == game.state.track_space[company]


def test_league_standings_ratings_and_statistics(services: Services) -> None:
    gids = play_league(services, games=4)
    services.refresh()
    view = services.view("leaguestats")
    league = services.ledger.get_league("Spring")
    out = view.league(str(league.id))
    assert out["finished_games"] == 4 and len(out["games"]) == 4
    assert sum(row["games"] for row in out["standings"]) == 12
    assert sum(row["wins"] for row in out["standings"]) >= 4
    assert all(row["rating"] is not None for row in out["standings"])
    assert out["ratings"] == sorted(out["ratings"], key=lambda r: -r["ordinal"])
    from datetime import datetime

    before = view.league(str(league.id), as_of=datetime(2000, 1, 1).astimezone())
    assert before["standings"] == [] and before["ratings"] == []
    winner = next(s["player"] for s in services.ledger.get_game(gids[0]).standings if s["rank"] == 1)
    stats = view.player_stats(winner)
    assert stats["games"] == 1 and stats["wins"] == 1 and stats["by_title"]["cotton-trade"]["games"] == 1
    title = view.title_stats("cotton-trade")
    assert title["finished_games"] == 4
    assert sum(p["games"] for p in title["seat_order_win_rates"]) == 12
    assert title["game_length"]["decisions"]["count"] == 4

    ids = [str(services.ledger.register_player(n)[0]) for n in ("X", "Y")]
    g = services.ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, league="Spring")
    services.ledger.abandon(g.id, "admin", "players vanished")
    services.refresh()
    out = view.league(str(league.id))
    assert out["abandoned_games"] == 1 and out["finished_games"] == 4
    assert view.title_stats("cotton-trade")["abandoned_games"] == 1


def test_a_rebuild_gives_identical_rows(services: Services) -> None:
    play_league(services, games=2)
    services.refresh()
    before = dump(services)
    for catchup in services.catchups.values():
        catchup.rebuild()
    assert dump(services) == before


def test_a_batch_that_fails_is_not_half_applied_and_is_retried(services: Services) -> None:
    play_league(services, games=2)
    clean = dump_after_rebuild(services)
    for catchup in services.catchups.values():
        catchup.rebuild()
        view = catchup.projection.view
        with view.datastore.transaction(commit=True) as c:
            view.clear(c, services.ledger.name)
    boom = {"n": 0}
    for catchup in services.catchups.values():
        original = catchup.projection.process_batch

        def failing(c: Any, events: list[Any], original: Any = original) -> None:
            boom["n"] += 1
            if boom["n"] % 3 == 0:
                raise RuntimeError("crash in the middle of a batch")
            original(c, events)

        catchup.projection.process_batch = failing  # type: ignore[method-assign]
        small = Catchup(services.ledger, catchup.projection, batch_size=37)
        for _ in range(500):
            try:
                if small.run() == 0 and small.lag() == 0:
                    break
            except RuntimeError:
                continue
        catchup.projection.process_batch = original  # type: ignore[method-assign]
    assert boom["n"] > 10
    assert dump(services) == clean


def dump_after_rebuild(services: Services) -> dict[str, list[Any]]:
    for catchup in services.catchups.values():
        catchup.rebuild()
    return dump(services)


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
def test_a_worker_killed_mid_stream_resumes_without_double_counting(
    settings: Settings, tmp_path: Path
) -> None:
    services = Services.start(settings)
    try:
        play_league(services, games=3)
        env = os.environ | {
            "GAMELEDGER_DATABASE_URL": settings.effective_database_url,
            "GAMELEDGER_PROJECTION_BATCH": "3",
        }
        mid_stream = 0
        for _ in range(3):  # kill -9 the worker part way, three times
            before = services.lags()
            worker = subprocess.Popen(
                [str(BIN / "gameledger"), "projections", "run", "--interval", "0.05"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # kill as soon as it has made some progress
                lags = services.lags()
                if any(lags[n] < before[n] for n in lags):
                    break
                time.sleep(0.01)
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            lags = services.lags()
            mid_stream += any(lag > 0 for lag in lags.values())
        assert mid_stream, "the worker was killed with work left to do"
        done = subprocess.run(
            [str(BIN / "gameledger"), "projections", "run", "--once"], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert all(lag == 0 for lag in services.lags().values())
        resumed = dump(services)
        assert resumed == dump_after_rebuild(services)
    finally:
        services.close()


def test_every_projection_is_listed_in_the_services() -> None:
    assert set(PROJECTIONS) == {
        "gameindex",
        "scoreboard",
        "sharevalues",
        "leaguestats",
        "notifications",
        "pace",
        "disputes",
    }


@pytest.mark.parametrize("batch", [1, 5, 2000])
def test_batch_size_does_not_change_the_rows(services: Services, batch: int) -> None:
    play_league(services, games=1)
    reference = dump_after_rebuild(services)
    for catchup in services.catchups.values():
        view = catchup.projection.view
        with view.datastore.transaction(commit=True) as c:
            view.clear(c, services.ledger.name)
        Catchup(services.ledger, catchup.projection, batch_size=batch).run()
    assert dump(services) == reference


@pytest.mark.parametrize("players", [2, 3])
def test_the_card_games_scoreboard_agrees_with_its_engine(services: Services, players: int) -> None:
    import random

    ids = [str(services.ledger.register_player(f"C{i}")[0]) for i in range(players)]
    game = services.ledger.create_game(creator=ids[0], title="arkwright-card-game", players=ids)
    rnd = random.Random(players)
    checked = 0
    while game.status == "active":
        if game.version % 25 == 0:
            services.refresh("scoreboard")
            board = services.view("scoreboard").board(str(game.id))
            for p in game.state.players:
                seat = board["seats"][p.seat]
                assert (seat["cash"], seat["shares"], seat["share_value"]) == (
                    p.money,
                    p.shares,
                    p.share_value,
                )
                assert seat["loans"] == p.loans and seat["ships"] == p.ships
            checked += 1
        seat = rnd.choice(game.awaiting)
        d = rnd.choice(game.engine.legal_decisions(game.state, seat)).model_dump(mode="json")
        services.ledger.decide(game.id, ids[seat], game.version, d)
        game = services.ledger.get_game(game.id)
    services.refresh("scoreboard")
    board = services.view("scoreboard").board(str(game.id))
    assert checked > 5 and board["status"] == "finished"
    assert {s["seat"]: s["rank"] for s in board["seats"] if s["seat"] < players} == {
        s["seat"]: s["rank"] for s in game.standings
    }


def test_a_league_leaves_bot_players_out_of_its_standings_and_ratings_unless_created_for_bots(
    services: Services,
) -> None:
    """Issue 20 item 6: simulated players are bots; a league of people does not rank them."""
    import random

    people = services.ledger.create_league(creator="admin", name="People")
    bots = services.ledger.create_league(creator="admin", name="Bots", for_bots=True)
    for lg in (people, bots):
        ids = [str(services.ledger.register_player(f"{lg.name} person {i}")[0]) for i in range(2)]
        ids.append(str(services.ledger.register_player(f"{lg.name} bot", bot=True)[0]))
        game = services.ledger.create_game(
            creator=ids[0], title="cotton-trade", players=ids, league=str(lg.id)
        )
        rnd = random.Random(3)
        while game.status == "active":
            seat = game.awaiting[0]
            decision = rnd.choice(game.engine.legal_decisions(game.state, seat))
            services.ledger.decide(game.id, ids[seat], game.version, decision.model_dump(mode="json"))
            game = services.ledger.get_game(game.id)
    services.refresh()
    view = services.view("leaguestats")
    counted = view.league(str(people.id))
    assert counted["for_bots"] is False and counted["bot_results_left_out"] == 1
    assert len(counted["standings"]) == 2 and len(counted["ratings"]) == 2
    assert all("bot" not in (services.ledger.get_player(r["player_id"]).name) for r in counted["standings"])
    every = view.league(str(bots.id))
    assert every["for_bots"] is True and every["bot_results_left_out"] == 0
    assert len(every["standings"]) == 3 and len(every["ratings"]) == 3
    for catchup in services.catchups.values():  # a rebuild learns the same from the log
        catchup.rebuild()
    assert view.league(str(people.id))["standings"] == counted["standings"]


def test_one_shared_read_of_the_log_gives_every_read_model_the_rows_of_its_own_reads(
    services: Services,
) -> None:
    """The worker reads the new events once for all the read models (``share_read``); played a
    game at a time, with each round's read shared, the rows are those of a rebuild, and every
    read model read exactly the notifications of its topics that its own query returns."""
    from projections.base import share_read, unshare

    services.refresh()
    catchups = list(services.catchups.values())
    for c in catchups:
        c.run()  # each knows where it stands: the shared read is open to them
    for seed in range(2):
        ledger_playout(services.ledger, "cotton-trade", 3, seed=seed)
        head = services.ledger.recorder.max_notification_id() or 0
        share_read(catchups, head)
        try:
            assert all(c._shared is not None for c in catchups)
            for c in catchups:
                start = c._known if c._known is not None else c.projection.view.position(c.app.name)
                own = services.ledger.recorder.select_notifications(
                    start=start,
                    limit=c.batch_size,
                    stop=head,
                    inclusive_of_start=False,
                    topics=c.projection.topics,
                )
                assert [n.id for n in c._select(start, head)] == [n.id for n in own]
                c.run(head=head)
        finally:
            unshare(catchups)
    assert dump(services) == dump_after_rebuild(services)


def test_a_game_that_finished_earlier_but_was_recorded_later_renumbers_every_figure_it_moves(
    services: Services,
) -> None:
    """Concurrent servers record a finish after one that happened later (the CI run of stop 37
    saw it under kill -9): the title's rating history is recomputed in finishing order, and the
    published figures of every player whose history moved (not only the new game's) follow it,
    so the rows equal a rebuild's."""
    from tests.fake_clock import FakeClock

    clock = FakeClock()
    services.ledger.clock = clock
    clock.advance(hours=2)
    first = ledger_playout(services.ledger, "cotton-trade", 2, seed=1).game_id
    services.refresh()
    view = services.view("leaguestats")
    early = services.ledger.get_game(first).standings[0]["player"]
    assert [h["seq"] for h in view.player_stats(early)["ratings_by_title"]["cotton-trade"]["history"]] == [1]
    clock.advance(hours=-1)  # the second game's finish is stamped before the first's
    ledger_playout(services.ledger, "cotton-trade", 2, seed=2)
    services.refresh()
    assert [h["seq"] for h in view.player_stats(early)["ratings_by_title"]["cotton-trade"]["history"]] == [2]
    published = json.loads(
        view.rows(f"SELECT doc FROM {view.t('figures')} WHERE key = %s", [f"player:{early}"])[0]["doc"]
    )
    assert [h["seq"] for h in published["ratings_by_title"]["cotton-trade"]["history"]] == [2]
    assert dump(services) == dump_after_rebuild(services)
