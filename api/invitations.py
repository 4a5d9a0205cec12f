"""Invitations on the server: who is invited (a player by id or name, an address, a link to
share), the invitation links, the mails, and the creator's hourly budget.

The ledger records each invitation as an event of its game (``ledger/application/invitations.py``)
naming the invited player, or only the id of its link. A link is ``glk_<id>_<secret>`` (the
accounts store's one-time links): the store keeps its secret's SHA-256, the game it is for and,
for a mailed one, the address, so that an address never enters the game's record. The link's
page (``/invitation/<game>#token=...``) signs the visitor up or in and takes the seat; the
secret after ``#`` never reaches the server before the visitor presses the button.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from api.accounts import LINK_PREFIX, split_secret
from api.mail import Mail
from ledger.accounts import normalise_email
from ledger.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError, RateLimitedError

KIND = "invitation"  # the accounts store's kind of link
INVITATION_DAYS = 7  # how long an invitation holds its seat, and its link works
INVITATIONS_PER_HOUR = 20  # invitations one creator may issue in an hour, every game together
MAX_INVITEES = 5  # names or addresses with a new game (a table has at most 6 seats)
HOUR = timedelta(hours=1)
UUID_TEXT = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Invitee:
    """Whom an invitation is for: a player's id, or an address, or nobody (a link to share)."""

    kind: str  # player, email, link
    player: str | None = None
    email: str | None = None


def owner(game_id: str, link_id: str) -> str:
    """The accounts store's ``player_id`` of an invitation link: its game, and itself (so that
    a new link never replaces another game's, or this game's other links)."""
    return f"{KIND}:{game_id}:{link_id}"


