"""Accounts: what lets a player come back without the browser they signed up in.

A player may confirm an email address, set a password and hold several named API tokens
besides the one they registered with. These are facts of the ledger's record, events of
the Player aggregate (topics ``gameledger.player.*``, added beside the older ones):

- ``EmailConfirmed`` — the address, proven by a one-time link, is the player's (it
  replaces an earlier one); ``EmailRemoved`` — the player gave it up.
- ``PasswordSet`` — the argon2id hash of a new password (never the password).
- ``TokenIssued`` / ``TokenRevoked`` — a named bearer token (its SHA-256 only), or the
  revocation of one; the token given at registration is the player's ``first`` token.

An address belongs to one player at a time: ``EmailOwner`` is an aggregate whose id is
derived from the normalised address, saved in the same transaction as the player's
event, so that two players confirming the same address at once cannot both succeed (the
second save meets the first's version and fails).

Sessions, one-time links and sign-in attempts are not part of the record: they are
operational state kept by the API beside the read models (``api/accounts.py``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import unicodedata
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic
from zxcvbn import zxcvbn

from ledger.errors import ConflictError, InvalidRequestError, NotFoundError
from ledger.retry import retrying

EMAIL_NAMESPACE = uuid.UUID("3f0c9e4a-8b51-4d27-a6e3-5c1d7b9f2e60")
FIRST_TOKEN = "first"  # noqa: S105 - the id of the token given at registration
# A token's scope: ``play`` (games, orders, talk, reading) or ``account`` (also the account's
# address, password, tokens, sessions and notification channels). The first token is the account's.
PLAY, ACCOUNT = "play", "account"
SCOPES = (PLAY, ACCOUNT)


def token_scope(player: Any, token_id: str) -> str:
    """The scope of one of the player's tokens (``account`` for the first, and for any issued
    before tokens had scopes)."""
    return str(active_tokens(player).get(token_id, {}).get("scope", ACCOUNT))


MAX_EMAIL = 254
MAX_TOKEN_NAME = 60
MAX_TOKENS = 50  # named tokens a player may hold at once
MIN_PASSWORD, MAX_PASSWORD = 8, 200

_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*")
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_DOMAIN = re.compile(rf"(?:{_LABEL}\.)+(?:[a-z]{{2,63}}|xn--[a-z0-9-]{{1,59}})")


# -- addresses and passwords: checked before anything is written -------------------------------


def normalise_email(text: str) -> str:
    """The address as the ledger keeps it (lower case, the domain in ASCII), or
    ``request/invalid_email`` saying what is wrong with it."""

    def refuse(why: str) -> InvalidRequestError:
        return InvalidRequestError(
            f"That is not an email address we can use: {why}.", code="request/invalid_email"
        )

    address = unicodedata.normalize("NFC", text).strip()
    if not address:
        raise refuse("it is empty")
    if any(c.isspace() or not c.isprintable() for c in address):
        raise refuse("it holds spaces or control characters")
    if len(address) > MAX_EMAIL:
        raise refuse(f"it is longer than {MAX_EMAIL} characters")
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise refuse("it needs a name, an @ and a domain, as in ann@example.org")
    if not local.isascii() or not _LOCAL.fullmatch(local) or len(local) > 64:
        raise refuse("the part before the @ has characters or dots an address cannot have")
    try:
        ascii_domain = domain.lower().encode("idna").decode("ascii")
    except UnicodeError:
        raise refuse("the domain is not a valid name") from None
    if len(ascii_domain) > 253 or not _DOMAIN.fullmatch(ascii_domain):
        raise refuse("the domain is not a valid name with a dot, as in example.org")
    return f"{local.lower()}@{ascii_domain}"


MIN_GUESSES_LOG10 = 6  # zxcvbn's score 2: a million guesses at least


def check_password(password: str, *, name: str = "", email: str | None = None) -> None:
    """A password we accept: 8 to 200 characters, not blank, not the player's name or address,
    and not among the common or breached passwords, nor made of them (zxcvbn's estimate)."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidRequestError(
            f"A password is {MIN_PASSWORD} to {MAX_PASSWORD} characters long.", code="request/weak_password"
        )
    if not password.strip() or "\x00" in password:
        raise InvalidRequestError("A password cannot be blank or hold NUL.", code="request/weak_password")
    folded = password.strip().casefold()
    if folded in {name.strip().casefold(), (email or "").casefold()}:
        raise InvalidRequestError(
            "A password cannot be your name or your email address.", code="request/weak_password"
        )
    # zxcvbn: the passwords of the great breaches, common words, names, keyboard patterns, dates
    # and repeats, each with a count of guesses; below MIN_GUESSES_LOG10 a password falls to an
    # online guesser within days even at our limits. It reads the first 72 characters.
    strength = zxcvbn(password[:72], user_inputs=[name, email or "", *(email or "").split("@"), "gameledger"])
    if strength["guesses_log10"] < MIN_GUESSES_LOG10:
        feedback = strength["feedback"]
        why = feedback.get("warning") or "It is easy to guess."
        hint = " ".join(feedback.get("suggestions") or ["Add another word or two, uncommon ones."])
        raise InvalidRequestError(
            f"This password is too easy to guess. {why} {hint}".strip(), code="request/weak_password"
        )


