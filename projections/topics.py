"""The topics of the events the projections follow, named once for all of them.

A projection lists the topics it reads (``topics = (CREATED, STARTED, ...)``) and
dispatches on them (``if e.topic == STARTED``); the names are the domain's topics.
"""

from __future__ import annotations

from ledger.domain import Game, Player
from ledger.domain.talk import Conversation

CREATED = Game.Created.TOPIC
SEAT_CLAIMED = Game.SeatClaimed.TOPIC
INVITATION_ISSUED = Game.InvitationIssued.TOPIC
STARTED = Game.Started.TOPIC
DRAW = Game.DrawRecorded.TOPIC
DECISION = Game.DecisionRecorded.TOPIC
TIMED_OUT = Game.TimedOut.TOPIC
PLAYER_RETURNED = Game.PlayerReturned.TOPIC
UNDO_REQUESTED = Game.UndoRequested.TOPIC
UNDONE = Game.DecisionUndone.TOPIC
DISPUTE_OPENED = Game.DisputeOpened.TOPIC
DISPUTE_RESOLVED = Game.DisputeResolved.TOPIC
FINISHED = Game.Finished.TOPIC
ABANDONED = Game.Abandoned.TOPIC
ANNULLED = Game.Annulled.TOPIC
ENDED = (FINISHED, ABANDONED, ANNULLED)  # the events that end a game
PLAYER_CREATED = Player.Created.TOPIC
TALK_CREATED = Conversation.Created.TOPIC
TALK_TOPICS = (
    TALK_CREATED,
    Conversation.MessagePosted.TOPIC,
    Conversation.MessageHidden.TOPIC,
    Conversation.SpectatorsChanged.TOPIC,
)
