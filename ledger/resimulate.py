"""Re-simulation: replay a stored game under the rules this server runs now.

For each game: *identical* (every effect and digest reproduced), *diverged* at event N
(with the first differing effect, the replay going on with the recorded decisions), or
*illegal* at event N (a recorded decision the current rules refuse); and, for a finished
game, the standings the current rules would give.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from ledger import records, registry
from ledger.engine import DrawOutcome, final_standings
from ledger.errors import RuleViolationError
from ledger.export import event_record
from ledger.records import split_effects
from ledger.rng import derive_draw
from ledger.verify import DECISION, DRAW, FINISHED, STARTED, TIMED_OUT, UNDONE


def _effects(record: dict[str, Any]) -> list[Any]:
    """The recorded effects: the public ones in order, then each audience's private ones."""
    private = record.get("private", {})
    return [
        *record["public"].get("effects", []),
        *((aud, private[aud].get("effects", [])) for aud in sorted(private) if private[aud].get("effects")),
    ]


def _payloads(effects: Any) -> list[Any]:
    """The same for effects the rules produce now (through JSON, as they are stored)."""
    public, private = split_effects(tuple(effects))
    out: list[Any] = json.loads(json.dumps(public))
    out += [(aud, json.loads(json.dumps(private[aud]["effects"]))) for aud in sorted(private)]
    return out


def resimulate_game(ledger: Any, game_id: UUID | str) -> dict[str, Any]:
    gid = UUID(str(game_id))
    recs = []
    seed = b""
    for event in ledger.events.get(gid):
        recs.append(event_record(event))
        if getattr(event, "seed", None) and not seed:
            seed = bytes.fromhex(event.seed)
    created = recs[0]["public"]
    title = created["title"]
    eng = registry.engine(title)
    result: dict[str, Any] = {
        "game_id": str(gid),
        "title": title,
        "recorded_rules": created["rules_version"],
        "current_rules": registry.meta(title).rules_version,
        "events": len(recs),
        "outcome": "identical",
        "at": None,
        "difference": None,
    }

    def diverged(version: int, what: str, recorded: Any, now: Any) -> None:
        if result["outcome"] == "identical":
            result.update(
                outcome="diverged", at=version, difference={"what": what, "recorded": recorded, "now": now}
            )

    state: Any = None
    draws = 0
    positions: list[tuple[int, Any, int]] = []
    forfeited: list[int] = []
    for r in recs:
        p = r["public"]
        kind = r["type"]
        try:
            if kind == STARTED:
                stored = r.get("private", {}).get("server", {}).get("state")
                if stored is not None:
                    state = eng.state_adapter.validate_python(stored)
                    draws = p.get("draws", 0)
                else:
                    state = eng.new_game(
                        eng.meta.options.model_validate(created["options"]), created["seat_count"]
                    )
            elif kind == DRAW:
                request = eng.pending(state).draw
                if request is None or request.key != p["key"]:
                    diverged(r["version"], "draw", p["key"], request.key if request else None)
                    result.update(outcome="illegal", at=r["version"])
                    break
                values = derive_draw(seed, draws, request)
                state, fx = eng.apply_draw(state, DrawOutcome(request.key, values))
                draws += 1
                if _payloads(fx) != _effects(r):
                    diverged(r["version"], "effects", _effects(r), _payloads(fx))
            elif kind == DECISION:
                decision = eng.decision_adapter.validate_python(p["decision"])
                state, fx = eng.apply(state, p["seat"], decision)
                if _payloads(fx) != _effects(r):
                    first = next(
                        (
                            i
                            for i, (a, b) in enumerate(zip(_effects(r), _payloads(fx), strict=False))
                            if a != b
                        ),
                        min(len(_effects(r)), len(_payloads(fx))),
                    )
                    rec, now = _effects(r), _payloads(fx)
                    diverged(
                        r["version"],
                        f"effect {first + 1}",
                        rec[first] if first < len(rec) else None,
                        now[first] if first < len(now) else None,
                    )
            elif kind == UNDONE:
                _, state, draws = [x for x in positions if x[0] < p["target_version"]][-1]
            elif kind == TIMED_OUT and p["consequence"] == "forfeit":
                forfeited.append(p["seat"])
                continue
            else:
                continue
        except (RuleViolationError, ValueError) as exc:
            result.update(outcome="illegal", at=r["version"], difference={"what": "refused", "now": str(exc)})
            break
        positions.append((r["version"], state, draws))
        digest = records.state_digest(seed, eng.state_adapter.dump_python(state, mode="json"))
        if p.get("state_digest") and digest != p["state_digest"]:
            diverged(r["version"], "state digest", p["state_digest"], digest)
    finish = [r for r in recs if r["type"] == FINISHED]
    if finish and result["outcome"] != "illegal" and state is not None and eng.pending(state).finished:
        before = [{"seat": s["seat"], "rank": s["rank"]} for s in finish[-1]["public"]["standings"]]
        after = [
            {"seat": s["seat"], "rank": s["rank"]} for s in final_standings(eng.standings(state), forfeited)
        ]
        result["standings"] = {"recorded": before, "now": after, "changed": before != after}
        result["players"] = {s["seat"]: s.get("player") for s in finish[-1]["public"]["standings"]}
    return result
