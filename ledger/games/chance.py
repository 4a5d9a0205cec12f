"""What a title's sampling module draws with: a seeded generator passed in by its caller.

Engines never touch a global random generator; the strong bot's sampling (re-dealing what a
seat cannot see) takes a ``random.Random(seed)`` made by the bot, typed here by what it uses.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Chance(Protocol):
    def shuffle(self, x: MutableSequence[Any], /) -> None: ...
    def sample(self, population: Sequence[T], k: int, /) -> list[T]: ...
    def randrange(self, stop: int, /) -> int: ...
    def choice(self, seq: Sequence[T], /) -> T: ...
