"""Canonical JSON and the hashes built on it.

Every hash and digest in the ledger is computed over the same canonical form:
UTF-8 JSON with sorted keys and no insignificant white space. Anyone can
recompute it with a few lines in any language.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import orjson


def canonical(obj: Any) -> bytes:
    """``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` in UTF-8;
    orjson writes the same bytes for the ledger's JSON (string keys, ints, strings), about
    ten times faster; anything it refuses goes through the standard library."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hmac_hex(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def derive_key(seed: bytes, label: str) -> bytes:
    """A sub-key of the game seed for one purpose (salts, digests, draws)."""
    return hmac.new(seed, b"gameledger/" + label.encode(), hashlib.sha256).digest()