def check_token_name(name: str) -> str:
    clean = unicodedata.normalize("NFC", name).strip()
    if not 1 <= len(clean) <= MAX_TOKEN_NAME or not clean.isprintable():
        raise InvalidRequestError(
            f"A token's name is 1 to {MAX_TOKEN_NAME} printable characters.",
            code="request/invalid_token_name",
        )
    return clean


def token_hash(token: str) -> str:
    """Bearer tokens are kept only as their SHA-256 (they are random: no salt or stretching needed)."""
    return hashlib.sha256(token.encode()).hexdigest()


def email_owner_id(email: str) -> UUID:
    return uuid.uuid5(EMAIL_NAMESPACE, email)


# -- the Player's account events ---------------------------------------------------------------


class EmailConfirmed(Aggregate.Event):
    TOPIC = "gameledger.player.email_confirmed"
    email: str

    def apply(self, aggregate: Any) -> None:
        aggregate.email = self.email
        aggregate.email_confirmed_at = self.timestamp.isoformat()


class EmailRemoved(Aggregate.Event):
    TOPIC = "gameledger.player.email_removed"

    def apply(self, aggregate: Any) -> None:
        aggregate.email = None
        aggregate.email_confirmed_at = None


class PasswordSet(Aggregate.Event):
    """The argon2id hash (PHC string: algorithm, parameters, salt, hash) of a new password."""

    TOPIC = "gameledger.player.password_set"
    password_hash: str

    def apply(self, aggregate: Any) -> None:
        aggregate.password_hash = self.password_hash
        aggregate.password_set_at = self.timestamp.isoformat()


class TokenIssued(Aggregate.Event):
    TOPIC = "gameledger.player.token_issued"
    token_id: str
    name: str
    token_hash: str
    scope: str = ACCOUNT  # tokens issued before scopes could do everything

    def apply(self, aggregate: Any) -> None:
        aggregate.tokens = {
            **aggregate.tokens,
            self.token_id: {
                "name": self.name,
                "hash": self.token_hash,
                "created_at": self.timestamp.isoformat(),
                "scope": getattr(self, "scope", ACCOUNT),
            },
        }


class TokenRevoked(Aggregate.Event):
    TOPIC = "gameledger.player.token_revoked"
    token_id: str

    def apply(self, aggregate: Any) -> None:
        if self.token_id == FIRST_TOKEN:
            aggregate.first_token_revoked = True
        aggregate.tokens = {k: v for k, v in aggregate.tokens.items() if k != self.token_id}


