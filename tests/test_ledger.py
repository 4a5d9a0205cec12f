"""The ledger application against every store: streams, concurrency, idempotency, snapshots."""

from __future__ import annotations

import contextlib
import random
import sys
import threading
from typing import Any

import pytest

from api.storage import build_ledger, init_db
from ledger.application import Ledger
from ledger.domain import Game
from ledger.errors import ConflictError, ForbiddenError, NotYourTurnError, StaleVersionError
from ledger.export import event_record, game_export
from ledger.storage import parse_database_url
from ledger.verify import verify_export


def three_players(ledger: Ledger) -> list[str]:
    return [str(ledger.register_player(name)[0]) for name in ("Ann", "Bob", "Cid")]


def started_game(ledger: Ledger) -> tuple[Game, list[str]]:
    ids = three_players(ledger)
    game = ledger.create_game(creator=ids[0], title="cotton-trade", seats=3)
    assert game.status == "waiting" and game.seats[0] == ids[0]
    ledger.join(game.id, ids[1])
    game = ledger.join(game.id, ids[2])
    return game, ids


def some_decision(game: Game) -> tuple[int, dict[str, Any]]:
    seat = game.awaiting[0]
    return seat, game.engine.legal_decisions(game.state, seat)[0].model_dump(mode="json")


def play_some(ledger: Ledger, game: Game, ids: list[str], n: int, seed: int = 1) -> Game:
    rnd = random.Random(seed)
    for _ in range(n):
        game = ledger.get_game(game.id)
        if game.status == "finished":
            break
        seat = rnd.choice(game.awaiting)
        d = rnd.choice(game.engine.legal_decisions(game.state, seat)).model_dump(mode="json")
        ledger.decide(game.id, ids[seat], game.version, d)
    return ledger.get_game(game.id)


