"""Accounts over HTTP: sign in and out, sessions, recovery, addresses, passwords, named tokens."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Request, Response, status

from api.accounts import AccountService, Client
from api.deps import SESSION_COOKIE, AccountCallerDep, Caller, CallerDep, ServicesDep
from api.schemas import (
    EmailIn,
    ErrorOut,
    LinkIn,
    PasswordIn,
    RecoverIn,
    SessionIn,
    SessionOut,
    TokenCreated,
    TokenIn,
    TokenOut,
)
from ledger.accounts import PlayerAccounts, account_of
from ledger.errors import ForbiddenError

router = APIRouter(tags=["accounts"])

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422, 429)
}
COOKIE_MAX_AGE = 400 * 86400  # the browser keeps it; the server decides how long the session lives


def client_of(request: Request) -> Client:
    return Client(
        address=request.client.host if request.client else "?",
        user_agent=request.headers.get("user-agent", ""),
    )


ClientDep = Annotated[Client, Depends(client_of)]


def _accounts(services: Any) -> AccountService:
    return services.accounts  # type: ignore[no-any-return]


def _player(caller: Caller) -> str:
    if caller.is_admin:
        raise ForbiddenError("The operator has no player account.", code="auth/not_a_player")
    return caller.player_id


def account_out(services: Any, player_id: str) -> dict[str, Any]:
    """What a player may read of their own account (never a secret or a hash)."""
    return account_of(services.ledger.get_player(player_id)) | {
        "pending_email": _accounts(services).pending_email(player_id)
    }


def secure_cookie(request: Request, services: Any) -> bool:
    """Secure under HTTPS: the request's own scheme (behind a proxy, with --proxy-headers), or the public URL's."""
    return request.url.scheme == "https" or str(services.settings.public_url).startswith("https://")


def set_session_cookie(response: Response, request: Request, services: Any, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure_cookie(request, services),
    )


@router.post("/sessions", status_code=status.HTTP_201_CREATED, response_model=SessionOut, responses=ERRORS)
def sign_in(
    body: SessionIn, request: Request, response: Response, services: ServicesDep, client: ClientDep
) -> SessionOut:
    """Sign in: with your confirmed email address and password, a bearer token, or the token of a
    mailed recovery link. The answer sets the pages' HttpOnly session cookie and shows the
    session's bearer once. Failed sign-ins are limited per address and per client (429); a wrong
    address and a wrong password get the same answer, ``auth/bad_credentials``."""
    accounts = _accounts(services)
    if body.link is not None:
        token, session = accounts.sign_in_link(body.link, client)
    elif body.token is not None:
        token, session = accounts.sign_in_token(body.token, client)
    else:
        token, session = accounts.sign_in_password(str(body.email), str(body.password), client)
    set_session_cookie(response, request, services, token)
    return SessionOut(
        session_id=session.session_id,
        player_id=session.player_id,
        name=session.name,
        opened_with=session.opened_with,
        token=token,
        csrf_token=session.csrf,
        expires_after_days=services.settings.session_days,
    )


@router.get("/me/sessions", responses=ERRORS)
def my_sessions(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your open sessions (sign-ins), the current one marked: where and when, never their secret."""
    return {"sessions": _accounts(services).sessions_of(caller.player_id, caller.session_id)}


@router.delete("/me/sessions/{session_id}", responses=ERRORS)
def end_session(
    session_id: str, caller: AccountCallerDep, services: ServicesDep, request: Request, response: Response
) -> dict[str, Any]:
    """End one of your sessions (``current``: sign out of this one, which also clears its cookie)."""
    target = caller.session_id if session_id == "current" else session_id
    if target is None:
        from ledger.errors import ConflictError

        raise ConflictError("This request was not made in a session (it used a token).", code="session/none")
    _accounts(services).end_session(caller.player_id, target)
    if target == caller.session_id:
        response.delete_cookie(
            SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure_cookie(request, services)
        )
    return {"ended": target}