# The library registers the explicit topics of events nested in an aggregate class; these
# events of the Player are defined here, beside it, so they register themselves.
for _event in (EmailConfirmed, EmailRemoved, PasswordSet, TokenIssued, TokenRevoked):
    register_topic(_event.TOPIC, _event)


class EmailOwner(Aggregate):
    """Which player an address belongs to (the id is derived from the address)."""

    TOPIC = "gameledger.email_owner"

    class Created(Aggregate.Created):
        TOPIC = "gameledger.email_owner.created"
        player_id: str

    class Claimed(Aggregate.Event):
        TOPIC = "gameledger.email_owner.claimed"
        player_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.player_id = self.player_id

    class Released(Aggregate.Event):
        TOPIC = "gameledger.email_owner.released"

        def apply(self, aggregate: Any) -> None:
            aggregate.player_id = None

    def __init__(self, player_id: str) -> None:
        self.player_id: str | None = player_id


# -- reading a player's account ----------------------------------------------------------------


def active_tokens(player: Any) -> dict[str, dict[str, Any]]:
    """token id -> {name, hash, created_at}: the first token (unless revoked), then the named ones."""
    out: dict[str, dict[str, Any]] = {}
    if not getattr(player, "first_token_revoked", False):
        out[FIRST_TOKEN] = {
            "name": "first token (given at sign-up)",
            "hash": player.token_hash,
            "created_at": player.created_on.isoformat(),
        }
    out.update(getattr(player, "tokens", {}))
    return out


def matching_token(player: Any, digest: str) -> str | None:
    """The id of the player's active token with this SHA-256, compared in constant time with
    every one of them (the number of tokens is the only thing the timing depends on)."""
    found = None
    for token_id, token in active_tokens(player).items():
        if hmac.compare_digest(token["hash"], digest):
            found = token_id
    return found


def account_of(player: Any) -> dict[str, Any]:
    """What the player may read of their own account: never a hash."""
    return {
        "email": getattr(player, "email", None),
        "email_confirmed_at": getattr(player, "email_confirmed_at", None),
        "password_set": getattr(player, "password_hash", None) is not None,
        "password_set_at": getattr(player, "password_set_at", None),
        "tokens": len(active_tokens(player)),
    }


# -- use cases ----------------------------------------------------------------------------------


