"""The audit of one game, run by the server over its full stored record: one computation whose
results make both the JSON document for machines and the sentences for people
(``ledger.audit_words``: each check's result in words, and a failed check's first event named).

The server holds every private part and the seed, so it checks everything at any
time: the hash chain (an edited, deleted or reordered row is caught at its
version), every commitment, every draw re-derived from the seed, every stored
digest reproduced by replaying the decisions through the rules, and the title's
conservation laws at every position. What a viewer is *shown* is their own view:
the checks' outcomes (which reveal nothing), the record redacted as an export
would be, and the log in words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any
from uuid import UUID

from ledger import audit_words, registry
from ledger.export import event_record, redact, visible_effects
from ledger.rng import seed_commitment
from ledger.snapshots import restore
from ledger.verify import (
    ABANDONED,
    ANNULLED,
    CREATED,
    FINISHED,
    Report,
    _replay,
    check_chain,
    check_seeded_commitments,
)

SHORT = "gameledger.game."


def _raw_records(ledger: Any, game_id: UUID) -> tuple[list[dict[str, Any]], bytes | None]:
    records = []
    seed: bytes | None = None
    for event in ledger.events.get(game_id):
        records.append(event_record(event))
        if getattr(event, "seed", None) and seed is None:
            seed = bytes.fromhex(event.seed)
    return records, seed


def integrity(ledger: Any, game_id: UUID | str) -> tuple[bool, str, int | None]:
    """One game read straight from the store (for /health): its hash chain, its private parts
    against their commitments, and its latest snapshot against the record."""
    gid = UUID(str(game_id))
    try:
        records, seed = _raw_records(ledger, gid)
    except Exception as exc:  # a row that no longer decodes
        return False, f"a stored event does not decode: {type(exc).__name__}", None
    ok, detail, version = check_chain(records)
    if not ok:
        return ok, detail, version
    if seed is not None:
        missing, mismatched, first = check_seeded_commitments(records, seed)
        if missing or mismatched:
            return False, f"private parts: {missing} missing, {mismatched} not as committed", first
    for at, problem in snapshot_problems(ledger, gid, records, latest_only=True):
        return False, f"the snapshot at version {at or '?'} disagrees with the record: {problem}", at
    return ok, detail, version


def snapshot_problems(
    ledger: Any, gid: UUID, records: list[dict[str, Any]], *, latest_only: bool = False
) -> list[tuple[int | None, str]]:
    """The game's snapshots (or its latest) that disagree with its record: (version, problem)."""
    store = ledger.snapshots
    if store is None:
        return []
    try:
        snapshots = list(store.get(gid, desc=True, limit=1) if latest_only else store.get(gid))
    except ValueError as exc:  # a stored row that no longer decodes
        return [(None, f"it does not decode ({type(exc).__name__})")]
    out: list[tuple[int | None, str]] = []
    for snapshot in snapshots:
        _, problem = restore(snapshot, lambda v: (r for r in reversed(records) if r["version"] <= v))
        if problem:
            out.append((snapshot.originator_version, problem))
    return out


def seats_of(records: list[dict[str, Any]], player: str | None) -> list[int]:
    """The viewer's seats, from the record itself (the aggregate may not load if it was tampered)."""
    seats = list(records[0]["public"]["seats"])
    for r in records:
        if r["type"] == SHORT + "seat_claimed":
            seats[r["public"]["seat"]] = r["public"]["player"]
    return [i for i, p in enumerate(seats) if player is not None and p == player]


