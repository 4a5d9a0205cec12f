"""A clock a test moves by hand, for the services that read the time through a ``now`` callable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now