@router.post("/players/recover", status_code=status.HTTP_202_ACCEPTED, responses=ERRORS)
def recover(
    body: RecoverIn, services: ServicesDep, client: ClientDep, background: BackgroundTasks
) -> dict[str, Any]:
    """Lost access: if the address is a player's confirmed address, a one-time sign-in link is
    mailed to it (it works once, for ``GAMELEDGER_RECOVERY_LINK_MINUTES``). The answer is the same
    whether or not the address is known; the mail is prepared after it is sent."""
    accounts = _accounts(services)
    address = accounts.check_recovery(body.email, client)
    background.add_task(accounts.recover, address, client)
    minutes = services.settings.recovery_link_minutes
    return {
        "message": f"If {address} is the confirmed address of an account, a sign-in link is on its way to it; "
        f"it works once, within {minutes} minutes."
    }


@router.post("/players/confirm-email", responses=ERRORS)
def confirm_email(body: LinkIn, services: ServicesDep) -> dict[str, Any]:
    """Confirm an address with the token of the mailed link (no sign-in needed: the link is the proof)."""
    player = _accounts(services).confirm_email(body.token)
    return {"player_id": str(player.id), "name": player.name, "email": player.email}


@router.post("/me/email", status_code=status.HTTP_202_ACCEPTED, responses=ERRORS)
def add_email(
    body: EmailIn, caller: AccountCallerDep, services: ServicesDep, client: ClientDep
) -> dict[str, Any]:
    """Add or change your address: a one-time link is mailed to it, and it becomes yours when the
    link is opened (until then your confirmed address, if any, stays)."""
    player = _player(caller)
    sent = _accounts(services).request_email(player, body.email, client)
    return account_out(services, player) | sent


@router.delete("/me/email", responses=ERRORS)
def remove_email(caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    """Remove your address (and cancel a confirmation waiting for its link). Refused while it is
    your only way back in (409 ``account/last_way_in``: you hold no token)."""
    player = _player(caller)
    accounts = _accounts(services)
    accounts.cancel_pending_email(player)
    if services.ledger.get_player(player).email is not None:
        accounts.remove_email(player)
    return account_out(services, player)


@router.put("/me/password", responses=ERRORS)
def set_password(body: PasswordIn, caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    """Set or change your password (argon2id; 8 to 200 characters). A change needs the current
    password, except within an hour of a sign-in by a recovery link. Your other sessions end."""
    _player(caller)
    _accounts(services).set_password(caller, body.password, body.current_password)
    return account_out(services, caller.player_id)


@router.get("/me/tokens", responses=ERRORS)
def my_tokens(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your bearer tokens: the first one (given at sign-up) and the named ones, never the secrets."""
    player = services.ledger.get_player(_player(caller))
    return {
        "tokens": [
            TokenOut(**t, current=t["token_id"] == caller.token_id) for t in PlayerAccounts.tokens_of(player)
        ]
    }


@router.post("/me/tokens", status_code=status.HTTP_201_CREATED, response_model=TokenCreated, responses=ERRORS)
def issue_token(body: TokenIn, caller: AccountCallerDep, services: ServicesDep) -> TokenCreated:
    """A new named bearer token (shown once, stored as its SHA-256): for a bot, a script, a device.
    ``scope`` ``play`` (the default) plays, sets orders, talks and reads; ``account`` may also change
    the account (address, password, tokens, sessions, notification channels), as the first token
    and a password's sign-in may. A session opened with a token has the token's scope."""
    token_id, token, player = _accounts(services).players.issue_token(_player(caller), body.name, body.scope)
    created = player.tokens[token_id]
    return TokenCreated(
        token_id=token_id,
        name=created["name"],
        created_at=created["created_at"],
        scope=created["scope"],
        token=token,
    )


@router.delete("/me/tokens/{token_id}", responses=ERRORS)
def revoke_token(token_id: str, caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    """Revoke one of your tokens (``first``: the one given at sign-up); it stops working at once
    on this server (within 2 s on the others). Refused for your last token while you have no
    confirmed address (409 ``account/last_way_in``)."""
    _accounts(services).revoke_token(_player(caller), token_id)
    return {"revoked": token_id}