def audit_game(
    ledger: Any,
    game_id: UUID | str,
    player: str | None,
    *,
    full_view: bool = False,
    names: dict[int, str] | None = None,
) -> dict[str, Any]:
    gid = UUID(str(game_id))
    report = Report()
    try:
        records, seed = _raw_records(ledger, gid)
    except Exception as exc:
        report.add("every stored event decodes", False, f"{type(exc).__name__}: {exc}")
        return _broken(gid, report)
    if not records or records[0]["type"] != CREATED:
        report.add("stream starts with game created", False)
        return _broken(gid, report)
    created = records[0]["public"]
    ended = any(r["type"] in (FINISHED, ABANDONED, ANNULLED) for r in records)
    chain_ok, detail, broken_at = check_chain(records)
    report.add("hash chain", chain_ok, detail, broken_at)
    if seed is not None:
        report.add(
            "random draws committed at creation",
            seed_commitment(seed) == created["seed_commitment"],
            f"seed commitment {created['seed_commitment'][:16]}…" + (", seed revealed" if ended else ""),
        )
        missing, mismatched, first = check_seeded_commitments(records, seed)
        report.add(
            "every private part present and committed",
            missing == 0 and mismatched == 0,
            f"{missing} missing, {mismatched} mismatched" + (f" (first at version {first})" if first else ""),
            first,
        )
        _replay(report, {}, records, seed, conservation=True)
    bad = snapshot_problems(ledger, gid, records)
    report.add(
        "every snapshot agrees with the record",
        not bad,
        f"{len(bad)} disagree (first at version {bad[0][0] or '?'}: {bad[0][1]})" if bad else "",
        bad[0][0] if bad else None,
    )
    title = created["title"]
    current = registry.meta(title).rules_version
    report.add(
        "rules version",
        True,
        f"recorded {created['rules_version']}, replayed with {current}"
        + ("" if created["rules_version"] == current else " (the recorded version differs)"),
    )
    eng = registry.engine(title)
    who = names or {}
    shown_seats = list(range(created["seat_count"])) if full_view else seats_of(records, player)
    over = ended or full_view
    record = []
    log: list[str] = []
    for r in records:
        shown = redact(r, shown_seats, over, seed or b"")
        p = r["public"]
        seat = p.get("seat")
        texts = [eng.describe(e, who) for e in visible_effects(r, shown_seats, over)]
        kind = r["type"].removeprefix(SHORT)
        entry = {
            "version": r["version"],
            "type": kind,
            "timestamp": r["timestamp"],
            "seat": seat,
            "player": p.get("player"),
            "decision": p.get("decision"),
            "forced": p.get("forced"),
            "log": texts,
            "hash": r["hash"],
            "prev_hash": r["prev_hash"],
            "commitments": r["commitments"],
        }
        if "private" in shown:
            entry["private"] = shown["private"]
        record.append(entry)
        actor = f"{who.get(seat, f'seat {seat}')}: " if isinstance(seat, int) else ""
        what = p.get("decision", {}).get("type", kind) if p.get("decision") else kind.replace("_", " ")
        log.append(f"v{r['version']} {r['timestamp'][:19]} {actor}{what}")
        log.extend(f"    {t}" for t in texts)
    by_version = {r["version"]: r for r in records}
    words = audit_words.Context(
        events=len(records),
        ended=ended,
        seed_commitment=created["seed_commitment"],
        rules=created["rules_version"],
        current_rules=current,
    )
    checks = _checks(
        report, words, lambda v: audit_words.event_words(by_version[v], who) if v in by_version else ""
    )
    return {
        "game_id": str(gid),
        "title": title,
        "rules_version": created["rules_version"],
        "status": "over" if ended else "running",
        "seed_commitment": created["seed_commitment"],
        "seed": seed.hex() if seed is not None and ended else None,
        "events": len(records),
        "head": records[-1]["hash"],
        "ok": report.ok,
        "summary": audit_words.summary(report.ok, checks, ended),
        "checks": checks,
        "record": record,
        "log": log,
    }


def _broken(gid: UUID, report: Report) -> dict[str, Any]:
    """The audit of a record that cannot be read as a game at all."""
    words = audit_words.Context(events=0, ended=False, seed_commitment="", rules="")
    checks = _checks(report, words, lambda v: "")
    summary = audit_words.summary(False, checks, False)
    return {"game_id": str(gid), "ok": False, "summary": summary, "checks": checks, "record": [], "log": []}


def _checks(report: Report, words: audit_words.Context, named: Callable[[int], str]) -> list[dict[str, Any]]:
    """Each check: its name, outcome and detail (for machines), what it is about and its result
    in a sentence, and where it fails, the first event at fault (its version and in words)."""
    out = []
    for name, ok, detail in report.checks:
        at = report.at.get(name)
        event = named(at) if at else ""
        ctx = replace(words, failing_event=event)
        out.append(
            {
                "name": name,
                "ok": ok,
                "detail": detail,
                "title": audit_words.title(name),
                "sentence": audit_words.sentence(name, ok, detail, at, ctx),
                "at": at,
                "event": event or None,
            }
        )
    return out
