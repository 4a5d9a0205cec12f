"""The ledger application: thin use cases over the Game, Player and League aggregates
(``ledger``; its league use cases in ``leagues``, taking a decision back in ``undo``), on
eventsourcing's storage with the cache of ``repository``."""

from ledger.application.ledger import NOTIFICATION_KINDS, DecisionResult, Ledger
from ledger.domain import ADMIN

__all__ = ["ADMIN", "NOTIFICATION_KINDS", "DecisionResult", "Ledger"]
