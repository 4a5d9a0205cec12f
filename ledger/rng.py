"""Deterministic random draws from a per-game secret seed.

Draw number ``counter`` uses the HMAC-SHA256 stream
``HMAC(seed, "gameledger/draw" || counter || block)`` for blocks 0, 1, 2 ...;
integers are taken from it by rejection sampling (so no modulo bias), and a
shuffle is a Fisher-Yates walk from the last position down. Publishing
``sha256(seed)`` when a game is created commits to every draw; revealing the
seed at the end lets anyone re-derive them (``gameledger verify``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ledger.engine import DrawRequest

T = TypeVar("T")


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


class DrawStream:
    """The random stream of one draw: uniform integers, nothing else."""

    def __init__(self, seed: bytes, counter: int) -> None:
        self._seed = seed
        self._counter = counter
        self._block = 0
        self._buffer = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            msg = b"gameledger/draw:%d:%d" % (self._counter, self._block)
            self._buffer += hmac.new(self._seed, msg, hashlib.sha256).digest()
            self._block += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""
        if n <= 0:
            raise ValueError("n must be positive")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        nbytes = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self._bytes(nbytes), "big") & mask
            if value < n:
                return value


def permutation(seed: bytes, counter: int, size: int) -> tuple[int, ...]:
    """A uniform permutation of ``range(size)`` for draw number ``counter``."""
    stream = DrawStream(seed, counter)
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def shuffled(seed: bytes, counter: int, items: Sequence[T]) -> tuple[T, ...]:
    return tuple(items[i] for i in permutation(seed, counter, len(items)))


def pick(seed: bytes, counter: int, n: int) -> int:
    return DrawStream(seed, counter).below(n)


def derive_draw(seed: bytes, counter: int, request: DrawRequest) -> tuple[int, ...]:
    """The outcome of draw number ``counter``: the ledger records it, ``verify`` re-runs it."""
    n = len(request.items)
    if request.kind == "pick":
        return (pick(seed, counter, n),)
    return permutation(seed, counter, n)
