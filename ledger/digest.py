"""Signed digests over the heads of all games, and proofs that a game's head is included.

A digest is the root of a Merkle tree (RFC 6962 hashing: leaves prefixed 0x00,
nodes 0x01; an odd node is promoted) whose leaves are, in game-id order, the
canonical JSON of ``{"game", "version", "head"}`` — each game's latest event hash — with
``"talk_version"`` and ``"talk_head"`` beside them once the game has table talk (its own
chain's latest event hash), so that the signed digest covers what was said too.
The digest document is signed with Ed25519; its public key travels with it and is
also served on its own, so that anyone can pin it. Given an export, the digest and
the game's inclusion proof, ``gameledger verify`` checks offline that the export's
event at the proof's version is the one the ledger had committed to.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ledger.canonical import canonical

DIGEST_FORMAT = "gameledger-digest/1"


def _h(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def leaf(
    game: str, version: int, head: str, talk_version: int | None = None, talk_head: str | None = None
) -> dict[str, Any]:
    """A game's leaf: its head, and its table talk's head when it has one (a game without talk
    keeps the leaf it always had)."""
    entry: dict[str, Any] = {"game": game, "version": version, "head": head}
    if talk_version is not None and talk_head is not None:
        entry |= {"talk_version": talk_version, "talk_head": talk_head}
    return entry


def leaf_hash(entry: dict[str, Any]) -> bytes:
    return _h(b"\x00" + canonical(entry))


def _level_up(level: list[bytes]) -> list[bytes]:
    out = []
    for i in range(0, len(level), 2):
        if i + 1 < len(level):
            out.append(_h(b"\x01" + level[i] + level[i + 1]))
        else:
            out.append(level[i])  # an odd node is promoted
    return out


def merkle_root(leaves: list[dict[str, Any]]) -> str:
    if not leaves:
        return _h(b"").hex()
    level = [leaf_hash(x) for x in leaves]
    while len(level) > 1:
        level = _level_up(level)
    return level[0].hex()


def inclusion_proof(leaves: list[dict[str, Any]], index: int) -> list[list[str]]:
    """The sibling hashes from the leaf to the root, each tagged with its side ("L" or "R")."""
    level = [leaf_hash(x) for x in leaves]
    path: list[list[str]] = []
    i = index
    while len(level) > 1:
        sibling = i ^ 1
        if sibling < len(level):
            path.append(["L" if sibling < i else "R", level[sibling].hex()])
        level = _level_up(level)
        i //= 2
    return path


def root_from_proof(entry: dict[str, Any], path: list[list[str]]) -> str:
    node = leaf_hash(entry)
    for side, sibling_hex in path:
        sibling = bytes.fromhex(sibling_hex)
        node = _h(b"\x01" + sibling + node) if side == "L" else _h(b"\x01" + node + sibling)
    return node.hex()


@dataclass(frozen=True)
class Signer:
    key: Ed25519PrivateKey

    @classmethod
    def from_seed(cls, seed_b64: str) -> Signer:
        raw = base64.b64decode(seed_b64)
        if len(raw) != 32:
            raise ValueError("an Ed25519 signing key is 32 bytes, base64-encoded")
        return cls(Ed25519PrivateKey.from_private_bytes(raw))

    @staticmethod
    def new_seed(entropy: bytes) -> str:
        return base64.b64encode(entropy[:32]).decode()

    @property
    def public_key(self) -> str:
        raw = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return base64.b64encode(raw).decode()

    @property
    def key_id(self) -> str:
        return hashlib.sha256(base64.b64decode(self.public_key)).hexdigest()[:16]

    def sign(self, body: dict[str, Any]) -> str:
        return base64.b64encode(self.key.sign(canonical(body))).decode()


def signed_body(digest: dict[str, Any]) -> dict[str, Any]:
    return {k: digest[k] for k in ("format", "issued_at", "position", "games", "root", "key_id")}


def make_digest(
    leaves: list[dict[str, Any]], signer: Signer, issued_at: str, position: int
) -> dict[str, Any]:
    leaves = sorted(leaves, key=lambda x: x["game"])
    body = {
        "format": DIGEST_FORMAT,
        "issued_at": issued_at,
        "position": position,
        "games": len(leaves),
        "root": merkle_root(leaves),
        "key_id": signer.key_id,
    }
    return {**body, "public_key": signer.public_key, "signature": signer.sign(body)}


def check_signature(digest: dict[str, Any], public_key: str | None = None) -> bool:
    key = public_key or digest.get("public_key", "")
    try:
        pub = Ed25519PublicKey.from_public_bytes(base64.b64decode(key))
        pub.verify(base64.b64decode(digest["signature"]), canonical(signed_body(digest)))
    except (InvalidSignature, ValueError, KeyError):
        return False
    return True


def proof_for(leaves: list[dict[str, Any]], game: str) -> dict[str, Any] | None:
    ordered = sorted(leaves, key=lambda x: x["game"])
    for i, entry in enumerate(ordered):
        if entry["game"] == game:
            return {"leaf": entry, "index": i, "path": inclusion_proof(ordered, i)}
    return None
