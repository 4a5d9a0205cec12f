from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from api.deps import Caller, CallerDep, ServicesDep
from api.notify import wanted_kinds
from api.routers.accounts import ClientDep, account_out
from api.schemas import ErrorOut, NotificationSettingsIn, PlayerCreated, PlayerIn, PlayerOut, VacationIn
from ledger.errors import ForbiddenError

router = APIRouter(tags=["players"])


@router.post(
    "/players",
    status_code=status.HTTP_201_CREATED,
    response_model=PlayerCreated,
    responses={422: {"model": ErrorOut}},
)
def register_player(body: PlayerIn, services: ServicesDep, client: ClientDep) -> PlayerCreated:
    """Register a player. The token is shown once and stored only as a hash. With ``email``, a
    one-time link that confirms it is mailed; with ``password``, you can sign in with the
    address (``POST /sessions``) once it is confirmed."""
    accounts = services.accounts
    assert accounts is not None
    email = accounts.check_signup(body.name, body.email, body.password)  # before anything is written
    player_id, token = services.ledger.register_player(body.name)
    extra = (
        accounts.after_signup(str(player_id), email, body.password, client) if email or body.password else {}
    )
    return PlayerCreated(player_id=player_id, name=body.name.strip(), token=token, **extra)


@router.get("/me", response_model=PlayerOut, responses={401: {"model": ErrorOut}})
def me(caller: CallerDep, services: ServicesDep) -> PlayerOut:
    """Who the bearer token (or the session) belongs to, and their account: address, password, tokens."""
    account = {} if caller.is_admin else account_out(services, caller.player_id)
    return PlayerOut(
        player_id=caller.player_id,
        name=caller.name,
        is_admin=caller.is_admin,
        bot=caller.bot,
        signed_in_with="session" if caller.session_id else "token",
        **account,
    )


@router.get("/me/turns", responses={401: {"model": ErrorOut}})
def my_turns(caller: CallerDep, services: ServicesDep) -> dict[str, object]:
    """Games waiting on the caller's decision, most recently moved first."""
    services.wait_for("gameindex", None)
    games = services.game_index.view.list_games(status="active", awaiting_player=caller.player_id, limit=200)
    return {"games": games}


ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut} for code in (401, 403, 404, 409, 422)}


def _player(caller: Caller) -> str:
    if caller.is_admin:
        raise ForbiddenError("The operator has no player settings.", code="auth/not_a_player")
    return caller.player_id


def vacation_out(services: Any, player_id: str) -> dict[str, Any]:
    p = services.ledger.get_player(player_id)
    now = services.ledger.clock()
    current = p.on_vacation(now)
    allowance = services.ledger.vacation_days_per_year
    used = p.vacation_days_used(now.year)
    return {
        "on_vacation": current is not None,
        "from": current[0].isoformat() if current else None,
        "until": current[1].isoformat() if current else None,
        "days_per_year": allowance,
        "days_used_this_year": used,
        "days_left_this_year": max(0, allowance - used),
    }


@router.get("/me/vacation", responses=ERRORS)
def get_vacation(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Whether your clocks are paused, and the vacation days left this year."""
    return vacation_out(services, _player(caller))


@router.post("/me/vacation", responses=ERRORS)
def start_vacation(body: VacationIn, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Pause your clocks in every active game for ``days`` days (within the yearly allowance)."""
    player = _player(caller)
    services.ledger.start_vacation(player, body.days)
    services.follow_vacation(player)
    return vacation_out(services, player)


@router.delete("/me/vacation", responses=ERRORS)
def end_vacation(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Come back early: your clocks run again (the unused days are given back)."""
    player = _player(caller)
    services.ledger.end_vacation(player)
    services.follow_vacation(player)
    return vacation_out(services, player)


def _settings_out(services: Any, player_id: str, secret: str | None = None) -> dict[str, Any]:
    from ledger.application import NOTIFICATION_KINDS

    p = services.ledger.get_player(player_id)
    return {
        "kinds": wanted_kinds(p),
        "available_kinds": list(NOTIFICATION_KINDS),
        "webhook_url": p.webhook_url,
        "webhook_secret": secret,
        "signature": "X-Gameledger-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of '<t>.<body>' under the secret>",
        "streams": {"server_sent_events": "/api/v1/me/stream"},
    }


@router.get("/me/notifications/settings", responses=ERRORS)
def get_notification_settings(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    return _settings_out(services, _player(caller))


@router.put("/me/notifications/settings", responses=ERRORS)
def put_notification_settings(
    body: NotificationSettingsIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """Choose the notifications you get (server-sent events and webhook alike) and your webhook.
    A new webhook gets a signing secret, shown in this answer only. A webhook whose host is (or
    resolves to) a loopback, private, link-local, multicast or reserved address is refused, 422
    ``request/outbound_not_public``, unless the operator allows it."""
    player = _player(caller)
    if body.webhook_url:
        services.outbound.vet(body.webhook_url, unresolved_ok=True)  # 422; vetted again when sent
    before = services.ledger.get_player(player).webhook_secret
    p = services.ledger.set_notifications(player, body.kinds, body.webhook_url, body.new_secret)
    shown = p.webhook_secret if p.webhook_secret and p.webhook_secret != before else None
    return _settings_out(services, player, shown)


@router.get("/me/notifications", responses=ERRORS)
def my_notifications(
    caller: CallerDep, services: ServicesDep, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> dict[str, Any]:
    """Your latest notifications, with their webhook delivery status."""
    player = _player(caller)
    services.refresh("notifications")
    view = services.view("notifications")
    return {"notifications": view.recent(player, limit), "webhook_attempts": view.attempts(player, limit)}
