"""The Player aggregate: registered with a name and the hash of a bearer token; vacations and
notification settings are its events."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast
from uuid import UUID

from eventsourcing.domain import Aggregate


class Player(Aggregate):
    TOPIC = "gameledger.player"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.player.registered"
        class_version = 2
        name: str
        token_hash: str
        bot: bool  # v2: a program plays this player (simulations); league statistics can leave it out

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            state["bot"] = False  # every player registered before v2 was a person

    class VacationStarted(Aggregate.Event):
        """The player's clocks stop in every active game until ``until`` (or an early end)."""

        TOPIC = "gameledger.player.vacation_started"
        start: str
        until: str
        days: int

        def apply(self, aggregate: Any) -> None:
            aggregate.vacations.append([self.start, self.until])

    class VacationEnded(Aggregate.Event):
        TOPIC = "gameledger.player.vacation_ended"
        at: str

        def apply(self, aggregate: Any) -> None:
            aggregate.vacations[-1][1] = self.at

    class NotificationsChanged(Aggregate.Event):
        """Which notifications the player gets, and the webhook they go to (the secret signs them)."""

        TOPIC = "gameledger.player.notifications_changed"
        kinds: list[str]
        webhook_url: str | None
        webhook_secret: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.notify_kinds = list(self.kinds)
            aggregate.webhook_url = self.webhook_url
            aggregate.webhook_secret = self.webhook_secret

    def __init__(self, name: str, token_hash: str, bot: bool) -> None:
        self.name = name
        self.token_hash = token_hash
        self.bot = bot
        self.vacations: list[list[str]] = []  # [start, until] ISO times
        self.notify_kinds: list[str] | None = None  # None: the defaults
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        # the account (ledger/accounts.py: its events set these)
        self.email: str | None = None  # confirmed
        self.email_confirmed_at: str | None = None
        self.password_hash: str | None = None  # argon2id
        self.password_set_at: str | None = None
        self.tokens: dict[str, dict[str, str]] = {}  # named tokens: id -> name, SHA-256, created_at
        self.first_token_revoked = False

    def on_vacation(self, now: datetime) -> tuple[datetime, datetime] | None:
        if self.vacations:
            start, until = (datetime.fromisoformat(x) for x in self.vacations[-1])
            if start <= now < until:
                return start, until
        return None

    def vacation_days_used(self, year: int) -> int:
        used = 0.0
        for start, until in self.vacations:
            s, u = datetime.fromisoformat(start), datetime.fromisoformat(until)
            if s.year == year:
                used += (u - s).total_seconds() / 86400
        return int(-(-used // 1))  # whole days, rounded up

    def start_vacation(self, start: datetime, until: datetime, days: int) -> None:
        self.trigger_event(
            self.VacationStarted, start=start.isoformat(), until=until.isoformat(), days=days, timestamp=start
        )

    def end_vacation(self, at: datetime) -> None:
        self.trigger_event(self.VacationEnded, at=at.isoformat(), timestamp=at)

    def set_notifications(
        self, kinds: list[str], webhook_url: str | None, webhook_secret: str | None, at: datetime
    ) -> None:
        self.trigger_event(
            self.NotificationsChanged,
            kinds=kinds,
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
            timestamp=at,
        )

    @classmethod
    def register(
        cls, player_id: UUID, name: str, token_hash: str, timestamp: datetime, *, bot: bool = False
    ) -> Player:
        return cast(
            Player,
            cls._create(
                cls.Created, id=player_id, name=name, token_hash=token_hash, bot=bot, timestamp=timestamp
            ),
        )
