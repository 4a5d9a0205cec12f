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
from ledger.records import state_digest
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


# -- the audit of a stretch of the record: the events a dispute names ------------------------

MAX_STRETCH = 20  # events audited one by one for a dispute
MAX_ITEMS_SAID = 40  # a shuffle's order is said up to this many items


def audit_stretch(
    ledger: Any,
    game_id: UUID | str,
    versions: list[int],
    player: str | None,
    *,
    full_view: bool = False,
    names: dict[int, str] | None = None,
    digest: dict[str, Any] | None = None,
    public_key: str | None = None,
) -> list[dict[str, Any]]:
    """Each of these events, checked on its own and said in words: the record unchanged through
    it (its chain, and the ledger's signed digest that covers it); a draw, the one the committed
    seed gives (its outcome said once it is public: the game over, or a draw everyone saw); a
    move, among those the rules offered in its position, giving the position recorded after it;
    and whether it was later set aside. Seen as ``player`` may see the record (``full_view``:
    the operator)."""
    gid = UUID(str(game_id))
    records, seed = _raw_records(ledger, gid)
    if not records or records[0]["type"] != CREATED:
        return []
    created = records[0]["public"]
    by_version = {r["version"]: r for r in records}
    ended = any(r["type"] in (FINISHED, ABANDONED, ANNULLED) for r in records)
    chain_ok, _, broken_at = check_chain(records)
    eng = registry.engine(created["title"])
    who = names or {}
    shown_seats = list(range(created["seat_count"])) if full_view else seats_of(records, player)
    covered = _digest_covers(digest, public_key, by_version, str(gid))
    out = []
    for v in sorted(set(versions))[:MAX_STRETCH]:
        r = by_version.get(v)
        if r is None:
            continue
        checks = [_unchanged(v, chain_ok or (broken_at or 0) > v, covered)]
        outcome = None
        kind = r["type"].removeprefix(SHORT)
        if seed is not None and kind == "draw_recorded":
            check, outcome = _draw_check(
                ledger, gid, r, seed, eng, ended or full_view or "outcome" in r["public"]
            )
            checks.append(check)
        elif seed is not None and kind == "decision_recorded":
            checks.append(_move_check(ledger, gid, r, seed, eng, who))
        set_aside = _set_aside_by(records, v)
        if set_aside:
            checks.append(
                {
                    "name": "set aside",
                    "ok": True,
                    "sentence": f"This event is no longer in force: {audit_words.event_words(set_aside, who)} "
                    "took the game back to before it.",
                }
            )
        texts = [eng.describe(e, who) for e in visible_effects(r, shown_seats, ended or full_view)]
        out.append(
            {
                "version": v,
                "type": kind,
                "event": audit_words.event_words(r, who),
                "log": texts,
                "ok": all(c["ok"] for c in checks),
                "checks": checks,
                "outcome": outcome,
            }
        )
    return out


def _digest_covers(
    digest: dict[str, Any] | None, public_key: str | None, by_version: dict[int, dict[str, Any]], gid: str
) -> dict[str, Any] | None:
    """The signed digest's word on this game, checked here: up to which event it holds the game
    (its proof's leaf), when it was signed, and whether signature and proof hold."""
    if not digest or not digest.get("proof"):
        return None
    from ledger import digest as dg

    try:
        entry = digest["proof"]["leaf"]
        at = by_version.get(int(entry["version"]))
        ok = (
            dg.check_signature(digest, public_key)
            and entry["game"] == gid
            and at is not None
            and at["hash"] == entry["head"]
            and dg.root_from_proof(entry, digest["proof"]["path"]) == digest["root"]
        )
        return {"version": int(entry["version"]), "issued_at": str(digest["issued_at"]), "ok": ok}
    except (KeyError, TypeError, ValueError):
        return {"version": 0, "issued_at": "", "ok": False}


def _unchanged(v: int, intact: bool, covered: dict[str, Any] | None) -> dict[str, Any]:
    if not intact:
        return {
            "name": "unchanged",
            "ok": False,
            "sentence": f"The record was changed at or before event {v}: its chain of fingerprints is broken there "
            "(the game's audit names the event).",
        }
    sentence = (
        f"The record is unchanged since it was written: the chain of fingerprints is intact through event {v}"
    )
    ok = True
    if covered is not None and covered["ok"] and covered["version"] >= v:
        when = covered["issued_at"][:16].replace("T", " ")
        sentence += (
            f", and the ledger's digest signed {when} UTC holds the game up to event {covered['version']}"
            " (its signature checked with the ledger's public key)."
        )
    elif covered is not None and not covered["ok"]:
        ok = False
        sentence += (
            ", but the ledger's signed digest does not hold this record: it was changed after it was signed."
        )
    else:
        sentence += "; the next digest the ledger signs will hold it."
    return {"name": "unchanged", "ok": ok, "sentence": sentence}


