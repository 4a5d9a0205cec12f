"""The ledger's repository of aggregates, with a cache that a concurrent reader cannot tear."""

from __future__ import annotations

from copy import deepcopy
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository, project_aggregate


class CopyOnReadRepository(Repository[UUID]):
    """The library's cache, without its race: its ``get`` fast-forwards the cached aggregate
    in place under a lock but copies it outside the lock, so a concurrent fast-forward can
    tear the copy (a version with another version's seats awaited). Here a cached aggregate
    is never mutated: a reader copies it, fast-forwards its copy, and puts a copy of that back
    when it moved on."""

    def get(  # type: ignore[override]
        self,
        aggregate_id: UUID,
        *,
        version: int | None = None,
        projector_func: Any = project_aggregate,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
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
