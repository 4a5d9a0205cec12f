"""Seasons in tests: games of a round played by the title's scripted bot through the ledger."""

from __future__ import annotations

import json
from typing import Any

from ledger import registry
from ledger.application import Ledger
from ledger.engine import DrawOutcome
from ledger.rng import derive_draw


def play(ledger: Ledger, game_id: str, stop_after: int | None = None) -> int:
    """Every awaited seat decides by the title's bot until the game ends (or ``stop_after``
    decisions); the number of decisions made."""
    made = 0
    while stop_after is None or made < stop_after:
        game = ledger.get_game(game_id)
        if game.over:
            break
        seat = game.awaiting[0]
        decision = registry.bot(game.title)(game.state, seat)  # type: ignore[misc]
        body = game.engine.decision_adapter.dump_python(decision, mode="json")
        ledger.decide(game_id, game.seats[seat] or "", game.version, body, seat=seat)
        made += 1
    return made


def decisions_left(ledger: Ledger, game_id: str) -> int:
    """How many decisions the title's bot would still make in the game (its draws derived from
    the game's seed, as the ledger derives them)."""
    game = ledger.get_game(game_id)
    eng, bot = game.engine, registry.bot(game.title)
    state, counter, made = game.state, game.draws, 0
    while made < 100_000:
        pending = eng.pending(state)
        if pending.finished:
            break
        if pending.draw is not None:
            values = derive_draw(game.seed_bytes, counter, pending.draw)
            state, _ = eng.apply_draw(state, DrawOutcome(pending.draw.key, values))
            counter += 1
            continue
        state, _ = eng.apply(state, pending.seats[0], bot(state, pending.seats[0]))  # type: ignore[misc]
        made += 1
    return made


def season_events(doc: dict[str, Any], topic: str, number: int = 1) -> list[dict[str, Any]]:
    season = next(s for s in doc["seasons"] if s["number"] == number)
    return [e["data"] for e in season["events"] if e["type"] == f"gameledger.season.{topic}"]


def copy(doc: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(doc))  # type: ignore[no-any-return]


def changed_result(doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A copy whose first round's first game has its winner and runner-up swapped."""
    out = copy(doc)
    gid = season_events(out, "round_seated")[0]["tables"][0]["game"]
    finished = next(e for e in out["games"][gid] if e.get("type") == "gameledger.game.finished")
    standings = finished["public"]["standings"]
    standings[0]["rank"], standings[1]["rank"] = standings[1]["rank"], standings[0]["rank"]
    return out, gid


def swapped_seat(doc: dict[str, Any], round_no: int = 2) -> tuple[dict[str, Any], str]:
    """A copy whose round's first table has its first two seats swapped in the seating."""
    out = copy(doc)
    table = season_events(out, "round_seated")[round_no - 1]["tables"][0]
    table["seats"][0], table["seats"][1] = table["seats"][1], table["seats"][0]
    return out, table["game"]


def dropped_game(doc: dict[str, Any], round_no: int = 1) -> tuple[dict[str, Any], str]:
    """A copy without the round's last game's export."""
    out = copy(doc)
    gid = season_events(out, "round_seated")[round_no - 1]["tables"][-1]["game"]
    del out["games"][gid]
    return out, gid


def failures(report: Any) -> list[str]:
    return [f"{name}: {detail}" for name, ok, detail in report.checks if not ok]
