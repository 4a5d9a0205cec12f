"""Offline verification of a league's record (``gameledger verify-league FILE``).

From the record alone (``ledger.league_export``), with the ledger's public key (the record's, or
one given), it checks and names what fails and where:

1. the digest: its Ed25519 signature, that it covers these records (the SHA-256 of everything
   else), and that every game it lists is in the record with the head it signed;
2. every game's export, as ``gameledger verify`` does (hash chain, commitments, and once the game
   is over its seed, draws, replay and final standings);
3. every season: its seed against the commitment published at its creation (once it ended);
   every round's ranking recomputed from the earlier rounds' results (the standings, then the
   lot from the seed); every round's tables and start positions recomputed by the seating
   procedure (``ledger.seating``); each table's game seed derived from the season's seed and
   matching the game's commitment; each game's seats as the seating put them; every round's
   results as the games' records say; the standings (points and every tie-break) recomputed;
4. the rating inputs: every finished game's players and places, from the games' records.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ledger.league_export import LEAGUE_DIGEST_FORMAT, LEAGUE_FORMAT, SIGNED, rating_inputs, records_hash
from ledger.season_standings import (
    Result,
    ranking_for_round,
    result_from_standings,
    season_history,
    standings,
)
from ledger.seating import SeatingError, first_turn_order, game_seed, seat_round, seats_from
from ledger.verify import Report, verify_export

CREATED = "gameledger.season.created"
ENROLLED = "gameledger.season.enrolled"
SEATED = "gameledger.season.round_seated"
CLOSED = "gameledger.season.round_closed"
ENDED = "gameledger.season.ended"


def verify_league(doc: Any, public_key: str | None = None) -> Report:
    report = Report()
    try:
        _verify(report, doc, public_key)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        report.add("format", False, f"malformed league record ({type(exc).__name__}: {exc})")
    return report


def _verify(report: Report, doc: dict[str, Any], public_key: str | None) -> None:
    if not report.add("format", doc.get("format") == LEAGUE_FORMAT, str(doc.get("format"))):
        return
    games: dict[str, list[dict[str, Any]]] = doc["games"]
    _check_digest(report, doc, public_key)
    for gid, lines in games.items():
        _check_game(report, gid, lines)
    for season in doc["seasons"]:
        _check_season(report, season, games, doc["claims"]["standings"].get(str(season["number"])))
    order = [i["game"] for i in doc["claims"]["rating_inputs"]]
    recomputed = rating_inputs(games, order)
    claimed = doc["claims"]["rating_inputs"]
    wrong = [c["game"] for c, r in zip(claimed, recomputed, strict=False) if c != r]
    report.add(
        "rating inputs recomputed from the games' records",
        not wrong and len(claimed) == len(recomputed),
        f"{len(claimed)} games" if not wrong else f"differ for game {wrong[0]}",
    )


def _check_digest(report: Report, doc: dict[str, Any], public_key: str | None) -> None:
    digest = doc.get("digest") or {}
    body_ok = digest.get("format") == LEAGUE_DIGEST_FORMAT and all(k in digest for k in SIGNED)
    report.add("league digest signed by the ledger's key", body_ok and _signature(digest, public_key))
    covers = digest.get("records") == records_hash(doc)
    report.add(
        "league digest covers this record",
        covers,
        "" if covers else "the record differs from what was signed",
    )
    for head in digest.get("games", []):
        lines = doc["games"].get(head["game"])
        if lines is None:
            report.add(f"game {head['game']}", False, "in the signed digest but missing from the record")
            continue
        last = lines[-1] if len(lines) > 1 else {}
        if (last.get("version"), last.get("hash")) != (head["version"], head["head"]):
            report.add(
                f"game {head['game']}",
                False,
                f"its last event (version {last.get('version')}) is not the head the digest signed "
                f"(version {head['version']})",
            )


def _signature(digest: dict[str, Any], public_key: str | None) -> bool:
    import base64

    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from ledger.canonical import canonical

    key = public_key or digest.get("public_key", "")
    try:
        pub = Ed25519PublicKey.from_public_bytes(base64.b64decode(key))
        pub.verify(base64.b64decode(digest["signature"]), canonical({k: digest[k] for k in SIGNED}))
    except (InvalidSignature, ValueError, KeyError):
        return False
    return True


def _check_game(report: Report, gid: str, lines: list[dict[str, Any]]) -> None:
    import json

    sub = verify_export(json.dumps(line, sort_keys=True) for line in lines)
    failed = [(name, detail) for name, ok, detail in sub.checks if not ok]
    if not failed:
        report.add(f"game {gid}", True, "its export verifies")
        return
    for name, detail in failed:
        at = sub.at.get(name)
        where = f" at event {at}" if at is not None else ""
        report.add(f"game {gid}", False, f"{name} fails{where}{': ' + detail if detail else ''}")


def _finished_standings(lines: list[dict[str, Any]] | None) -> tuple[bool, list[dict[str, Any]] | None]:
    """(over, standings): standings when it finished, None when abandoned or annulled."""
    if not lines:
        return False, None
    types = [e.get("type") for e in lines[1:]]
    for e in reversed(lines[1:]):
        if e.get("type") == "gameledger.game.finished":
            return True, e["public"]["standings"]
    over = any(t in ("gameledger.game.abandoned", "gameledger.game.annulled") for t in types)
    return over, None


def _check_season(
    report: Report, season: dict[str, Any], games: dict[str, list[dict[str, Any]]], claimed: Any
) -> None:
    n = season["number"]
    events = season["events"]
    created = next(e["data"] for e in events if e["type"] == CREATED)
    spec, title = created["spec"], created["title"]
    ended = [e["data"] for e in events if e["type"] == ENDED]
    seed: bytes | None = None
    if ended:
        seed = bytes.fromhex(ended[-1]["seed"])
        report.add(
            f"season {n}: seed",
            hashlib.sha256(seed).hexdigest() == created["seed_commitment"],
            "matches the commitment published at its creation",
        )
    else:
        report.warnings.append(f"season {n}: running, its seed is secret: seatings are checked once it ends")
    players = [e["data"]["player_id"] for e in events if e["type"] == ENROLLED]
    results: list[Result] = []
    seated: list[dict[str, Any]] = []
    for e in events:
        if e["type"] == SEATED:
            rnd = e["data"]
            if seed is not None:
                _check_seating(report, n, rnd, players, results, seated, spec, title, seed, games)
            seated.append(rnd)
        elif e["type"] == CLOSED:
            data = e["data"]
            rnd = seated[data["round"] - 1]
            for i, table in enumerate(rnd["tables"]):
                where = f"season {n} round {data['round']} table {i + 1} (game {table['game']})"
                lines = games.get(table["game"])
                if lines is None:
                    if seed is None:  # else the seating's check has said so
                        report.add(where, False, "the game is missing from the record")
                    continue
                over, final = _finished_standings(lines)
                game_seats = lines[1]["public"]["seats"] if len(lines) > 1 else None
                if game_seats != table["seats"]:
                    report.add(
                        where, False, f"the game's seats {game_seats} are not the seating's {table['seats']}"
                    )
                computed = result_from_standings(
                    title, data["round"], i, table["game"], table["seats"], final
                )
                recorded = next((r for r in data["results"] if r["game"] == table["game"]), None)
                if any(e.get("type") == "gameledger.game.annulled" for e in lines[1:]):
                    report.warnings.append(
                        f"{where}: annulled after its round closed; the season counted {_said(recorded)}"
                    )
                    continue
                if not over or recorded != computed.as_dict():
                    report.add(
                        where,
                        False,
                        f"the round's recorded result {_said(recorded)} is not the game's {_said(computed.as_dict())}",
                    )
            results.extend(Result.from_dict(r) for r in data["results"])
    table = standings(players, results, spec["points"], spec["tie_breaks"])
    report.add(
        f"season {n}: standings recomputed (points and tie-breaks)",
        claimed == table,
        "" if claimed == table else _first_difference(claimed or [], table),
    )
    if ended:
        same = ended[-1]["standings"] == table
        report.add(
            f"season {n}: final standings as recorded at its end",
            same,
            "" if same else _first_difference(ended[-1]["standings"], table),
        )


def _said(result: dict[str, Any] | None) -> str:
    if result is None:
        return "(none)"
    if result.get("void"):
        return f"void (seats {result['seats']})"
    return f"ranks {result['ranks']} values {result['values']} (seats {result['seats']})"


def _first_difference(claimed: list[dict[str, Any]], table: list[dict[str, Any]]) -> str:
    for i, (a, b) in enumerate(zip(claimed, table, strict=False)):
        if a != b:
            return f"place {i + 1}: published {a}, recomputed {b}"
    return f"{len(claimed)} rows published, {len(table)} recomputed"


def _check_seating(
    report: Report,
    n: int,
    rnd: dict[str, Any],
    players: list[str],
    results: list[Result],
    seated: list[dict[str, Any]],
    spec: dict[str, Any],
    title: str,
    seed: bytes,
    games: dict[str, list[dict[str, Any]]],
) -> None:
    r = rnd["round"]
    where = f"season {n} round {r}"
    ranking = ranking_for_round(players, results, spec, seed, r)
    if ranking != rnd["ranking"]:
        at = next((i for i, (a, b) in enumerate(zip(ranking, rnd["ranking"], strict=False)) if a != b), 0)
        report.add(
            f"{where}: ranking",
            False,
            f"place {at + 1}: recorded {rnd['ranking'][at : at + 1]}, recomputed {ranking[at : at + 1]}",
        )
        return
    met, positions = season_history(seated, spec["table_max"])
    try:
        turns = seat_round(ranking, spec["table_min"], spec["table_max"], met, positions)
    except SeatingError as exc:
        report.add(f"{where}: seating", False, str(exc))
        return
    if len(turns) != len(rnd["tables"]):
        report.add(f"{where}: seating", False, f"{len(rnd['tables'])} tables recorded, {len(turns)} computed")
        return
    ok = True
    for i, (turn, table) in enumerate(zip(turns, rnd["tables"], strict=True)):
        tw = f"{where} table {i + 1} (game {table['game']})"
        gseed = game_seed(seed, r, i)
        order = list(first_turn_order(title, spec["options"], len(turn), gseed))
        seats = list(seats_from(turn, order))
        if list(turn) != table["turn"] or order != table["order"] or seats != table["seats"]:
            diff = next(
                (s for s, (a, b) in enumerate(zip(seats, table["seats"], strict=False)) if a != b), None
            )
            detail = (
                f"seat {diff}: recorded {table['seats'][diff]}, the procedure gives {seats[diff]}"
                if diff is not None
                else f"recorded {table['turn']}, the procedure gives {list(turn)}"
            )
            ok = report.add(tw, False, f"seating differs from the procedure: {detail}") and ok
        lines = games.get(table["game"])
        if lines is None:
            ok = report.add(tw, False, "the game is missing from the record") and ok
            continue
        commitment = lines[1]["public"].get("seed_commitment") if len(lines) > 1 else None
        if commitment != hashlib.sha256(gseed).hexdigest():
            ok = report.add(tw, False, "the game's seed is not the one the season's seed gives") and ok
    if ok:
        report.add(f"{where}: seating recomputed", True, f"{len(turns)} tables")
