"""Notifications by mail, Discord and Slack: a player's choices, a table's hook, the one-click
unsubscribe (``api/channels.py`` does the work)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import Field

from api.channels import CHAT_SERVICES, Channels, mask_url
from api.deps import AccountCallerDep, CallerDep, ServicesDep, services_of
from api.schemas import ErrorOut
from api.schemas import Request as Body
from ledger.errors import ForbiddenError

router = APIRouter(tags=["notifications"])
unsubscribe_router = APIRouter(include_in_schema=False)
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut},
    403: {"model": ErrorOut},
    404: {"model": ErrorOut},
    422: {"model": ErrorOut},
}
Token = Annotated[str, Path(max_length=100)]


class ChatHookIn(Body):
    service: Literal["discord", "slack"] = Field(description="Whose incoming webhook the URL is")
    url: str = Field(
        min_length=8,
        max_length=500,
        description="The incoming-webhook URL: https://discord.com/api/webhooks/… or https://hooks.slack.com/services/…",
    )


class ChannelsIn(Body):
    mail: Literal["each", "digest", "off"] | None = Field(
        None, description="each: a mail per notification; digest: one mail at most every digest_hours; off"
    )
    digest_hours: int | None = Field(None, ge=1, le=168, description="Hours between two digests")
    kinds: list[Annotated[str, Field(max_length=40)]] | None = Field(
        None, max_length=20, description="Which notifications (mail and chat); null: all of them"
    )
    signin_links: bool | None = Field(
        None,
        description="Whether the link of a your-turn mail also signs you in (once, within a day) in a "
        "browser without your session",
    )


def _channels(services: Any) -> Channels:
    assert services.channels is not None
    return services.channels  # type: ignore[no-any-return]


def _me(caller: Any) -> str:
    if caller.is_admin:
        raise ForbiddenError("The operator has no player settings.", code="auth/not_a_player")
    return str(caller.player_id)


@router.get("/me/notifications/channels", responses=ERRORS)
def get_channels(caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your mail and chat choices and your latest mails with their delivery status."""
    return _channels(services).settings_of(_me(caller))


@router.put("/me/notifications/channels", responses=ERRORS)
def put_channels(body: ChannelsIn, caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    """Change how you are told (fields left out stay as they are). Mails go to your confirmed address."""
    return _channels(services).change(
        _me(caller),
        mail=body.mail,
        digest_hours=body.digest_hours,
        kinds=body.kinds if "kinds" in body.model_fields_set else False,
        signin_links=body.signin_links,
    )


@router.put("/me/chat-webhook", responses=ERRORS)
def put_my_hook(body: ChatHookIn, caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    """Your own Discord or Slack channel: told what you are told by mail (the kinds you chose). The
    URL must be the service's own incoming-webhook address (or one the operator allows)."""
    return _channels(services).change(_me(caller), chat=body.model_dump())


@router.delete("/me/chat-webhook", responses=ERRORS)
def delete_my_hook(caller: AccountCallerDep, services: ServicesDep) -> dict[str, Any]:
    return _channels(services).change(_me(caller), chat=None)


def _creator_game(services: Any, caller: Any, game_id: str) -> Any:
    game = services.ledger.get_game(game_id)
    if not caller.is_admin and game.created_by != caller.player_id:
        raise ForbiddenError("Only the game's creator sets its table's chat hook.", code="game/not_creator")
    return game


def _hook_out(services: Any, game_id: str) -> dict[str, Any]:
    hook = _channels(services).store.table_hook(game_id)
    if hook is None:
        return {"game_id": game_id, "service": None, "url": None}
    return {
        "game_id": game_id,
        "service": hook["service"],
        "url": mask_url(hook["url"]),
        "set_by": hook["set_by"],
        "updated_at": hook["updated_at"],
    }


@router.get("/games/{game_id}/chat-webhook", responses=ERRORS)
def get_table_hook(game_id: str, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    """Whether the table posts to Discord or Slack; its creator (and the operator) also see where
    (the URL without its secret part) and when it was set."""
    game = services.ledger.get_game(game_id)
    out = _hook_out(services, str(game.id))
    if not caller.is_admin and game.created_by != caller.player_id:
        out = {"game_id": out["game_id"], "service": out["service"]}
    return out


@router.put("/games/{game_id}/chat-webhook", responses=ERRORS)
def put_table_hook(
    game_id: str, body: ChatHookIn, caller: CallerDep, services: ServicesDep
) -> dict[str, Any]:
    """The creator gives the whole table a Discord or Slack channel: told when the game starts,
    whose turn it is, and when it is over, with a link."""
    game = _creator_game(services, caller, game_id)
    channels = _channels(services)
    url = channels.check_hook(body.service, body.url)
    channels.store.set_table_hook(
        str(game.id), body.service, url, caller.player_id, channels.now().isoformat()
    )
    return _hook_out(services, str(game.id))


@router.delete("/games/{game_id}/chat-webhook", responses=ERRORS)
def delete_table_hook(game_id: str, caller: CallerDep, services: ServicesDep) -> dict[str, Any]:
    game = _creator_game(services, caller, game_id)
    channels = _channels(services)
    channels.store.set_table_hook(str(game.id), None, None, caller.player_id, channels.now().isoformat())
    return _hook_out(services, str(game.id))


# -- the one-click unsubscribe (RFC 8058): a page with a button, and the POST mail programs send ----------

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · gameledger</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/app.css"></head>
<body><main id="main"><h1>{title}</h1>{body}<p><a href="/settings">Your settings</a></p></main></body></html>"""
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",  # the token is in the address
    "X-Content-Type-Options": "nosniff",
}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=title, body=body), status_code=status, headers=_HEADERS)


def _unknown() -> HTMLResponse:
    return _page(
        "Unknown link",
        "<p>This unsubscribe link is not one we sent. Choose your mails in your settings.</p>",
        404,
    )


@unsubscribe_router.get("/unsubscribe/{token}")
def unsubscribe_page(token: Token, request: Request) -> HTMLResponse:
    """The link in every notification mail: a button (opening the link alone changes nothing,
    so a mail scanner that follows links unsubscribes nobody)."""
    channels = _channels(services_of(request))
    row = channels.by_token(token)
    if row is None:
        return _unknown()
    if row["mail"] == "off":
        return _page("You are unsubscribed", "<p data-unsubscribed>You get no notification mails.</p>")
    return _page(
        "Stop notification mails",
        f"<p>No more mails about your games to this address (account mails, such as sign-in links, still come).</p>"
        f'<form method="post" action="/unsubscribe/{token}"><button type="submit" id="unsubscribe">Unsubscribe</button></form>',
    )


@unsubscribe_router.post("/unsubscribe/{token}")
def unsubscribe(token: Token, request: Request) -> HTMLResponse:
    """One click: what the button posts, and what a mail program posts (``List-Unsubscribe=One-Click``)."""
    if _channels(services_of(request)).unsubscribe(token) is None:
        return _unknown()
    return _page("You are unsubscribed", "<p data-unsubscribed>You get no more notification mails.</p>")


__all__ = ["CHAT_SERVICES", "router", "unsubscribe_router"]
