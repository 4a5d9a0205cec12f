"""Domain errors, each with a stable code.

Codes are a contract with clients: ``rule/...`` for rule violations (with the
rulebook section in ``rule``), ``game/...`` for the ledger's own refusals,
``auth/...`` for identity. The API maps them to HTTP statuses in one place.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Base of every refusal the ledger explains to a caller."""

    code: str = "ledger/error"

    def __init__(self, message: str, *, code: str | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class RuleViolationError(LedgerError):
    """A decision the rulebook does not allow; nothing is written."""

    code = "rule/violation"

    def __init__(self, code: str, message: str, rule: str = "") -> None:
        super().__init__(message, code=code if code.startswith("rule/") else f"rule/{code}")
        self.rule = rule
        if rule:
            self.details = {"rule": rule}


class NotFoundError(LedgerError):
    code = "game/not_found"


class StaleVersionError(LedgerError):
    code = "game/stale_version"


class NotYourTurnError(LedgerError):
    code = "game/not_your_turn"


class ForbiddenError(LedgerError):
    code = "game/forbidden"


class ConflictError(LedgerError):
    """A request that cannot apply to the game as it stands (full, already joined ...)."""

    code = "game/conflict"


class InvalidRequestError(LedgerError):
    """Well-formed JSON that does not describe a valid request."""

    code = "request/invalid"


class AuthError(LedgerError):
    code = "auth/invalid_token"


class UnavailableError(LedgerError):
    """The store is unreachable; the request may be retried."""

    code = "service/unavailable"


class RateLimitedError(LedgerError):
    """Too many attempts of something in a while (sign-ins, recovery mails): try again after
    ``retry_after`` seconds; nothing was done."""

    code = "request/rate_limited"

    def __init__(self, message: str, retry_after: int, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_after = max(1, int(retry_after))
