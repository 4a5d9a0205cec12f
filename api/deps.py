"""FastAPI dependencies as Annotated aliases (the full-stack template's way)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Path, Query, Request

from api.accounts import SESSION_PREFIX
from api.schemas import MAX_INDEX
from api.services import Services
from ledger.accounts import ACCOUNT, token_scope
from ledger.errors import AuthError, ForbiddenError, NotFoundError


@dataclass(frozen=True)
class Caller:
    player_id: str
    name: str
    is_admin: bool = False
    bot: bool = False  # a simulated player, played by a program
    session_id: str | None = None  # signed in by a session (a page's cookie, or its bearer)
    opened_with: str | None = None  # how that session was opened: password, token, recovery, signup, operator
    csrf: str | None = None  # the session's anti-forgery proof, for the pages to send back
    token_id: str | None = None  # the player's bearer token that authenticated this request
    scope: str = "account"  # what its credential may do: play, or account (ledger/accounts.py)


def services_of(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


async def get_services(request: Request) -> Services:
    """The dependency (async: FastAPI runs a plain function dependency in its thread pool, a
    hop per request)."""
    return services_of(request)


ServicesDep = Annotated[Services, Depends(get_services)]
# the path and query parameters the routers share
PathId = Annotated[str, Path(min_length=1, max_length=64)]  # a player's id (or "me"), a title's id
Position = Annotated[
    int | None, Query(ge=0, le=MAX_INDEX, description="Wait until the read model includes this position")
]


SESSION_COOKIE = "gl_session"  # HttpOnly: the web pages' sign-in
TOKEN_COOKIE = "gl_token"  # noqa: S105 - a cookie name: the older pages' copy of the token (reads only)
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD"})


def bearer_token(authorization: str) -> str:
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("Use Authorization: Bearer <token>.", code="auth/invalid_scheme")
    return token.strip()


def _session_caller(session: Any) -> Caller:
    same = ("player_id", "name", "bot", "session_id", "opened_with", "csrf", "scope")  # named alike on both
    return Caller(is_admin=session.is_operator, **{name: getattr(session, name) for name in same})


def caller_for_token(services: Services, token: str) -> Caller:
    """Who a bearer token is: the operator's token, a player's token, or a session's bearer."""
    admin = services.settings.admin_token
    if admin and hmac.compare_digest(token.encode(), admin.encode()):
        return Caller(player_id="admin", name="admin", is_admin=True)
    if token.startswith(SESSION_PREFIX + "_"):
        session = services.accounts.session(token) if services.accounts else None
        if session is None:
            raise AuthError(
                "This sign-in has ended (signed out or expired): sign in again.", code="auth/session_ended"
            )
        return _session_caller(session)
    player, token_id = services.ledger.verify_token(token)
    return player_caller(player, token_id)


def player_caller(player: Any, token_id: str) -> Caller:
    """The caller a player's bearer token makes."""
    return Caller(
        player_id=str(player.id),
        name=player.name,
        bot=player.bot,
        token_id=token_id,
        scope=token_scope(player, token_id),
    )


def player_token(services: Services, authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer`` header if it is a player's own (not a
    session's bearer, not the operator's), else None."""
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or token.startswith(SESSION_PREFIX + "_"):
        return None
    admin = services.settings.admin_token
    if admin and hmac.compare_digest(token.encode(), admin.encode()):
        return None
    return token


def known_caller(services: Services, token: str) -> Caller | None:
    """The caller a player's token makes when the answer needs no read of the store (a token
    this process verified moments ago), else None (``caller_for_token`` reads it)."""
    known = services.ledger.known_token(token)
    return None if known is None else player_caller(*known)


def get_caller(
    request: Request,
    services: ServicesDep,
    authorization: Annotated[str | None, Header(description="Bearer <token>")] = None,
) -> Caller:
    """The caller: by ``Authorization: Bearer`` (a token or a session's bearer), else by the web
    pages' session cookie, which authorises a write (anything but GET and HEAD) only with the
    session's anti-forgery proof in ``X-CSRF-Token`` (a form or script of another site cannot
    have it); else, for reads only, by the older pages' ``gl_token`` cookie."""
    if authorization:
        return caller_for_token(services, bearer_token(authorization))
    cookie = request.cookies.get(SESSION_COOKIE)
    session = services.accounts.session(cookie) if cookie and services.accounts else None
    if session is not None:
        if request.method not in SAFE_METHODS:
            proof = request.headers.get(CSRF_HEADER, "")
            if not hmac.compare_digest(proof.encode(), session.csrf.encode()):
                raise ForbiddenError(
                    f"A signed-in page's change needs its anti-forgery proof ({CSRF_HEADER}); reload the page.",
                    code="auth/csrf_failed",
                )
        return _session_caller(session)
    if request.method in SAFE_METHODS and request.cookies.get(TOKEN_COOKIE):
        return caller_for_token(services, request.cookies[TOKEN_COOKIE])
    if cookie:
        raise AuthError(
            "This sign-in has ended (signed out or expired): sign in again.", code="auth/session_ended"
        )
    raise AuthError("This call needs Authorization: Bearer <token>.", code="auth/required")


CallerDep = Annotated[Caller, Depends(get_caller)]


def account_caller(caller: CallerDep) -> Caller:
    """The caller, if its credential may change the account (a token for playing may not, nor a
    session it opened): 403 ``auth/scope`` otherwise."""
    if caller.scope != ACCOUNT:
        raise ForbiddenError(
            "This token is for playing: it cannot change the account. Use your account's own token, "
            "or sign in with your password.",
            code="auth/scope",
        )
    return caller


AccountCallerDep = Annotated[Caller, Depends(account_caller)]


def access_ended(services: Services, caller: Caller) -> str | None:
    """Why the credential a caller came with no longer works (``auth/session_ended``: the session
    was signed out, ended or expired; ``auth/revoked``: the token was revoked), or None while it
    does. Read from the store: what a long request, such as a stream, asks again as it goes."""
    if caller.session_id is not None:
        live = services.accounts.session_live(caller.session_id) if services.accounts else False
        return None if live else "auth/session_ended"
    if caller.token_id is not None:
        from ledger.accounts import active_tokens

        try:
            player = services.ledger.get_player(caller.player_id)
        except NotFoundError:
            return "auth/revoked"
        return None if caller.token_id in active_tokens(player) else "auth/revoked"
    return None  # the operator's token: it changes only with a restart, which ends every stream
