"""Time controls: per-seat clocks computed from the game's own event timestamps.

A clock is a bank of seconds per seat (Fischer-style with a cap): it runs while
the game awaits that seat's decision, gains the increment after each of the
seat's decisions (never above the cap), and stops while the seat's player is on
vacation (``ClockPaused`` events in the game's stream). When a bank reaches
zero the scheduler records a ``TimedOut`` event with the consequence chosen at
creation: the title's default decision for the seat, a skip (its passing
decision where it has one), a forfeit (the seat plays its default decision
from then on and ranks last), or the stand-in (``bot``: the strong bot plays the
seat, from its view only, until the player returns).

Everything here is pure: the caller passes the times.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ledger.errors import InvalidRequestError

HOUR = 3600
PRESETS: dict[str, tuple[int, int, int]] = {  # initial, increment, cap in hours
    "24h+4h": (24, 4, 72),
    "72h+12h": (72, 12, 120),
}
Consequence = Literal["default", "skip", "forfeit", "bot"]


class TimeControl(BaseModel):
    """What a game creator chooses; ``resolved()`` is what the game records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: Literal["none", "24h+4h", "72h+12h", "custom"] = Field(
        "none", description="none, 24 h + 4 h per move capped at 72 h, 72 h + 12 h capped at 120 h, or custom"
    )
    initial_hours: float | None = Field(
        None, strict=True, gt=0, le=24 * 60, description="custom: the starting bank"
    )
    increment_hours: float | None = Field(
        None, strict=True, ge=0, le=24 * 30, description="custom: added after each move"
    )
    cap_hours: float | None = Field(
        None, strict=True, gt=0, le=24 * 90, description="custom: the bank's maximum"
    )
    on_expiry: Consequence = Field(
        "default",
        description="default decision for the seat, skip (pass where possible), forfeit, or bot: the "
        "strong bot plays the seat until its player returns",
    )

    @model_validator(mode="after")
    def _custom_needs_numbers(self) -> TimeControl:
        if self.preset == "custom":
            if None in (self.initial_hours, self.increment_hours, self.cap_hours):
                raise ValueError("a custom time control needs initial_hours, increment_hours and cap_hours")
            assert self.initial_hours is not None and self.cap_hours is not None
            if self.initial_hours > self.cap_hours:
                raise ValueError("initial_hours cannot exceed cap_hours")
        return self

    def resolved(self) -> dict[str, Any]:
        if self.preset == "none":
            return {"kind": "none"}
        if self.preset == "custom":
            hours = (self.initial_hours, self.increment_hours, self.cap_hours)
        else:
            hours = PRESETS[self.preset]
        initial, increment, cap = (round(float(h or 0) * HOUR) for h in hours)
        return {
            "kind": "clock",
            "preset": self.preset,
            "initial": initial,
            "increment": increment,
            "cap": cap,
            "on_expiry": self.on_expiry,
        }


def parse_time_control(raw: dict[str, Any] | None) -> dict[str, Any]:
    try:
        return TimeControl.model_validate(raw or {}).resolved()
    except ValueError as exc:
        raise InvalidRequestError(
            f"Invalid time control: {exc}", code="request/invalid_time_control"
        ) from None


def _ts(value: datetime | str) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


@dataclass
class Clocks:
    """The clock state of one game, advanced event by event."""

    control: dict[str, Any]
    bank: list[float] = field(default_factory=list)  # seconds left per seat at ``since``
    since: datetime | None = None  # time of the last event that moved the clocks
    paused: dict[int, tuple[str, str]] = field(default_factory=dict)  # seat -> (from, until) ISO times

    @property
    def timed(self) -> bool:
        return self.control.get("kind") == "clock"

    def start(self, seats: int, at: datetime) -> None:
        if self.timed:
            self.bank = [float(self.control["initial"])] * seats
            self.since = at

    def charge(self, seat: int, t0: datetime, t1: datetime) -> float:
        """Seconds of [t0, t1] that count against a seat: all of it, less a vacation."""
        total = max(0.0, (t1 - t0).total_seconds())
        pause = self.paused.get(seat)
        if pause:
            p0, p1 = _ts(pause[0]), _ts(pause[1])
            overlap = (min(t1, p1) - max(t0, p0)).total_seconds()
            total -= max(0.0, overlap)
        return total

    def advance(self, running: list[int], at: datetime, exempt: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        """Time passes to ``at``: the awaited seats' banks run down."""
        if not self.timed or self.since is None:
            return
        for seat in running:
            if seat not in exempt:
                self.bank[seat] -= self.charge(seat, self.since, at)
        self.since = at

    def moved(self, seat: int, *, forced: bool = False) -> None:
        if not self.timed:
            return
        inc, cap = float(self.control["increment"]), float(self.control["cap"])
        if forced:  # after a timeout: one move's worth
            self.bank[seat] = min(cap, inc)
        else:
            self.bank[seat] = min(cap, self.bank[seat] + inc)

    def remaining(self, seat: int, running: list[int], now: datetime) -> float | None:
        if not self.timed or self.since is None or not self.bank:
            return None
        left = self.bank[seat]
        if seat in running:
            left -= self.charge(seat, self.since, now)
        return left

    def deadline(self, seat: int, running: list[int], now: datetime) -> datetime | None:
        """When the seat's bank would reach zero if nobody moves (vacation included)."""
        left = self.remaining(seat, running, now)
        if left is None or seat not in running:
            return None
        start = now
        pause = self.paused.get(seat)
        if pause and _ts(pause[0]) <= now < _ts(pause[1]):
            start = _ts(pause[1])
        return start + timedelta(seconds=max(0.0, left))

    def to_dict(self) -> dict[str, Any]:
        return {
            "control": self.control,
            "bank": list(self.bank),
            "since": self.since.isoformat() if self.since else None,
            "paused": {str(k): list(v) for k, v in self.paused.items()},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clocks:
        return cls(
            control=d["control"],
            bank=list(d["bank"]),
            since=_ts(d["since"]) if d.get("since") else None,
            paused={int(k): (v[0], v[1]) for k, v in d.get("paused", {}).items()},
        )
