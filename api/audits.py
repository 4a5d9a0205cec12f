"""The audit as the API and the pages serve it: the ledger's one computation (``ledger.audit``),
its sentences said in the table's words ("the South America and the West Indies contract deck",
not its code), the same for the JSON document and the page."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.deps import Caller
from api.presenters import names_for, seat_names
from api.services import Services
from ledger.audit import audit_game, audit_stretch
from ledger.errors import NotFoundError


def _words(title: str | None) -> Any:
    from api.web.table import renderer_for  # lazily: the web pages import the routers

    try:
        return renderer_for(str(title)).words
    except Exception:  # an unknown title (a damaged record): its codes stay as they are
        return None


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
    words = _words(result.get("title"))
    if words is not None:
        for c in result["checks"]:
            c["sentence"] = words.text(c["sentence"])
            c["event"] = c["event"] and words.text(c["event"])
    return result


def stretch_of(
    services: Services,
    game: Any,
    versions: list[int],
    caller: Caller,
    names: dict[int, str],
    digest: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """The disputed events' audit, each check in the table's words."""
    out = audit_stretch(
        services.ledger,
        game.id,
        versions,
        caller.player_id,
        full_view=caller.is_admin,
        names=names,
        digest=digest,
        public_key=services.signer.public_key,
    )
    words = _words(game.title)
    for s in out:
        s["event"] = words.text(s["event"])
        s["log"] = [words.text(line) for line in s["log"]]
        for c in s["checks"]:
            c["sentence"] = words.text(c["sentence"])
    return out
