"""The golden games: seeded games of every title, player count and main variant, played
through the ledger, and every byte the ledger stored for them.

The fixture ``tests/fixtures/golden_games.jsonl.xz`` (with ``golden_table.jsonl.xz``, what a
player meets at the table in those games: the log's words, prompts, views, legal decisions) was written by the engines of the day
it was made (``python -m tests.golden_games --write``); ``tests/test_golden_games.py`` plays
the same games again with today's code and holds every stored event and snapshot against it,
byte for byte: a change to the engines that alters what a game records (an effect's kind or
fields, a digest, a draw, the bot's choice) is found here, with the first event that differs.

A game is played by ``ledger_playout`` (random legal decisions, or the title's greedy bot,
from a seeded generator) on a ledger whose ids, seeds and tokens come from a generator
seeded by the game's name and whose clock moves one second a call, so that two plays of one
game write the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import random
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from api.storage import build_ledger, init_db
from ledger import registry
from ledger.application import Ledger
from ledger.conformance import ledger_playout
from ledger.engine import DrawOutcome
from ledger.storage import parse_database_url

FIXTURE = Path(__file__).parent / "fixtures" / "golden_games.jsonl.xz"
TABLE = Path(__file__).parent / "fixtures" / "golden_table.jsonl.xz"
SCHEMAS = Path(__file__).parent / "fixtures" / "golden_schemas.json"
NAMES = {0: "Ann", 1: "Bob", 2: "Cid", 3: "Dot", 4: "Eve", 5: "Fay"}
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class GoldenGame:
    title: str
    players: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    greedy: bool = False

    @property
    def name(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.title}/{self.players}p/{'greedy' if self.greedy else 'random'}/{opts or 'basic'}/{self.seed}"


def _games() -> Iterator[GoldenGame]:
    both = {"shares_trade": True, "reputation": True}
    for players in range(2, 7):
        yield GoldenGame("cotton-trade", players, 1)
        yield GoldenGame("cotton-trade", players, 2, both)
    yield GoldenGame("cotton-trade", 3, 3, {"shares_trade": True})
    yield GoldenGame("cotton-trade", 4, 4, {"reputation": True, "unrest_scope": "PER_REGION"})
    yield GoldenGame("cotton-trade", 3, 5, both, greedy=True)
    yield GoldenGame("cotton-trade", 5, 6, {"final_tiebreak": "TOTAL_VALUE"}, greedy=True)
    for players in range(2, 5):
        for edition in ("2016", "2014"):
            for predetermined in (False, True):
                options: dict[str, Any] = {"edition": edition}
                if predetermined:
                    options["predetermined_setup"] = True
                yield GoldenGame("water-frame", players, players * 10 + len(options), options)
    yield GoldenGame("water-frame", 3, 40, {"patron_variant": True, "emergency_digit_mode": "tens"})
    yield GoldenGame(
        "water-frame", 4, 41, {"predetermined_setup": True, "predetermined_events_shuffled": True}
    )
    yield GoldenGame("water-frame", 4, 42, {"importer_top_up": False}, greedy=True)
    yield GoldenGame("water-frame", 2, 43, {"edition": "2014"}, greedy=True)
    # these seeds were picked because their games take the rarer decisions: a contract
    # delivered, the broker used
    yield GoldenGame("water-frame", 4, 100, greedy=True)
    yield GoldenGame("water-frame", 2, 102, {"edition": "2014"})
    for players in range(2, 5):
        yield GoldenGame("arkwright-card-game", players, players)
        yield GoldenGame("arkwright-card-game", players, 10 + players, {"expert": "all"})
    yield GoldenGame("arkwright-card-game", 3, 20, {"expert": "all"}, greedy=True)
    yield GoldenGame("arkwright-card-game", 4, 21, {"quality_cards": "two_low_one_high"}, greedy=True)
    # picked for the rarer decisions and effects: the developer used, a replacement's quality
    # placed and finished, a player eliminated
    yield GoldenGame("arkwright-card-game", 4, 101, {"expert": "all"}, greedy=True)
    yield GoldenGame("arkwright-card-game", 4, 102)
    yield GoldenGame("arkwright-card-game", 3, 102)
    yield GoldenGame("arkwright-card-game", 4, 121)


GAMES: tuple[GoldenGame, ...] = tuple(_games())


class Ticks:
    """A clock that moves one second a call."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def ledger_for(database_url: str, game: GoldenGame) -> Ledger:
    db = parse_database_url(database_url)
    init_db(db)
    entropy = random.Random(f"golden:{game.name}").randbytes
    return build_ledger(db, clock=Ticks(), entropy=entropy)


def memory_url() -> str:
    return f"sqlite:///file:golden-{uuid.uuid4().hex}?mode=memory&cache=shared"


_SNAPSHOT_TAKEN = re.compile(rb'^\{"timestamp":\{"_type_":"datetime_iso","_data_":"[^"]+"\}')


def snapshot_bytes(state: bytes) -> bytes:
    """A stored snapshot with the time it was taken blanked: the library stamps a snapshot
    with the wall clock, not the ledger's; every other byte is as stored."""
    blanked, n = _SNAPSHOT_TAKEN.subn(b'{"timestamp":{"_type_":"datetime_iso","_data_":"-"}', state, count=1)
    assert n == 1, state[:80]
    return blanked