def test_a_game_starts_when_the_last_seat_is_claimed(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    assert game.status == "active"
    assert game.awaiting and game.draws >= 5  # first player and four shuffles
    types = [type(e).TOPIC for e in ledger.events.get(game.id)]
    assert types[:4] == [
        "gameledger.game.created",
        "gameledger.game.seat_claimed",
        "gameledger.game.seat_claimed",
        "gameledger.game.started",
    ]
    assert set(types[4:]) == {"gameledger.game.draw_recorded"}


def test_a_stale_decision_is_refused_and_writes_nothing(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    seat, d = some_decision(game)
    with pytest.raises(StaleVersionError):
        ledger.decide(game.id, ids[seat], game.version - 1, d)
    assert ledger.get_game(game.id).version == game.version


def test_only_the_awaited_seat_may_decide(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    seat, d = some_decision(game)
    other = next(i for i in range(3) if i not in game.awaiting)
    with pytest.raises(NotYourTurnError):
        ledger.decide(game.id, ids[other], game.version, d)
    stranger = str(ledger.register_player("Dan")[0])
    with pytest.raises(ForbiddenError):
        ledger.decide(game.id, stranger, game.version, d)
    assert ledger.get_game(game.id).version == game.version


def test_a_retried_request_with_its_idempotency_key_replays_the_first_answer(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    seat, d = some_decision(game)
    first = ledger.decide(game.id, ids[seat], game.version, d, idempotency_key="k-1")
    head = ledger.get_game(game.id).version
    again = ledger.decide(game.id, ids[seat], game.version, d, idempotency_key="k-1")
    assert again.replayed and not first.replayed
    assert again.first_version == first.first_version and again.effects == first.effects
    assert ledger.get_game(game.id).version == head
    with pytest.raises(ConflictError) as err:
        ledger.decide(game.id, ids[seat], game.version + 5, d, idempotency_key="k-1")
    assert err.value.code == "request/idempotency_key_reused"


def test_an_idempotent_game_creation_creates_one_game(ledger: Ledger) -> None:
    ids = three_players(ledger)
    a = ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, idempotency_key="new-game")
    b = ledger.create_game(creator=ids[0], title="cotton-trade", players=ids, idempotency_key="new-game")
    assert a.id == b.id and b.version == a.version


def test_concurrent_decisions_on_one_version_apply_exactly_once(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    seat, d = some_decision(game)
    results: list[str] = []

    def attempt() -> None:
        try:
            ledger.decide(game.id, ids[seat], game.version, d)
            results.append("ok")
        except StaleVersionError:
            results.append("stale")

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1 and results.count("stale") == 5
    versions = [e.originator_version for e in ledger.events.get(game.id)]
    assert versions == list(range(1, len(versions) + 1))


def test_cached_reads_are_never_torn_by_a_concurrent_writer(ledger: Ledger) -> None:
    """Readers load the game from the aggregate cache while a writer moves it on: every copy
    they get is a whole version (its seats awaited and state those of a fresh replay to that
    version), never half of one event applied."""
    game, ids = started_game(ledger)
    seen: list[tuple[int, list[int], Any]] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            g = ledger.get_game(game.id)
            seen.append((g.version, list(g.awaiting), g.state))

    readers = [threading.Thread(target=read) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    for t in readers:
        t.start()
    try:
        play_some(ledger, game, ids, 40, seed=5)
    finally:
        done.set()
        for t in readers:
            t.join()
        sys.setswitchinterval(interval)
    assert len({v for v, _, _ in seen}) > 5, "the readers saw the game move"
    cache, ledger.repository.cache = ledger.repository.cache, None  # fresh replays, no cache
    try:
        truth: dict[int, tuple[list[int], Any]] = {}
        for version, awaiting, state in seen:
            if version not in truth:
                g = ledger.get_game(game.id, version=version)
                truth[version] = (list(g.awaiting), g.state)
            assert (awaiting, state) == truth[version], f"a torn copy at version {version}"
    finally:
        ledger.repository.cache = cache


def test_the_undo_index_agrees_with_reading_the_record_backwards(ledger: Ledger) -> None:
    """Which decision a seat can still take back comes from an index kept by the events; a
    game restored from an older snapshot (no index) reads its record backwards instead: the
    two agree at every position, through undos."""
    game, ids = started_game(ledger)
    rnd = random.Random(11)
    undos = 0
    for step in range(40):
        game = ledger.get_game(game.id)
        for seat in range(game.seat_count):
            indexed = scanned = None
            with contextlib.suppress(ConflictError):
                indexed = ledger.undo_target(game, seat)
            game.undoable = None
            with contextlib.suppress(ConflictError):
                scanned = ledger.undo_target(game, seat)
            game = ledger.get_game(game.id)
            assert indexed == scanned, (step, seat)
        seat = rnd.choice(game.awaiting)
        legal = game.engine.legal_decisions(game.state, seat)
        ledger.decide(game.id, ids[seat], game.version, rnd.choice(legal).model_dump(mode="json"))
        if step % 7 == 6:  # the seat takes it back with everyone's consent
            game = ledger.request_undo(game.id, ids[seat], ledger.get_game(game.id).version)
            for other in range(game.seat_count):
                if other != seat:
                    game = ledger.answer_undo(game.id, ids[other], True)
            undos += 1
    assert undos >= 5 and any(isinstance(e, Game.DecisionUndone) for e in ledger.events.get(game.id))


def test_snapshots_load_the_same_state_as_a_full_replay(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 80)
    snapshots = [s.originator_version for s in ledger.snapshots.get(game.id)]  # type: ignore[union-attr]
    interval = ledger.snapshot_interval(game)
    assert interval is not None and len(snapshots) >= game.version // interval - 1, (snapshots, interval)
    assert game.version - max(snapshots) <= 2 * interval, "a load replays at most about an interval"
    fresh = build_ledger(parse_database_url(ledger_url(ledger)))
    try:
        loaded = fresh.get_game(game.id)
        eng = game.engine
        replayed = None
        from ledger.engine import DrawOutcome

        for e in ledger.events.get(game.id):
            if isinstance(e, Game.Started):
                replayed = eng.new_game(eng.meta.options.model_validate(game.options), 3)
            elif isinstance(e, Game.DrawRecorded):
                values = e.public.get("outcome") or e.private["server"]["outcome"]
                replayed, _ = eng.apply_draw(replayed, DrawOutcome(e.public["key"], tuple(values)))
            elif isinstance(e, Game.DecisionRecorded):
                replayed, _ = eng.apply(
                    replayed, e.public["seat"], eng.decision_adapter.validate_python(e.public["decision"])
                )
        assert loaded.state == replayed
    finally:
        fresh.close()


def ledger_url(ledger: Ledger) -> str:
    env = ledger.env
    if env.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite":
        return "sqlite:///" + env["SQLITE_DBNAME"]
    return (
        f"postgresql://{env['POSTGRES_USER']}:{env.get('POSTGRES_PASSWORD', '')}@{env['POSTGRES_HOST']}:"
        f"{env['POSTGRES_PORT']}/{env['POSTGRES_DBNAME']}?schema={env['POSTGRES_SCHEMA']}"
    )


def test_every_event_survives_the_store_and_verifies(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 40)
    lines = list(game_export(ledger, ledger.get_game(game.id), []))
    report = verify_export(lines)
    assert report.ok, report.text()


def test_the_seed_and_deck_order_never_appear_in_public_parts(ledger: Ledger) -> None:
    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 30)
    for e in ledger.events.get(game.id):
        record = event_record(e)
        public = str(record["public"])
        assert game.seed not in public
        if record["type"] == "gameledger.game.draw_recorded" and record["public"]["kind"] == "shuffle":
            assert "outcome" not in record["public"] and "items" not in record["public"]


@pytest.mark.postgres
def test_many_processes_can_initialise_one_database_at_once(pg_url: str) -> None:
    db = parse_database_url(pg_url)
    errors: list[Exception] = []

    def init() -> None:
        try:
            init_db(db)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=init) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    app = build_ledger(db)
    try:
        assert app.register_player("after init")
    finally:
        app.close()


def test_refused_undo_requests_by_the_hundred_do_not_lengthen_a_load(ledger: Ledger) -> None:
    """A snapshot is checked against the last event recording a position's digest at or before
    it (ledger/snapshots.py). Two seats asking and refusing undos again and again write events
    that record none: a snapshot taken after them would make every load read back through them
    all. It is taken at the game's next event that records a position instead."""
    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 5)
    interval = ledger.game_snapshot_intervals["cotton-trade"]
    asker = next(s for s in range(3) if s not in game.awaiting or len(game.awaiting) > 1)
    other = next(s for s in range(3) if s != asker)
    while game.version < 300:  # undo requests refused: two events each, no position recorded
        game = ledger.request_undo(game.id, ids[asker], ledger.get_game(game.id).version)
        game = ledger.answer_undo(game.id, ids[other], False)
    game = play_some(ledger, game, ids, 1, seed=2)  # a decision: it records its position
    read: list[int] = []
    recorded = ledger.repository.recorded_down_from

    def counting(game_id: Any, version: int, *first_page: Any) -> Any:
        for record in recorded(game_id, version, *first_page):
            read.append(record["version"])
            yield record

    ledger.repository.recorded_down_from = counting  # type: ignore[method-assign]
    cache, ledger.repository.cache = ledger.repository.cache, None
    try:
        again = ledger.get_game(game.id)
    finally:
        ledger.repository.cache = cache
        del ledger.repository.recorded_down_from
    assert again.version == game.version and again.state == game.state
    assert read and len(read) <= 3, f"the snapshot check read back {len(read)} records"
    assert game.version - read[0] < interval, "a snapshot after the undos' run"


def _same(a: Any) -> dict[str, Any]:
    """An aggregate's attributes but those a snapshot does not keep."""
    return {k: v for k, v in vars(a).items() if k not in ("_pending_events", "_precomputed")}


def test_the_repositorys_projector_gives_what_the_librarys_does(ledger: Ledger) -> None:
    """The repository projects events without the library's per-event ``Protocol`` check: the
    same aggregate at every version, None for no events, the same error for no aggregate."""
    import uuid

    from eventsourcing.application import AggregateNotFoundError, project_aggregate

    from ledger.application.repository import project

    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 12)
    events = list(ledger.events.get(game.id))
    for n in (1, 5, len(events)):
        assert _same(project(None, events[:n])) == _same(project_aggregate(None, events[:n]))
    assert project(None, []) is None and project_aggregate(None, []) is None
    missing = uuid.uuid4()
    cache, ledger.repository.cache = ledger.repository.cache, None
    try:
        for version in (None, 3):
            with pytest.raises(AggregateNotFoundError):
                ledger.repository.get(missing, version=version)
    finally:
        ledger.repository.cache = cache
    with pytest.raises(AggregateNotFoundError):
        ledger.repository.get(missing)  # through the cache's miss


def test_a_snapshot_and_its_tail_read_at_once_load_what_a_full_replay_does(ledger: Ledger) -> None:
    """One statement reads the latest snapshot, the events after it and the first page of
    records its check reads back (ledger/application/loadread.py, on both stores): the game
    at every version is the one its events alone give, and a load is that one statement."""
    from eventsourcing.application import project_aggregate

    game, ids = started_game(ledger)
    game = play_some(ledger, game, ids, 70)
    snapshots = [s.originator_version for s in ledger.snapshots.get(game.id)]  # type: ignore[union-attr]
    assert len(snapshots) >= 2
    events = list(ledger.events.get(game.id))
    repo = ledger.repository
    reads: list[str] = []
    event_get, snapshot_get = repo.event_store.get, repo.snapshot_store.get  # type: ignore[union-attr]

    def counted(name: str, get: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            reads.append(name)
            return get(*args, **kwargs)

        return wrapper

    repo.event_store.get = counted("events", event_get)  # type: ignore[method-assign]
    repo.snapshot_store.get = counted("snapshots", snapshot_get)  # type: ignore[method-assign, union-attr]
    assert repo._one_read is not None
    one_read, repo._one_read = repo._one_read, counted("one", repo._one_read)
    cache, repo.cache = repo.cache, None
    try:
        for version in sorted({snapshots[0], snapshots[0] + 1, snapshots[-1] + 2, game.version - 1}):
            reads.clear()
            loaded = ledger.get_game(game.id, version=version)
            assert reads == ["one"], (version, reads)
            assert _same(loaded) == _same(project_aggregate(None, events[:version])), version
        reads.clear()
        assert _same(ledger.get_game(game.id)) == _same(project_aggregate(None, events))
        assert reads == ["one"]
        reads.clear()
        assert ledger.get_player(ids[0]).name == "Ann" and reads == ["one"]  # no snapshot: all its events
        repo._one_read = None  # any other store: the library's reads, the same games
        for version in (snapshots[-1] + 2, game.version):
            reads.clear()
            loaded = ledger.get_game(game.id, version=version)
            assert reads == ["snapshots", "events"], (version, reads)
            assert _same(loaded) == _same(project_aggregate(None, events[:version])), version
    finally:
        repo.cache, repo._one_read = cache, one_read
        del repo.event_store.get, repo.snapshot_store.get  # type: ignore[union-attr]
    first = snapshots[-1]
    for version in (first, first - 1, 5, 3):
        page = [e for e in events if version - 4 < e.originator_version <= version]
        assert list(repo.recorded_down_from(game.id, version, page)) == list(
            repo.recorded_down_from(game.id, version)
        )
