"""Offline verification of a game export (``gameledger verify FILE``).

Checks, in order:

0. the record is whole: exactly the events its header announces (a cut tail is named by its
   missing versions), reaching the status the header announces (a finished game's record
   holds its finished event);
1. the hash chain: every event's hash recomputed from its body, each linked to
   the previous one, versions gapless from 1; the same for the game's table talk, when the
   export holds it (its own chain, in the lines marked ``"record": "talk"``);
2. every private part present in the export opens its commitment with the salt given;
3. once the game is finished (the seed is revealed): the seed matches the
   commitment published at creation, every private part is present and opens
   its commitment with the salt derived from the seed, every random draw is
   re-derived from the seed, and replaying every decision and draw through the
   title's rules engine reproduces every state digest, every public digest and
   the final standings.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger import records, registry
from ledger.engine import DrawOutcome
from ledger.rng import derive_draw, seed_commitment

CREATED = "gameledger.game.created"
STARTED = "gameledger.game.started"
DRAW = "gameledger.game.draw_recorded"
DECISION = "gameledger.game.decision_recorded"
FINISHED = "gameledger.game.finished"
ABANDONED = "gameledger.game.abandoned"
TIMED_OUT = "gameledger.game.timed_out"
ANNULLED = "gameledger.game.annulled"
UNDONE = "gameledger.game.decision_undone"
TALK = "talk"  # an export line of the game's table talk (its own hash chain)


# the status a game reaches with each of these events (it is "waiting" before the first)
STATUS_AFTER = {STARTED: "active", FINISHED: "finished", ABANDONED: "abandoned", ANNULLED: "annulled"}


@dataclass
class Report:
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what passed but deserves the reader's doubt
    at: dict[str, int] = field(default_factory=dict)  # a failed check's first event, by its name

    def add(self, name: str, ok: bool, detail: str = "", at: int | None = None) -> bool:
        self.checks.append((name, ok, detail))
        if not ok and at is not None:
            self.at[name] = at
        return ok

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(ok for _, ok, _ in self.checks)

    def text(self) -> str:
        lines = [
            f"{'PASS' if ok else 'FAIL'}  {name}{(': ' + detail) if detail else ''}"
            for name, ok, detail in self.checks
        ]
        lines += [f"WARNING  {w}" for w in self.warnings]
        lines.append("verified" if self.ok else "NOT verified")
        return "\n".join(lines)


def parse(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the game's events (without its table talk)."""
    header, events, _ = parse_all(lines)
    return header, events


