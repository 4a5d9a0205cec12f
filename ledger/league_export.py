"""A league's record (``GET /api/v1/leagues/{id}/export``): its events, its seasons' events, each
game's public export, the figures it claims (standings, rating inputs) and a signed digest.

The document (``gameledger-league/1``)::

    {"format", "league": {id, name, title, organiser},
     "league_events": [record], "seasons": [{"number", "events": [record]}],
     "games": {game id: [export line, ...]},          # each game's public export, parsed lines
     "claims": {"standings": {season number: [row]}, "rating_inputs": [{"game", "places"}]},
     "digest": {format, league, issued_at, games: [{game, version, head}], records, key_id,
                public_key, signature}}

An event record is ``{"type", "version", "timestamp", "data"}``; a season's seed is left out of
its ``created`` record (its commitment stays) and is given by its ``ended`` record. ``records``
is the SHA-256 of the canonical JSON of everything but the digest; the digest's body (all but
``public_key`` and ``signature``) is signed with the ledger's Ed25519 key, as game digests are.
``rating_inputs``: every finished game of the league, in the league's order, its players with
their places (1 = first), as the ratings take them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ledger.canonical import canonical, sha256_hex
from ledger.export import game_export
from ledger.records import timestamp_text

if TYPE_CHECKING:
    from ledger.application import Ledger
    from ledger.digest import Signer

LEAGUE_FORMAT = "gameledger-league/1"
LEAGUE_DIGEST_FORMAT = "gameledger-league-digest/1"
MAX_EXPORT_GAMES = 20_000
SECRET_FIELDS = {"gameledger.season.created": ("seed",)}
SIGNED = ("format", "league", "issued_at", "games", "records", "key_id")


def event_record(event: Any) -> dict[str, Any]:
    topic = type(event).TOPIC
    hidden = SECRET_FIELDS.get(topic, ())
    data = {
        k: v
        for k, v in vars(event).items()
        if k not in ("originator_id", "originator_version", "timestamp", *hidden) and not k.startswith("_")
    }
    return {
        "type": topic,
        "version": event.originator_version,
        "timestamp": timestamp_text(event.timestamp),
        "data": json.loads(json.dumps(data, default=str)),
    }


def rating_inputs(games: dict[str, list[dict[str, Any]]], order: list[str]) -> list[dict[str, Any]]:
    """Every finished game's players and places, in the league's order."""
    out = []
    for gid in order:
        lines = games.get(gid)
        if not lines:
            continue
        finished = [e for e in lines[1:] if e.get("type") == "gameledger.game.finished"]
        if not finished:
            continue
        standings = finished[-1]["public"]["standings"]
        out.append(
            {
                "game": gid,
                "places": [[s["player"], s["rank"]] for s in sorted(standings, key=lambda s: s["seat"])],
            }
        )
    return out


def records_hash(doc: dict[str, Any]) -> str:
    return sha256_hex(canonical({k: v for k, v in doc.items() if k != "digest"}))


def league_record(ledger: Ledger, league_ref: Any, signer: Signer, issued_at: str) -> dict[str, Any]:
    league = ledger.get_league(league_ref)
    seasons = ledger.league_seasons(league.id)
    order: list[str] = list(league.games)
    for season in seasons:
        for rnd in season.rounds:
            for table in rnd["tables"]:
                if table["game"] not in order:
                    order.append(table["game"])
    order = order[:MAX_EXPORT_GAMES]
    games: dict[str, list[dict[str, Any]]] = {}
    heads = []
    for gid in order:
        game = ledger.get_game(gid)
        lines = [json.loads(line) for line in game_export(ledger, game, [], talk=False)]
        games[gid] = lines
        last = lines[-1] if len(lines) > 1 else {}
        heads.append({"game": gid, "version": last.get("version", 0), "head": last.get("hash", "")})
    doc: dict[str, Any] = {
        "format": LEAGUE_FORMAT,
        "league": {
            "id": str(league.id),
            "name": league.name,
            "title": league.title,
            "organiser": league.created_by,
        },
        "league_events": [event_record(e) for e in ledger.events.get(league.id)],
        "seasons": [
            {"number": s.number, "events": [event_record(e) for e in ledger.events.get(s.id)]}
            for s in seasons
        ],
        "games": games,
        "claims": {
            "standings": {str(s.number): ledger.season_standings(s) for s in seasons},
            "rating_inputs": rating_inputs(games, order),
        },
    }
    body = {
        "format": LEAGUE_DIGEST_FORMAT,
        "league": str(league.id),
        "issued_at": issued_at,
        "games": sorted(heads, key=lambda h: h["game"]),
        "records": records_hash(doc),
        "key_id": signer.key_id,
    }
    doc["digest"] = {**body, "public_key": signer.public_key, "signature": signer.sign(body)}
    return doc