class PlayerAccounts:
    """The account use cases over the ledger's Player aggregates: load, decide, save."""

    def __init__(self, ledger: Any) -> None:
        self.ledger = ledger

    @property
    def clock(self) -> Callable[[], datetime]:
        return cast(Callable[[], datetime], self.ledger.clock)

    def _retrying(self, attempt: Callable[[], Any]) -> Any:
        """Run a load-decide-save again when another writer saved the same player first."""
        return retrying(
            attempt, code="account/conflict", message="The account changed while this was saved; try again."
        )

    def player_for_email(self, email: str) -> Any | None:
        """The player whose confirmed address this is (``email`` normalised), or None."""
        try:
            owner: Any = self.ledger.repository.get(email_owner_id(email))
        except AggregateNotFoundError:
            return None
        if not isinstance(owner, EmailOwner) or owner.player_id is None:
            return None
        try:
            player = self.ledger.get_player(owner.player_id)
        except NotFoundError:
            return None
        return player if getattr(player, "email", None) == email else None

    def confirm_email(self, player_id: str, email: str) -> Any:
        """Make ``email`` the player's confirmed address (releasing an earlier one)."""

        def attempt() -> Any:
            player = self.ledger.get_player(player_id)
            if getattr(player, "email", None) == email:
                return player
            now = self.clock()
            changed: list[Any] = [player]
            try:
                owner: Any = self.ledger.repository.get(email_owner_id(email))
            except AggregateNotFoundError:
                owner = EmailOwner._create(
                    EmailOwner.Created, id=email_owner_id(email), player_id=str(player.id), timestamp=now
                )
            else:
                if owner.player_id not in (None, str(player.id)):
                    raise ConflictError(
                        "This address belongs to another account: recover that account with it, "
                        "or remove the address there first.",
                        code="email/taken",
                    )
                owner.trigger_event(EmailOwner.Claimed, player_id=str(player.id), timestamp=now)
            changed.append(owner)
            old = getattr(player, "email", None)
            if old:
                previous: Any = self.ledger.repository.get(email_owner_id(old))
                previous.trigger_event(EmailOwner.Released, timestamp=now)
                changed.append(previous)
            player.trigger_event(EmailConfirmed, email=email, timestamp=now)
            self.ledger.save(*changed)
            return player

        return self._retrying(attempt)

    def remove_email(self, player_id: str) -> Any:
        def attempt() -> Any:
            player = self.ledger.get_player(player_id)
            old = getattr(player, "email", None)
            if old is None:
                raise ConflictError("You have no email address to remove.", code="email/none")
            if not active_tokens(player):
                raise ConflictError(
                    "Your address is your only way back in (you hold no token): issue a token first.",
                    code="account/last_way_in",
                )
            now = self.clock()
            owner: Any = self.ledger.repository.get(email_owner_id(old))
            owner.trigger_event(EmailOwner.Released, timestamp=now)
            player.trigger_event(EmailRemoved, timestamp=now)
            self.ledger.save(player, owner)
            return player

        return self._retrying(attempt)

    def set_password(self, player_id: str, password_hash: str) -> Any:
        def attempt() -> Any:
            player = self.ledger.get_player(player_id)
            player.trigger_event(PasswordSet, password_hash=password_hash, timestamp=self.clock())
            self.ledger.save(player)
            return player

        return self._retrying(attempt)

    def issue_token(self, player_id: str, name: str, scope: str = PLAY) -> tuple[str, str, Any]:
        """A new named token of a scope: (its id, the token, shown only this once, the player)."""
        clean = check_token_name(name)
        if scope not in SCOPES:
            raise InvalidRequestError(
                f"A token's scope is one of {', '.join(SCOPES)}.", code="request/invalid"
            )
        entropy = self.ledger.entropy

        def attempt() -> tuple[str, str, Any]:
            player = self.ledger.get_player(player_id)
            if len(getattr(player, "tokens", {})) >= MAX_TOKENS:
                raise ConflictError(
                    f"You hold {MAX_TOKENS} tokens, the most at once: revoke one first.",
                    code="token/too_many",
                )
            token_id = entropy(6).hex()
            secret = base64.urlsafe_b64encode(entropy(24)).decode().rstrip("=")
            token = f"gl_{player.id.hex}_{secret}"
            player.trigger_event(
                TokenIssued,
                token_id=token_id,
                name=clean,
                token_hash=token_hash(token),
                scope=scope,
                timestamp=self.clock(),
            )
            self.ledger.save(player)
            return token_id, token, player

        result: tuple[str, str, Any] = self._retrying(attempt)
        return result

    def revoke_token(self, player_id: str, token_id: str) -> Any:
        def attempt() -> Any:
            player = self.ledger.get_player(player_id)
            tokens = active_tokens(player)
            if token_id not in tokens:
                raise NotFoundError(f"You hold no token {token_id}.", code="token/not_found")
            if len(tokens) == 1 and getattr(player, "email", None) is None:
                raise ConflictError(
                    "This is your last token and you have no confirmed email address to come back "
                    "with: add one first.",
                    code="account/last_way_in",
                )
            player.trigger_event(TokenRevoked, token_id=token_id, timestamp=self.clock())
            self.ledger.save(player)
            return player

        return self._retrying(attempt)

    @staticmethod
    def tokens_of(player: Any) -> list[dict[str, Any]]:
        """The player's active tokens, oldest first: id, name, created_at (never the hash)."""
        tokens = [
            {
                "token_id": token_id,
                "name": t["name"],
                "created_at": t["created_at"],
                "scope": t.get("scope", ACCOUNT),
            }
            for token_id, t in active_tokens(player).items()
        ]
        return sorted(tokens, key=lambda t: (t["created_at"], t["token_id"]))
