"""FastAPI dependencies as Annotated aliases (the full-stack template's way)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Request

from api.services import Services
from ledger.errors import AuthError


@dataclass(frozen=True)
class Caller:
    player_id: str
    name: str
    is_admin: bool = False
    bot: bool = False  # a simulated player, played by a program


def get_services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


ServicesDep = Annotated[Services, Depends(get_services)]


TOKEN_COOKIE = "gl_token"  # noqa: S105 - a cookie name, not a secret
SAFE_METHODS = frozenset({"GET", "HEAD"})


def bearer_token(request: Request, authorization: str | None) -> str | None:
    """The caller's token: the Authorization header, or, for reads only (GET, HEAD: nothing a
    forged cross-site request could change), the web pages' ``gl_token`` cookie, which is
    how a browser's EventSource and a plain page load authenticate."""
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("Use Authorization: Bearer <token>.", code="auth/invalid_scheme")
        return token.strip()
    if request.method in SAFE_METHODS:
        return request.cookies.get(TOKEN_COOKIE) or None
    return None


def get_caller(
    request: Request,
    services: ServicesDep,
    authorization: Annotated[str | None, Header(description="Bearer <token>")] = None,
) -> Caller:
    token = bearer_token(request, authorization)
    if not token:
        raise AuthError("This call needs Authorization: Bearer <token>.", code="auth/required")
    admin = services.settings.admin_token
    if admin and hmac.compare_digest(token.encode(), admin.encode()):
        return Caller(player_id="admin", name="admin", is_admin=True)
    player = services.ledger.authenticate(token)
    return Caller(player_id=str(player.id), name=player.name, bot=player.bot)


CallerDep = Annotated[Caller, Depends(get_caller)]
