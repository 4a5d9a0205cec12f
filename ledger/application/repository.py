"""The ledger's repository of aggregates, with a cache that a concurrent reader cannot tear,
and snapshots used only when they agree with the record (ledger/snapshots.py)."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import deepcopy
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository, project_aggregate

from ledger.application.loadread import one_read
from ledger.export import event_record
from ledger.snapshots import restore

log = logging.getLogger("gameledger.ledger")
PAGES = (4, 64)  # events read back from a snapshot's version, looking for the last state digest


def project(aggregate: Any, events: Iterable[Any]) -> Any:
    """The library's ``project_aggregate`` (each event's ``mutate`` in turn) without its
    per-event ``isinstance`` against a runtime-checkable ``Protocol``: a tenth of a load."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


class CopyOnReadRepository(Repository[UUID]):
    """The library's cache, without its race: its ``get`` fast-forwards the cached aggregate
    in place under a lock but copies it outside the lock, so a concurrent fast-forward can
    tear the copy (a version with another version's seats awaited). Here a cached aggregate
    is never mutated: a reader copies it, fast-forwards its copy, and puts a copy of that back
    when it moved on.

    A game's snapshot is checked against its record before it is used; one that disagrees is
    thrown away (the game is replayed from its events), logged, kept in ``discarded`` (the
    latest ones, for /health) and told to ``on_discarded`` (the metric), once: a later load of
    the game (the cache evicted it, or an earlier version is asked for) passes over that
    snapshot without checking, logging or counting it again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.discarded: deque[dict[str, Any]] = deque(maxlen=100)
        self.on_discarded: list[Callable[[dict[str, Any]], None]] = []
        self._thrown: set[tuple[UUID, int | None]] = set()  # (game, version; None: undecodable)
        self._one_read = one_read(self.event_store, self.snapshot_store, PAGES[0])

    def _reconstruct_aggregate(self, aggregate_id: UUID, version: int | None, projector_func: Any) -> Any:
        """The aggregate from its latest usable snapshot and the events after it, else from all
        its events. One statement reads the latest snapshot, the events after it and the first
        page of records its check reads back (``read_for_load``); a second reads all the events
        only when the snapshot is not used."""
        projector_func = project if projector_func is project_aggregate else projector_func
        snapshot, read, whole = self.read_for_load(aggregate_id, version)
        aggregate = None
        events: Iterable[Any] | None = read if whole else None
        if snapshot is not None and (aggregate_id, snapshot.originator_version) not in self._thrown:
            at = snapshot.originator_version
            split = next((i for i, e in enumerate(read) if e.originator_version > at), len(read))
            aggregate = self.restore(snapshot, read[:split])
            if aggregate is not None:
                events = read[split:]
        if events is None:
            events = self.event_store.get(originator_id=aggregate_id, gt=None, lte=version)
        aggregate = projector_func(aggregate, events)
        if aggregate is None:
            raise AggregateNotFoundError(f"Aggregate {aggregate_id!r} version {version!r} not found.")
        return aggregate

    def read_for_load(self, aggregate_id: UUID, version: int | None) -> tuple[Any, list[Any], bool]:
        """The aggregate's latest snapshot at or before ``version`` (None: none, or it does not
        decode), its events after the snapshot's version - PAGES[0] up to ``version``, and
        whether those are all its events (there is no snapshot): one statement on SQLite and
        PostgreSQL (``ledger/application/loadread.py``), else the library's reads."""
        stored = self._one_read(aggregate_id, version) if self._one_read is not None else None
        snapshot = None
        if stored is not None:
            stored_snapshot, stored_events = stored
            if stored_snapshot is not None:
                try:
                    snapshot = self.snapshot_store.mapper.to_domain_event(stored_snapshot)  # type: ignore[union-attr]
                except ValueError as exc:  # its stored row no longer decodes
                    self._undecodable(aggregate_id, exc)
            decode = self.event_store.mapper.to_domain_event
            return snapshot, [decode(e) for e in stored_events], stored_snapshot is None
        if self.snapshot_store is not None:
            try:
                found = list(
                    self.snapshot_store.get(originator_id=aggregate_id, desc=True, limit=1, lte=version)
                )
            except ValueError as exc:
                self._undecodable(aggregate_id, exc)
                found = []
            snapshot = found[0] if found else None
        if snapshot is None or (aggregate_id, snapshot.originator_version) in self._thrown:
            return snapshot, list(self.event_store.get(originator_id=aggregate_id, lte=version)), True
        at = snapshot.originator_version
        return (
            snapshot,
            list(self.event_store.get(originator_id=aggregate_id, gt=max(at - PAGES[0], 0), lte=version)),
            False,
        )

    def _undecodable(self, aggregate_id: UUID, exc: Exception) -> None:
        if (aggregate_id, None) not in self._thrown:
            self.discard(aggregate_id, None, f"it does not decode ({type(exc).__name__})")

    def restore(self, snapshot: Any, first_page: Sequence[Any] | None = None) -> Any:
        """The aggregate a snapshot holds, or None when it disagrees with the record;
        ``first_page``: the game's events after the snapshot's version - PAGES[0] up to it,
        read already (``recorded_down_from``)."""
        aggregate, problem = restore(
            snapshot, lambda v: self.recorded_down_from(snapshot.originator_id, v, first_page)
        )
        if problem is None:
            return aggregate
        self.discard(snapshot.originator_id, snapshot.originator_version, problem)
        return None

    def discard(self, aggregate_id: UUID, version: int | None, problem: str) -> None:
        self._thrown.add((aggregate_id, version))
        found = {
            "game_id": str(aggregate_id),
            "version": version,
            "problem": problem,
            "at": datetime.now(UTC).isoformat(),
        }
        log.error(
            "snapshot of game %s at version %s discarded, replayed from the events instead: %s",
            found["game_id"],
            version if version is not None else "?",
            problem,
        )
        self.discarded.append(found)
        for listener in self.on_discarded:
            listener(found)

    def recorded_down_from(
        self, game_id: UUID, version: int, first_page: Sequence[Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        """The game's event records from ``version`` down, newest first, a page at a time;
        ``first_page``: its events after ``version`` - PAGES[0] up to ``version`` (ascending),
        read already: the pages below it are read only if the caller reads on."""
        size = PAGES[0]  # the snapshot's own event records one, most often
        if first_page is not None:
            yield from map(event_record, reversed(first_page))
            version, size = version - PAGES[0], PAGES[1]
        while version >= 1:
            page = list(self.event_store.get(originator_id=game_id, lte=version, desc=True, limit=size))
            yield from map(event_record, page)
            if len(page) < size:
                return
            version, size = page[-1].originator_version - 1, PAGES[1]

    def get(  # type: ignore[override]
        self,
        aggregate_id: UUID,
        *,
        version: int | None = None,
        projector_func: Any = project_aggregate,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
        projector_func = project if projector_func is project_aggregate else projector_func
        if self.cache is None or version is not None:
            return super().get(aggregate_id, version=version, projector_func=projector_func)
        try:
            cached = self.cache.get(aggregate_id)
        except KeyError:
            aggregate = self._reconstruct_aggregate(aggregate_id, None, projector_func)
            self.cache.put(aggregate_id, deepcopy(aggregate))
            return aggregate
        aggregate = deepcopy(cached)
        new_events = list(self.event_store.get(originator_id=aggregate_id, gt=aggregate.version))
        if new_events:
            aggregate = projector_func(aggregate, new_events)
            if aggregate is None:
                raise AggregateNotFoundError(aggregate_id)
            self.cache.put(aggregate_id, deepcopy(aggregate))
        return aggregate

    def put(self, aggregate: Any) -> None:
        """Cache a copy of an aggregate just saved (the caller keeps its own)."""
        if self.cache is not None:
            self.cache.put(aggregate.id, deepcopy(aggregate))
