"""Concurrency across processes: several server processes on one store, many clients
deciding in the same games at the same moment, then the store held against every answer.

Like an event store's optimistic-concurrency tests, but end to end: real ``gameledger
serve`` processes, real HTTP, and the proof read from the database afterwards
(tests/loadkit.py ``check_ledger``): every stream gapless with its hash chain intact, every
acknowledged decision recorded exactly once at the version it was told and with the
content it sent, nothing written by a refused request, and every game replayed through its
rules (draws re-derived from the seed, every stored digest reproduced, conservation).

The games are Cotton Trade with the shares trade, brought (in-process, before the servers
start) to the opening of a share auction, so that the clients race in the bidding rounds:
every title awaits one seat at a time (auctions go round the table), so the race there is
between the bidder's two tabs sending identical or different bids at one version, and the
other bidders sending bids on versions already gone.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ledger.application import Ledger
from ledger.errors import StaleVersionError
from tests import loadkit as lk
from tests.test_ledger import some_decision, started_game

OPTIONS = {"shares_trade": True}


def _identical_groups(result: lk.LoadResult) -> int:
    """How many times two or more requests sent the same decision at the same version."""
    groups = Counter(
        (a.game_id, a.seat, a.expected_version, lk.request_hash(a.expected_version, a.decision))
        for a in result.attempts
        if a.retry == 0 and not a.key.startswith(("stale-", "prep-"))
    )
    return sum(1 for n in groups.values() if n > 1)


def run_load(
    database_url: str,
    tmp_path: Path,
    *,
    servers: int,
    workers: int,
    games: int,
    seconds: float,
    clients_per_seat: int = 2,
) -> tuple[lk.LoadResult, lk.LedgerCheck]:
    tables, made = lk.prepare_tables(database_url, games, seats=3, options=OPTIONS, until=lk.AUCTION)
    env = lk.server_env(database_url, tmp_path / "data")
    procs = [lk.Server(env, tmp_path / f"server{i}.log", workers=workers) for i in range(servers)]
    try:
        lk.start_all(procs)
        result = lk.play([p.url for p in procs], tables, clients_per_seat=clients_per_seat, seconds=seconds)
        alive = [p.alive() for p in procs]
    finally:
        for p in procs:
            p.stop()
    assert all(alive), "a server died under load:\n" + "\n".join(p.tail() for p in procs)
    assert not result.errors, result.errors
    result.attempts += made
    check = lk.check_ledger(database_url, tables, result)
    return result, check


def assert_consistent(result: lk.LoadResult, check: lk.LedgerCheck, *, min_accepted: int) -> None:
    statuses = result.statuses()
    assert not check.problems, check.problems[:20]
    # nothing but success, stale (409) and not-your-turn (403): no 5xx, no dropped connection
    assert set(statuses) <= {200, 403, 409}, statuses
    assert set(result.reads) == {200}, result.reads
    codes = Counter(a.code for a in result.attempts if a.status == 409)
    assert set(codes) <= {"game/stale_version", "game/finished"}, codes
    accepted = [a for a in result.accepted() if not a.key.startswith("prep-")]
    assert len(accepted) >= min_accepted, statuses
    assert statuses[409] >= 5, "the clients never collided: the test proved nothing"
    assert _identical_groups(result) >= 3, "no identical requests raced"
    # the bidding rounds were raced too
    bids = [a for a in result.attempts if a.decision.get("type") in lk.AUCTION]
    assert any(200 <= a.status < 300 for a in bids), Counter(a.decision.get("type") for a in accepted)
    assert any(a.status == 409 for a in bids)
    # an acknowledged request with a shared Idempotency-Key answered twice says the same thing
    firsts: dict[tuple[str, str], int | None] = {}
    for a in result.accepted():
        seen = firsts.setdefault((a.game_id, a.key), a.first_version)
        assert seen == a.first_version, a


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
@pytest.mark.postgres
def test_two_server_processes_on_one_postgres_schema_record_each_accepted_decision_once(
    load_pg: Any, tmp_path: Path
) -> None:
    result, check = run_load(load_pg.new_schema_url(), tmp_path, servers=2, workers=1, games=3, seconds=5)
    assert_consistent(result, check, min_accepted=40)
    print(
        f"\npostgres, 2 processes: {len(result.attempts)} decisions sent, {check.acknowledged} acknowledged "
        f"({check.decisions} in the store), {check.refused} refused, {_identical_groups(result)} identical races"
    )


@pytest.mark.slow  # several processes, killed or restarted: run by .ci/run in one process (-n 0)
def test_two_server_processes_on_one_sqlite_file_record_each_accepted_decision_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    result, check = run_load(url, tmp_path, servers=2, workers=1, games=2, seconds=4)
    assert_consistent(result, check, min_accepted=30)


def test_an_identical_keyed_decision_that_loses_the_race_is_answered_as_a_replay(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tabs send one decision with one Idempotency-Key at once: the slower one loaded the
    game before the faster one saved, so its own save conflicts; it is answered as the replay
    it is, not as a conflict. A different request at that version still gets 409."""
    game, ids = started_game(ledger)
    seat, decision = some_decision(game)
    loaded_by_the_slower_tab = ledger.get_game(game.id)
    first = ledger.decide(game.id, ids[seat], game.version, decision, idempotency_key="tab")
    real_get_game = ledger.get_game
    stale = [loaded_by_the_slower_tab]
    monkeypatch.setattr(
        ledger, "get_game", lambda gid, version=None: stale.pop() if stale else real_get_game(gid, version)
    )
    second = ledger.decide(game.id, ids[seat], game.version, decision, idempotency_key="tab")
    assert not stale, "the slower request did not run on the version it had loaded"
    assert second.replayed and second.first_version == first.first_version
    assert second.effects == first.effects
    head = real_get_game(game.id).version
    stale.append(loaded_by_the_slower_tab)
    with pytest.raises(StaleVersionError):
        ledger.decide(game.id, ids[seat], game.version, decision, idempotency_key="other-tab")
    assert real_get_game(game.id).version == head


SLOW_SECONDS = float(os.environ.get("GAMELEDGER_LOAD_SECONDS", "40"))


@pytest.mark.slow
@pytest.mark.postgres
def test_load_two_servers_of_two_workers_on_postgres(load_pg: Any, tmp_path: Path) -> None:
    """The long run: two servers of two uvicorn workers each (four processes), six games,
    three tabs per seat."""
    result, check = run_load(
        load_pg.new_schema_url(),
        tmp_path,
        servers=2,
        workers=2,
        games=6,
        seconds=SLOW_SECONDS,
        clients_per_seat=3,
    )
    assert_consistent(result, check, min_accepted=int(SLOW_SECONDS * 5))
    print(
        f"\nLOAD postgres 4 processes {result.seconds:.0f}s: {len(result.attempts)} sent, "
        f"{check.acknowledged} acknowledged, {check.decisions} decisions stored, {check.refused} refused, "
        f"{check.finished} games finished, lost 0"
    )


@pytest.mark.slow
def test_load_two_servers_on_one_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    result, check = run_load(url, tmp_path, servers=2, workers=1, games=4, seconds=SLOW_SECONDS / 2)
    assert_consistent(result, check, min_accepted=int(SLOW_SECONDS * 2))
    print(
        f"\nLOAD sqlite 2 processes {result.seconds:.0f}s: {check.acknowledged} acknowledged, "
        f"{check.refused} refused, lost 0"
    )