def _draw_check(
    ledger: Any, gid: UUID, r: dict[str, Any], seed: bytes, eng: Any, say_outcome: bool
) -> tuple[dict[str, Any], list[str] | None]:
    """The draw re-derived from the seed at the position before it."""
    from ledger.rng import derive_draw

    p = r["public"]
    label = p.get("label") or "cards"
    try:
        before = ledger.get_game(gid, version=r["version"] - 1)
        request = eng.pending(before.state).draw
        recorded = p.get("outcome")
        if recorded is None:
            recorded = r["private"]["server"]["outcome"]
        expected = derive_draw(seed, p["counter"], request) if request else None
        ok = request is not None and request.key == p["key"] and list(expected or ()) == list(recorded)
    except Exception:
        return {
            "name": "draw",
            "ok": False,
            "sentence": f"The draw of the {label} cannot be re-derived here.",
        }, None
    if not ok:
        return {
            "name": "draw",
            "ok": False,
            "sentence": f"This draw of the {label} is not the one the committed seed gives.",
        }, None
    if not say_outcome:
        return {
            "name": "draw",
            "ok": True,
            "sentence": f"This draw of the {label} is the one the committed seed gives (checked by the server, which "
            "holds the seed). Its outcome stays hidden while the game runs; when the game ends the seed is "
            "revealed and anyone can check it.",
        }, None
    items = [request.items[i] for i in recorded] if request is not None else []
    said = ", ".join(items[:MAX_ITEMS_SAID]) + (
        f" and {len(items) - MAX_ITEMS_SAID} more" if len(items) > MAX_ITEMS_SAID else ""
    )
    what = (
        f"the {label} {'were' if label.endswith('s') else 'was'} shuffled into {said}"
        if p.get("kind") == "shuffle"
        else f"it drew {said}"
    )
    return {
        "name": "draw",
        "ok": True,
        "sentence": f"This draw is the one the committed seed gives: {what}.",
    }, items


def _move_check(
    ledger: Any, gid: UUID, r: dict[str, Any], seed: bytes, eng: Any, who: dict[int, str]
) -> dict[str, Any]:
    """The move among the rules' offers at the position before it, and the position it gives."""
    p = r["public"]
    seat = p.get("seat")
    name = who.get(seat, f"seat {seat}") if isinstance(seat, int) else "a seat"
    made = {
        "order": f" (made by {name}'s standing order)",
        "reply": f" (made by {name}'s conditional reply)",
        "bot": " (made by the stand-in while the player was away)",
    }.get(str(p.get("by")), " (the clock's default, when the time ran out)" if p.get("forced") else "")
    try:
        before = ledger.get_game(gid, version=r["version"] - 1)
        decision = eng.decision_adapter.validate_python(p["decision"])
        offered = decision in eng.legal_decisions(before.state, seat)
        after, _ = eng.apply(before.state, seat, decision) if offered else (None, ())
        same = after is not None and state_digest(
            seed, eng.state_adapter.dump_python(after, mode="json")
        ) == p.get("state_digest")
    except Exception:
        offered = same = False
    if not offered:
        return {
            "name": "legal",
            "ok": False,
            "sentence": f"This move was not among the moves the rules offered {name} in that position.",
        }
    if not same:
        return {
            "name": "legal",
            "ok": False,
            "sentence": f"This move was among those the rules offered {name}{made}, but the position recorded after "
            "it is not the one the rules give.",
        }
    return {
        "name": "legal",
        "ok": True,
        "sentence": f"This move was legal in its position: it was among the moves the rules offered {name}{made}, "
        "and the position recorded after it is the one the rules give.",
    }


def _set_aside_by(records: list[dict[str, Any]], v: int) -> dict[str, Any] | None:
    """The compensating event (a move taken back, a correction) that set event ``v`` aside."""
    for r in records:
        if r["type"] == SHORT + "decision_undone" and r["version"] > v:
            target = r["public"].get("target_version")
            if isinstance(target, int) and target <= v:
                return r
    return None