class Invitations:
    def __init__(self, services: Any) -> None:
        self.services = services

    @property
    def accounts(self) -> Any:
        return self.services.accounts

    # -- who --------------------------------------------------------------------------------

    def invitee(self, who: str) -> Invitee:
        """A player by id or name, or an address (it has an @)."""
        text = who.strip()
        if not text or len(text) > 254:
            raise InvalidRequestError("Name a player, or give an email address.", code="invitation/invalid")
        if "@" in text:
            return Invitee("email", email=normalise_email(text))
        if UUID_TEXT.match(text):
            try:
                return Invitee("player", player=str(self.services.ledger.get_player(str(uuid.UUID(text))).id))
            except (NotFoundError, ValueError):
                pass
        self.services.wait_for("gameindex", None)
        view = self.services.game_index.view
        rows = view.rows(
            f"SELECT player_id FROM {view.t('players')} WHERE LOWER(name) = LOWER(%s) LIMIT 2",  # noqa: S608
            [text],
        )
        if not rows:
            raise NotFoundError(f"There is no player called {text!r}.", code="invitation/unknown_player")
        if len(rows) > 1:
            raise ConflictError(
                f"More than one player is called {text!r}: invite by player id.",
                code="invitation/ambiguous_name",
            )
        return Invitee("player", player=str(rows[0]["player_id"]))

    # -- issuing ----------------------------------------------------------------------------

    def _budget(self, creator: str, n: int = 1) -> None:
        """Refuse (429) once the creator issued ``INVITATIONS_PER_HOUR`` within the hour."""
        store = self.accounts.store
        now = self.accounts.now()
        used, oldest = store.count(f"invite:{creator}", (now - HOUR).isoformat())
        if used + n > INVITATIONS_PER_HOUR:
            free_at = datetime.fromisoformat(oldest) + HOUR if oldest else now + HOUR
            raise RateLimitedError(
                f"At most {INVITATIONS_PER_HOUR} invitations an hour.",
                int((free_at - now).total_seconds()) + 1,
                "invitation/rate_limited",
            )

    def issue(
        self, game_id: str, caller: Any, invitee: Invitee, seat: int | None = None, budget: bool = True
    ) -> dict[str, Any]:
        """Record the invitation, keep its link and mail it (an address's): what the creator is
        shown (a shared link's address, this once)."""
        if budget:
            self._budget(caller.player_id)
        ledger = self.services.ledger
        now = self.accounts.now()
        expires = now + timedelta(days=INVITATION_DAYS)
        link_id = value = None
        if invitee.kind != "player":
            link_id, value = self.accounts._secret(LINK_PREFIX)
        game, number = ledger.invite(
            game_id,
            caller.player_id,
            kind=invitee.kind,
            expires_at=expires,
            player=invitee.player,
            link=link_id,
            seat=seat,
        )
        self.accounts._note(f"invite:{caller.player_id}", window=HOUR)
        url = None
        if link_id is not None and value is not None:
            self.accounts.store.add_link(
                {
                    "link_id": link_id,
                    "kind": KIND,
                    "player_id": owner(str(game.id), link_id),
                    "email": invitee.email or "",
                    "secret_hash": _sha256(value),
                    "created_at": now.isoformat(),
                    "expires_at": expires.isoformat(),
                    "used_at": None,
                }
            )
            url = f"{self.services.settings.link_base}/invitation/{game.id}#token={value}"
            if invitee.email:
                self._mail(game, caller, invitee.email, url)
                url = None  # the mail's, for the invitee only
        inv = game.invitations[str(number)]
        return {
            "game_id": str(game.id),
            "invitation": number,
            "seat": inv["seat"],
            "kind": inv["kind"],
            "player_id": inv.get("player"),
            "email": invitee.email,
            "expires_at": inv["expires_at"],
            "url": url,
        }

    def _mail(self, game: Any, caller: Any, email: str, url: str) -> None:
        from ledger.registry import TITLES

        title = TITLES[game.title].name if game.title in TITLES else game.title
        days = INVITATION_DAYS
        text = (
            f"Hello,\n\n{caller.name} invites you to a private table of {title} for {game.seat_count} "
            f"players on gameledger, a game played over days. A seat is held for you.\n\n"
            f"Open this link within {days} days to sign up (or sign in) and take the seat; it works once:\n\n"
            f"{url}\n\n"
            "If you do not want to play, ignore this mail: the seat goes back to the table when the "
            "invitation expires.\n"
        )
        self.services.mail.queue(
            Mail(
                kind="game/invitation",
                to=email,
                subject=f"{caller.name} invites you to a game of {title}",
                text=text,
                keep_text=False,  # a link that takes a seat: erased from the outbox once sent
            )
        )

    # -- taking the seat --------------------------------------------------------------------

    def accept(self, game_id: str, caller: Any, token: str | None) -> Any:
        ledger = self.services.ledger
        if token is None:
            return ledger.accept_invitation(game_id, caller.player_id)
        value = token.strip()
        split = split_secret(value, LINK_PREFIX)
        link = self.accounts.store.link(split[0]) if split else None
        if (
            link is None
            or link["kind"] != KIND
            or not hmac.compare_digest(link["secret_hash"], _sha256(value))
        ):
            raise NotFoundError(
                "This invitation link is not one of ours, or was mistyped.", code="invitation/unknown_link"
            )
        game = ledger.get_game(game_id)
        if link["player_id"] != owner(str(game.id), link["link_id"]):
            raise ForbiddenError(
                "This invitation is for another game: it gives a seat there only.",
                code="invitation/other_game",
            )
        game = ledger.accept_invitation(game_id, caller.player_id, link=link["link_id"])
        self.accounts.store.use_link(link, self.accounts.now().isoformat())
        return game

    def listed(self, game: Any) -> list[dict[str, Any]]:
        """The game's invitations for its creator: the address of a mailed one from the store."""
        out = []
        for number, inv in sorted(game.invitations.items(), key=lambda x: int(x[0])):
            email = None
            if inv.get("link"):
                link = self.accounts.store.link(inv["link"])
                email = (link or {}).get("email") or None
            out.append(
                {
                    "invitation": int(number),
                    "seat": inv["seat"],
                    "kind": inv["kind"],
                    "player_id": inv.get("player"),
                    "email": email,
                    "status": inv["status"],
                    "expires_at": inv["expires_at"],
                }
            )
        return out
