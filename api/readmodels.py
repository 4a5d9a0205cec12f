"""The read models the service runs: each projection by name with its view, and the making
of their tables (with the stores beside them: digests, accounts, the mail outbox), which the
schema migrations and the service both need."""

from __future__ import annotations

from typing import Any

from api.accounts import AccountStore
from api.channels import ChannelStore
from api.idempotency import IdempotencyStore
from api.mail import MailOutbox
from ledger.storage import Database
from projections.base import BatchProjection, SqlView, build_view, views_datastore
from projections.digests import DigestsView
from projections.disputes import DisputeQueue, DisputeQueueView
from projections.game_index import GameIndex, GameIndexView
from projections.league_stats import LeagueStats, LeagueStatsView
from projections.notifications import Notifications, NotificationsView
from projections.pace import PlayerPace, PlayerPaceView
from projections.scoreboard import Scoreboard, ScoreboardView
from projections.share_values import ShareValueHistory, ShareValueView

PROJECTIONS: dict[str, tuple[type[BatchProjection[Any]], type[SqlView]]] = {
    "gameindex": (GameIndex, GameIndexView),
    "scoreboard": (Scoreboard, ScoreboardView),
    "sharevalues": (ShareValueHistory, ShareValueView),
    "leaguestats": (LeagueStats, LeagueStatsView),
    "notifications": (Notifications, NotificationsView),
    "pace": (PlayerPace, PlayerPaceView),
    "disputes": (DisputeQueue, DisputeQueueView),
}

STORES: tuple[type[SqlView], ...] = (DigestsView, AccountStore, MailOutbox, IdempotencyStore, ChannelStore)
"""Tables beside the read models that no rebuild touches: digests, accounts, the mail outbox,
the answers kept for Idempotency-Keys, the notification channels."""


def init_views(db: Database) -> None:
    """Every read model's and store's tables, if missing (idempotent DDL). On PostgreSQL over
    one small pool for them all: a pool each opened and closed 12 pools of connections at every
    start (0.2 s of a server's start, paid again by every test that starts the service)."""
    shared = views_datastore(db)
    try:
        for view_class in (*(view for _, view in PROJECTIONS.values()), *STORES):
            view = build_view(view_class, db, create_table=True, datastore=shared)
            if shared is None:
                view.datastore.close()  # SQLite: a file (and a datastore) a view
    finally:
        if shared is not None:
            shared.close()