def parse_all(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """The header, the game's events and its table talk's (the lines marked ``record: talk``)."""
    rows = [json.loads(line) for line in lines if line.strip()]
    if not rows or rows[0].get("format") is None:
        raise ValueError("not a gameledger export: the first line must be the header")
    events = [r for r in rows[1:] if r.get("record") != TALK]
    return rows[0], events, [r for r in rows[1:] if r.get("record") == TALK]


def check_talk(report: Report, header: dict[str, Any], talk: list[dict[str, Any]]) -> None:
    """The table talk's own hash chain, whole as the header announces it, of this game."""
    announced = header.get("talk_version")
    if announced is None and not talk:
        return
    ok, detail, _ = check_chain(talk)
    if ok and announced != len(talk):
        ok, detail = False, f"{len(talk)} talk events where the header announces {announced}"
    if ok and any(e["game"] != header.get("game") for e in talk):
        ok, detail = False, "a talk event names another game"
    report.add("table talk hash chain", ok, detail)


def _body(e: dict[str, Any]) -> dict[str, Any]:
    header = records.Header(e["game"], e["version"], e["type"], e["timestamp"], e["prev_hash"])
    return header.body(e["public"], e["commitments"])


def check_chain(events: list[dict[str, Any]]) -> tuple[bool, str, int | None]:
    """Versions gapless from 1, each event linked to the one before, each hash recomputed
    from its body: an edited, deleted or reordered event is found, with its version."""
    prev = records.GENESIS
    for i, e in enumerate(events, start=1):
        if e["version"] != i:
            return False, f"version {e['version']} where {i} was expected (an event is missing or moved)", i
        if e["prev_hash"] != prev:
            return False, f"event {i} does not link to event {i - 1}", i
        if records.event_hash(_body(e)) != e["hash"]:
            return False, f"event {i} was altered (hash mismatch)", i
        prev = e["hash"]
    return True, f"{len(events)} events", None


def spans(versions: Iterable[int]) -> str:
    """Versions as ranges: 3, 151-212."""
    runs: list[list[int]] = []
    for v in sorted(versions):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _versions(versions: list[int]) -> str:
    return f"version {versions[0]} is" if len(versions) == 1 else f"versions {spans(versions)} are"


def check_extent(header: dict[str, Any], events: list[dict[str, Any]]) -> tuple[bool, str]:
    """The record holds exactly the events the header announces (versions 1 to its
    ``version``) and they bring the game to the header's ``status``: a cut tail, a dropped
    closing event or a record longer than announced fails, naming the versions."""
    announced, status = header.get("version"), header.get("status")
    if type(announced) is not int or announced < 1 or status not in ("waiting", *STATUS_AFTER.values()):
        return False, "the header announces no version and status, so a cut record could not be told"
    present = {e["version"] for e in events}
    missing = [v for v in range(1, announced + 1) if v not in present]
    extra = [v for v in present if v > announced]
    problems = []
    if missing:
        problems.append(f"{_versions(missing)} missing (the header announces {announced} events)")
    if extra:
        problems.append(f"{_versions(extra)} beyond the header's {announced}")
    reached = "waiting"
    for e in events:
        reached = STATUS_AFTER.get(e["type"], reached)
    if reached != status:
        problems.append(f"the header says {status} but the events end the game {reached}")
    if problems:
        return False, "; ".join(problems)
    return True, f"{announced} events, {status}, as the header announces"


def check_seeded_commitments(events: list[dict[str, Any]], seed: bytes) -> tuple[int, int, int | None]:
    """Every commitment opens with its private part and the seed-derived salt:
    (missing, mismatched, first bad version)."""
    missing = mismatched = 0
    first: int | None = None
    for e in events:
        for aud, c in e["commitments"].items():
            part = e.get("private", {}).get(aud)
            if part is None:
                missing += 1
            elif records.commitment(records.salt(seed, e["version"], aud), part) != c:
                mismatched += 1
                first = first or e["version"]
    return missing, mismatched, first


def verify_export(
    lines: Iterable[str], digest: dict[str, Any] | None = None, public_key: str | None = None
) -> Report:
    report = Report()
    try:
        _verify(report, lines, digest, public_key)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # not shaped like an export
        report.add("format", False, f"malformed record ({type(exc).__name__}: {exc})")
    return report


def _verify(
    report: Report, lines: Iterable[str], digest: dict[str, Any] | None, public_key: str | None
) -> None:
    try:
        header, events, talk = parse_all(lines)
    except (ValueError, json.JSONDecodeError) as exc:
        report.add("format", False, str(exc))
        return
    report.add("format", header["format"] == "gameledger-export/1", header["format"])
    if not events or events[0]["type"] != CREATED:
        report.add("stream starts with game created", False)
        return

    # 0. the whole record, as the header announces it
    report.add("record complete", *check_extent(header, events))

    # 1. hash chain
    chain_ok, detail, _ = check_chain(events)
    report.add("hash chain", chain_ok, detail)
    check_talk(report, header, talk)
    if digest is not None:
        check_digest(report, events, digest, public_key, talk)

    # 2. private parts present in the export open their commitments
    opened = bad = 0
    for e in events:
        for aud, part in e.get("private", {}).items():
            salt = bytes.fromhex(e.get("salts", {}).get(aud, ""))
            if records.commitment(salt, part) == e["commitments"].get(aud):
                opened += 1
            else:
                bad += 1
    report.add("private parts open their commitments", bad == 0, f"{opened} opened, {bad} failed")

    finished = [e for e in events if e["type"] in (FINISHED, ABANDONED, ANNULLED)]
    if not finished:
        report.add("game finished", True, "not finished: seed, draws and replay are checked once it ends")
        return
    created = events[0]["public"]
    seed = bytes.fromhex(finished[-1]["public"]["seed"])
    report.add(
        "seed matches the commitment published at creation",
        seed_commitment(seed) == created["seed_commitment"],
    )

    # 3a. every commitment opens with the seed-derived salt
    missing, mismatched, _ = check_seeded_commitments(events, seed)
    report.add(
        "every private part present and committed",
        missing == 0 and mismatched == 0,
        f"{missing} missing, {mismatched} mismatched",
    )
    _replay(report, header, events, seed)


def check_digest(
    report: Report,
    events: list[dict[str, Any]],
    digest: dict[str, Any],
    public_key: str | None,
    talk: list[dict[str, Any]] | None = None,
) -> None:
    """The published digest is signed by the ledger's key and includes this game's head at
    the proof's version, which is the export's event at that version; and, when the digest's
    leaf holds the table talk's head and the export holds the talk, the talk's event at that
    version is the one signed (a reworded or dropped message fails, whatever hashes were
    recomputed)."""
    from ledger import digest as dg

    signed = report.add(
        "digest signature",
        dg.check_signature(digest, public_key),
        f"key {digest.get('key_id', '?')}" + (" (pinned)" if public_key else " (the digest's own key)"),
    )
    if signed and not public_key:
        report.warnings.append(
            "the digest was checked against the key inside the digest file, which whoever made "
            "the file chose: pin the ledger's key with --public-key (GET /api/v1/ledger/public-key)"
        )
    proof = digest.get("proof")
    if not proof:
        report.add("game included in the digest", False, "the digest carries no proof for this game")
        return
    try:
        entry = proof["leaf"]
        at = next((e for e in events if e["version"] == entry["version"]), None)
        included = (
            entry["game"] == events[0]["game"]
            and at is not None
            and at["hash"] == entry["head"]
            and dg.root_from_proof(entry, proof["path"]) == digest["root"]
        )
        detail = f"head of version {entry['version']} under root {str(digest['root'])[:16]}…"
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        included, detail = False, f"the digest's proof is malformed ({type(exc).__name__}: {exc})"
    report.add("game included in the digest", included, detail)
    if included and talk:
        _check_talk_head(report, entry, talk)


def _check_talk_head(report: Report, entry: dict[str, Any], talk: list[dict[str, Any]]) -> None:
    name = "table talk included in the digest"
    signed = entry.get("talk_version")
    if signed is None:
        report.warnings.append(
            "the digest was signed before the game had table talk: the talk is checked by its own "
            "hash chain only; verify against a newer digest"
        )
        return
    at = next((e for e in talk if e["version"] == signed), None)
    if at is None:
        report.add(name, False, f"the digest signs talk event {signed}; the export has {len(talk)}")
    elif at["hash"] != entry.get("talk_head"):
        report.add(name, False, f"talk event {signed} is not the one the digest signs (changed since)")
    else:
        later = len(talk) - signed
        report.add(
            name, True, f"talk up to event {signed}" + (f"; {later} since, not yet signed" if later else "")
        )


def _replay(
    report: Report,
    header: dict[str, Any],
    events: list[dict[str, Any]],
    seed: bytes,
    conservation: bool = False,
) -> None:
    created = events[0]["public"]
    try:
        eng = registry.engine(created["title"])
    except Exception as exc:  # an unknown title cannot be replayed here
        report.add("rules engine available", False, str(exc))
        return
    state: Any = None
    draws_ok = digests_ok = True
    draws = 0
    detail_draw = detail_digest = ""
    first: dict[str, int] = {}  # each check's first failing event
    positions: list[tuple[int, Any, int]] = []  # (version, state, draws) after each change
    broken = ""
    forfeited: list[int] = []
    for e in events:
        p = e["public"]
        try:
            if e["type"] == TIMED_OUT and p["consequence"] == "forfeit":
                forfeited.append(p["seat"])
                continue
            if e["type"] == UNDONE:
                # the compensating event restores the position before its target
                _, state, draws = [x for x in positions if x[0] < p["target_version"]][-1]
                if p["draws"] != draws:
                    draws_ok = False
                    first.setdefault("draw", e["version"])
                    detail_draw = (
                        detail_draw or f"undo at version {e['version']} restores the wrong draw count"
                    )
                stored = e.get("private", {}).get("server", {}).get("state")
                if stored is not None and records.state_digest(seed, stored) != p.get("state_digest"):
                    digests_ok = False
                    first.setdefault("digest", e["version"])
                    detail_digest = detail_digest or f"undo at version {e['version']} stores another position"
            elif e["type"] == STARTED:
                stored = e.get("private", {}).get("server", {}).get("state")
                if stored is not None:  # a fork starts from its origin's position
                    state = eng.state_adapter.validate_python(stored)
                    draws = p.get("draws", 0)
                else:
                    state = eng.new_game(
                        eng.meta.options.model_validate(created["options"]), created["seat_count"]
                    )
            elif e["type"] == DRAW:
                request = eng.pending(state).draw
                recorded = p.get("outcome")
                if recorded is None:
                    recorded = e["private"]["server"]["outcome"]
                expected = derive_draw(seed, p["counter"], request) if request else None
                if (
                    request is None
                    or request.key != p["key"]
                    or list(expected or ()) != list(recorded)
                    or p["counter"] != draws
                ):
                    draws_ok = False
                    first.setdefault("draw", e["version"])
                    detail_draw = detail_draw or f"draw at version {e['version']} is not the seed's"
                state, _ = eng.apply_draw(state, DrawOutcome(p["key"], tuple(recorded)))
                draws += 1
            elif e["type"] == DECISION:
                decision = eng.decision_adapter.validate_python(p["decision"])
                state, _ = eng.apply(state, p["seat"], decision)
            else:
                continue
        except Exception as exc:
            report.add("replay", False, f"version {e['version']}: {exc}", at=e["version"])
            return
        positions.append((e["version"], state, draws))
        if conservation and not broken:
            problems = eng.conservation(state)
            if problems:
                broken = f"at version {e['version']}: {problems[0]}"
                first.setdefault("conservation", e["version"])
        sd = records.state_digest(seed, eng.state_adapter.dump_python(state, mode="json"))
        pd = records.public_digest(eng.view(state, None))
        if sd != p.get("state_digest") or pd != p.get("public_digest"):
            digests_ok = False
            first.setdefault("digest", e["version"])
            detail_digest = detail_digest or f"digest differs at version {e['version']}"
    report.add(
        "every draw re-derived from the seed", draws_ok, detail_draw or f"{draws} draws", first.get("draw")
    )
    report.add(
        "replay reproduces every digest",
        digests_ok,
        detail_digest or f"{len(positions)} positions",
        first.get("digest"),
    )
    if conservation:
        report.add("conservation laws hold at every position", not broken, broken, first.get("conservation"))
    finish = [e for e in events if e["type"] == FINISHED]
    if not finish or state is None:
        return  # an abandoned game has no standings to compare
    from ledger.engine import final_standings

    standings = [
        {"seat": s["seat"], "rank": s["rank"], "score": s["score"]}
        for s in final_standings(eng.standings(state), forfeited)
    ]
    recorded = [
        {"seat": s["seat"], "rank": s["rank"], "score": s["score"]}
        for s in finish[-1]["public"].get("standings", [])
    ]
    report.add("replay reproduces the standings", standings == recorded)
