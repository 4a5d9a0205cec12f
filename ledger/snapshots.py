"""A snapshot is a cache of a replay: it is used only when it agrees with the record.

A game's snapshot holds its whole position (the hidden deck, the coins, the seats awaited),
but the events are what the hash chain, the commitments and the published digests protect.
Every event that changes the position records the state digest of the position it leads to
(an HMAC under a key derived from the game's seed) and the seats it awaits. A snapshot at
version v must therefore have the head hash of the event at v, a seed that opens the game's
seed commitment, the state digest and the awaited seats recorded by the last such event at or
before v (no seat awaited once a finishing event followed it). Anything else was changed
where it is stored: the snapshot is thrown away and the game replayed from its events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ledger import records
from ledger.domain import Game
from ledger.rng import seed_commitment

ENDINGS = frozenset({"gameledger.game.finished", "gameledger.game.abandoned", "gameledger.game.annulled"})


def snapshot_problem(game: Any, recorded: Iterable[dict[str, Any]]) -> str | None:
    """What is wrong with ``game`` (restored from a snapshot) against ``recorded``, the game's
    event records from the snapshot's version downwards (newest first); None when it agrees."""
    ended = False
    i = -1
    for i, r in enumerate(recorded):
        if i == 0:
            if r["version"] != game.version:
                return f"the record has no event at the snapshot's version {game.version}"
            if r["hash"] != game.head_hash:
                return f"its head hash is not that of the event at version {game.version}"
            if seed_commitment(game.seed_bytes) != game.seed_commitment:
                return "its seed does not open the game's seed commitment"
        ended = ended or r["type"] in ENDINGS
        public = r["public"]
        if "state_digest" not in public:
            continue
        if game.state is None:
            return f"it has no position where version {r['version']} recorded one"
        dumped = game.engine.state_adapter.dump_python(game.state, mode="json")
        if records.state_digest(game.seed_bytes, dumped) != public["state_digest"]:
            return f"its position is not the one whose digest version {r['version']} recorded"
        awaited = [] if ended else list(public["awaiting"])
        if list(game.awaiting) != awaited:
            return f"it awaits seats {list(game.awaiting)}, the record {awaited}"
        return None
    if i < 0:
        return f"the record has no event at the snapshot's version {game.version}"
    if game.state is not None:
        return "it has a position where the record has none"
    return None


def restore(snapshot: Any, recorded: Callable[[int], Iterable[dict[str, Any]]]) -> tuple[Any, str | None]:
    """The aggregate ``snapshot`` holds, and what is wrong with it (None: nothing); ``recorded(v)``
    gives the game's event records from version v down."""
    try:
        aggregate = snapshot.mutate(None)
        if not isinstance(aggregate, Game):
            return aggregate, None
        return aggregate, snapshot_problem(aggregate, recorded(snapshot.originator_version))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:  # a stored snapshot that
        # no longer decodes (a store that fails while the record is read is not the snapshot's fault)
        return None, f"it does not decode ({type(exc).__name__})"
