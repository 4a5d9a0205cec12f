"""The running service's parts: settings, the ledger and its read models."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from api.settings import Settings
from api.storage import build_ledger, init_db
from ledger.application import Ledger
from ledger.storage import Database, parse_database_url
from projections.base import Catchup, build_view
from projections.game_index import GameIndex, GameIndexView

VIEWS = (GameIndexView,)


def init_views(db: Database) -> None:
    for view_class in VIEWS:
        build_view(view_class, db, create_table=True).datastore.close()


def initialise(settings: Settings) -> Database:
    db = parse_database_url(settings.effective_database_url, pool_size=settings.pool_size)
    init_db(db, [init_views])
    return db


@dataclass
class Services:
    settings: Settings
    db: Database
    ledger: Ledger
    game_index: GameIndex
    catchups: list[Catchup] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, settings: Settings) -> Services:
        if settings.init_db:
            db = initialise(settings)
        else:
            db = parse_database_url(settings.effective_database_url, pool_size=settings.pool_size)
        ledger = build_ledger(db)
        game_index = GameIndex(build_view(GameIndexView, db, create_table=db.is_memory))
        services = cls(settings=settings, db=db, ledger=ledger, game_index=game_index)
        services.catchups = [Catchup(ledger, game_index)]
        return services

    def refresh(self) -> None:
        """Bring the read models up to date (read-your-writes for the caller)."""
        for catchup in self.catchups:
            catchup.run()

    def close(self) -> None:
        self.ledger.close()
        self.game_index.view.datastore.close()
