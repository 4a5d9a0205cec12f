"""The pages of the record after the fact: a game's audit in words (``/games/{id}/audit``), a
dispute's page, from which its adjudicator rules (``/games/{id}/disputes/{n}``), and the queue
of disputes (``/disputes``). Each is assembled from what already exists: the ledger's audit
(one computation, the same as the API's JSON), the replay's board at an event, the table talk,
a fork from before it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request
from fastapi.responses import Response

from api.deps import Caller
from api.presenters import names_for, seat_names
from api.services import Services
from api.web.pages import _services, render, signed_in
from ledger.audit import audit_game
from ledger.errors import NotFoundError

router = APIRouter(include_in_schema=False)


def audit_of(services: Services, game_id: str, caller: Caller) -> dict[str, Any]:
    """The game's audit as the caller may see it (the operator: all of it), with the players'
    names; a record so damaged that the game no longer loads is audited from its raw rows."""
    try:
        gid = UUID(game_id)
    except ValueError:
        raise NotFoundError(f"No game {game_id}.") from None
    try:
        game = services.ledger.get_game(gid)
        names = seat_names(game, names_for(services, game))
    except NotFoundError:
        raise
    except Exception:  # a record so damaged the game no longer loads: audit the raw rows
        names = {}
    result = audit_game(services.ledger, gid, caller.player_id, full_view=caller.is_admin, names=names)
    if not result["record"] and not result["ok"] and not result["checks"]:
        raise NotFoundError(f"No game {game_id}.")
    return result


def yourself(services: Services, game_id: str, caller: Caller) -> dict[str, Any] | None:
    """For a game that is over: how to check it yourself, and what ``gameledger verify`` prints
    for the record this caller downloads (verified here, the same way, against the digest)."""
    from ledger.export import game_export
    from ledger.verify import verify_export

    game = services.ledger.get_game(game_id)
    if not game.over:
        return None
    digest = services.digest(str(game.id))
    key = services.signer.public_key
    lines = game_export(services.ledger, game, game.seats_of(caller.player_id), talk=caller.is_admin or None)
    report = verify_export(lines, digest, key)
    return {"public_key": key, "digest_root": digest["root"], "output": report.text(), "ok": report.ok}


@router.get("/games/{game_id}/audit")
@signed_in(not_found="There is no game {game_id}.")
def audit_page(request: Request, caller: Caller, game_id: str) -> Response:
    """Every check of the game's record, each said in a sentence; where one fails, the first
    event at which it fails; for a game that is over, how to check it yourself."""
    services = _services(request)
    audit = audit_of(services, game_id, caller)
    try:
        check = yourself(services, game_id, caller)
        title_name = services.ledger.get_game(game_id).engine.meta.name
    except Exception:  # a damaged record: its audit says so, there is nothing to verify
        check, title_name = None, str(audit.get("title") or "Game")
    return render(
        request,
        "audit.html",
        caller,
        game_id=str(UUID(game_id)),
        title_name=title_name,
        audit=audit,
        yourself=check,
    )