def text(stored: bytes) -> str:
    """The stored bytes as text (they are UTF-8 JSON; the fixture compresses far better so)."""
    out = stored.decode("utf-8")
    assert out.encode("utf-8") == stored
    return out


def stored_rows(app: Ledger, game_id: str, start: int = 1) -> list[dict[str, Any]]:
    """Every event the ledger stored from notification ``start`` on (the players' and the
    game's, in the order written), then the game's snapshots: topic, aggregate, version and
    the stored bytes."""
    rows: list[dict[str, Any]] = [
        {
            "topic": n.topic,
            "id": str(n.originator_id),
            "version": n.originator_version,
            "state": text(n.state),
        }
        for n in app.recorder.select_notifications(start=start, limit=1_000_000)
    ]
    assert app.snapshots is not None
    rows += [
        {
            "topic": s.topic,
            "id": str(s.originator_id),
            "version": s.originator_version,
            "state": text(snapshot_bytes(s.state)),
            "snapshot": True,
        }
        for s in app.snapshots.recorder.select_events(uuid.UUID(game_id))
    ]
    return rows


def play(game: GoldenGame, database_url: str | None = None) -> list[dict[str, Any]]:
    """Play one golden game on a fresh ledger and return what it stored."""
    app = ledger_for(database_url or memory_url(), game)
    try:
        start = (app.recorder.max_notification_id() or 0) + 1
        result = ledger_playout(
            app, game.title, game.players, seed=game.seed, options=game.options, greedy=game.greedy
        )
        return stored_rows(app, result.game_id, start)
    finally:
        app.close()


def _short(value: Any) -> str:
    """A short hash of a JSON value as the API would write it (keys in their order)."""
    return hashlib.sha256(orjson.dumps(value)).hexdigest()[:16]


def table(rows: list[dict[str, Any]]) -> list[str]:
    """What a player meets at the table, position by position, replayed from a golden game's
    stored events: the log's words for every effect (public and private), the prompt, the
    views of every seat and of a spectator, and every awaited seat's legal decisions (these
    two as short hashes of their JSON, keys in order). One line per decision or draw."""
    events = [(row["topic"], json.loads(row["state"])) for row in rows if not row.get("snapshot")]
    created = next(e for topic, e in events if topic == "gameledger.game.created")["public"]
    eng = registry.engine(created["title"])
    n = created["seat_count"]
    state = eng.new_game(eng.meta.options.model_validate(created["options"]), n)
    lines = []
    for topic, e in events:
        pub = e.get("public", {})
        if topic == "gameledger.game.decision_recorded":
            decision = eng.decision_adapter.validate_python(pub["decision"])
            state, _ = eng.apply(state, pub["seat"], decision)
        elif topic == "gameledger.game.draw_recorded":
            values = pub["outcome"] if "outcome" in pub else e["private"]["server"]["outcome"]
            state, _ = eng.apply_draw(state, DrawOutcome(pub["key"], tuple(values)))
        else:
            continue
        effects = [*pub["effects"], *(fx for part in e["private"].values() for fx in part.get("effects", ()))]
        words = " / ".join(eng.describe(fx, NAMES) for fx in effects)
        pending = eng.pending(state)
        views = _short([eng.view(state, seat) for seat in [None, *range(n)]])
        legal = _short(
            [[d.model_dump(mode="json") for d in eng.legal_decisions(state, seat)] for seat in pending.seats]
        )
        lines.append(f"{pub['awaiting']} {pending.prompt} | views {views} legal {legal} | {words}")
    return lines


def schemas() -> dict[str, Any]:
    """Every title's decision and options schemas (the web page's forms, the API's documents)."""
    return {
        title: {
            "decisions": registry.engine(title).decision_adapter.json_schema(),
            "options": meta.options_schema(),
        }
        for title, meta in registry.TITLES.items()
    }


def load_table() -> dict[str, list[str]]:
    with lzma.open(TABLE, "rt", encoding="utf-8") as f:
        return {entry["game"]: entry["lines"] for entry in map(json.loads, f)}


def load() -> dict[str, list[dict[str, Any]]]:
    """The fixture: each golden game's name and stored rows."""
    with lzma.open(FIXTURE, "rt", encoding="utf-8") as f:
        out: dict[str, list[dict[str, Any]]] = {}
        for line in f:
            entry = json.loads(line)
            out[entry["game"]] = entry["rows"]
        return out


def write() -> None:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    SCHEMAS.write_text(json.dumps(schemas(), indent=1) + "\n")
    with (
        lzma.open(FIXTURE, "wt", encoding="utf-8", preset=9) as f,
        lzma.open(TABLE, "wt", encoding="utf-8", preset=9) as t,
    ):
        for game in GAMES:
            rows = play(game)
            f.write(json.dumps({"game": game.name, "rows": rows}, separators=(",", ":")) + "\n")
            t.write(json.dumps({"game": game.name, "lines": table(rows)}, separators=(",", ":")) + "\n")
            print(f"{game.name}: {len(rows)} rows", flush=True)  # noqa: T201


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="play every golden game and write the fixture")
    args = parser.parse_args()
    if args.write:
        write()
    else:
        for game in GAMES:
            print(game.name)  # noqa: T201


if __name__ == "__main__":
    main()
