"""The game record's envelope: hash chain, salted commitments, redaction.

Every game event carries

- ``public``: what anyone may read once it is served (decision, public effects,
  digests, whose turn);
- ``private``: parts by audience — ``"server"`` (no player: deck order, request
  metadata) or ``"seat:N"`` (that seat only) — stored in full, served only to
  their audience before the game ends;
- ``commitments``: for each private part, ``sha256(salt || canonical(part))``
  where ``salt = HMAC(seed, "salt:<version>:<audience>")``;
- ``prev_hash`` and ``hash``: ``hash = sha256(canonical(body))`` over the
  public part, the commitments, the previous hash, type, version and time.

So a redacted copy (private parts removed) still verifies its hash chain; a
seat given its own parts and salts can prove them; once the seed is revealed
at the end, anyone can check every commitment, draw and digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ledger.canonical import canonical, derive_key, hmac_hex, sha256_hex

if TYPE_CHECKING:
    from ledger.engine import Effect

GENESIS = "0" * 64
SERVER = "server"


def seat_audience(seat: int) -> str:
    return f"seat:{seat}"


def split_effects(effects: tuple[Effect, ...]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Public effects, and private ones grouped by audience (``server``: nobody yet)."""
    public: list[dict[str, Any]] = []
    private: dict[str, Any] = {}
    for e in effects:
        payload = e.payload()
        if e.visible_to is None:
            public.append(payload)
        elif not e.visible_to:
            private.setdefault(SERVER, {}).setdefault("effects", []).append(payload)
        else:
            for seat in e.visible_to:
                private.setdefault(seat_audience(seat), {}).setdefault("effects", []).append(payload)
    return public, private


def timestamp_text(ts: datetime) -> str:
    return ts.isoformat(timespec="microseconds")


def salt(seed: bytes, version: int, audience: str) -> bytes:
    return derive_key(seed, f"salt:{version}:{audience}")


def commitment(salt_bytes: bytes, part: Any) -> str:
    return sha256_hex(salt_bytes + canonical(part))


def state_digest(seed: bytes, state_json: Any) -> str:
    """A digest of the full state that reveals nothing until the seed is public."""
    return hmac_hex(derive_key(seed, "state-digest"), canonical(state_json))


def public_digest(public_view: Any) -> str:
    return sha256_hex(canonical(public_view))


@dataclass(frozen=True)
class Header:
    """Where an event stands in its chain: its game, version, type (topic), time (as text)
    and the hash of the event before it. With the public part and the commitments it is the
    body that the event's hash covers, the same for game events, table talk and ``verify``."""

    game: str
    version: int
    kind: str
    timestamp: str
    prev_hash: str

    def body(self, public: dict[str, Any], commitments: dict[str, str]) -> dict[str, Any]:
        return {
            "game": self.game,
            "version": self.version,
            "type": self.kind,
            "timestamp": self.timestamp,
            "public": public,
            "commitments": commitments,
            "prev_hash": self.prev_hash,
        }

    def hash(self, public: dict[str, Any], commitments: dict[str, str]) -> str:
        return event_hash(self.body(public, commitments))


def event_hash(body: dict[str, Any]) -> str:
    return sha256_hex(canonical(body))


@dataclass(frozen=True)
class Sealed:
    """An event's envelope, ready to be stored."""

    public: dict[str, Any]
    private: dict[str, Any]
    commitments: dict[str, str]
    prev_hash: str
    hash: str


def seal(seed: bytes, header: Header, public: dict[str, Any], private: dict[str, Any]) -> Sealed:
    private = {aud: part for aud, part in private.items() if part}
    commitments = {
        aud: commitment(salt(seed, header.version, aud), part) for aud, part in sorted(private.items())
    }
    return Sealed(
        public=public,
        private=private,
        commitments=commitments,
        prev_hash=header.prev_hash,
        hash=header.hash(public, commitments),
    )
