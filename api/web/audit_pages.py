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

from api.audits import audit_of
from api.deps import Caller
from api.presenters import events_out, names_for, seat_names
from api.routers.disputes import dispute_view, queue_view, signed_digest
from api.services import Services
from api.web import table as tables
from api.web.pages import _log, _services, render, replay_at, signed_in
from ledger.errors import ForbiddenError, LedgerError

router = APIRouter(include_in_schema=False)


def yourself(services: Services, game_id: str, caller: Caller) -> dict[str, Any] | None:
    """For a game that is over: how to check it yourself, and what ``gameledger verify`` prints
    for the record this caller downloads (verified here, the same way, against the digest)."""
    from ledger.export import game_export
    from ledger.verify import verify_export

    game = services.ledger.get_game(game_id)
    if not game.over:
        return None
    digest = signed_digest(services, game, game.version)  # a new one only if the latest lacks the end
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


AROUND = 3  # the dispute page's log: this many events before and after the disputed one


@router.get("/games/{game_id}/disputes/{number}")
@signed_in(not_found="There is no such dispute in game {game_id}.")
def dispute_page(
    request: Request, caller: Caller, game_id: str, number: int, v: int | None = None
) -> Response:
    """One page to rule from: the board before and after the disputed event (``v``: which of
    them), the log around it in words, the cited table talk, the audit of the disputed events in
    words, a "what if" fork from before it, and the rulings (for whoever rules on it). The
    players of the game see it without the rulings; anyone else, nothing."""
    services = _services(request)
    try:
        out = dispute_view(services, game_id, number, caller)
    except ForbiddenError as refused:
        return render(
            request, "message.html", caller, status=403, heading="Not your dispute", message=refused.message
        )
    versions = [int(x) for x in out["dispute"]["versions"]]
    version = v if v in versions else versions[0]
    game = services.ledger.get_game(game_id)
    names = seat_names(game, names_for(services, game))
    at = replay_at(services, game, caller, version, names, both=True)
    before = at["marked"]
    if before is None and version > 1:  # a draw, or no decision on the board: the position before it
        before = replay_at(services, game, caller, version - 1, names, both=True)["after"]
    words = tables.renderer_for(game.title).words
    start = max(0, version - AROUND - 1)
    around = _log(events_out(services, game, caller, start, 2 * AROUND + 1), names, words)
    fork = None
    if not caller.is_admin:
        try:
            services.ledger.forkable_at(game, version - 1)
        except LedgerError as refused:
            fork = refused.message
    else:
        fork = "The operator does not play: a player of the game, or its organiser, forks it."
    return render(
        request,
        "dispute.html",
        caller,
        d=out,
        version=version,
        at=at,
        before=before,
        names=names,
        around=around,
        fork_refused=fork,
        rewind_words=at["event"],
    )


@router.get("/disputes")
@signed_in()
def queue_page(request: Request, caller: Caller) -> Response:
    """The disputes the caller rules on, those they ruled on, those of the games they play in;
    the operator's also every organiser's (the operator may rule on any)."""
    return render(request, "disputes.html", caller, queue=queue_view(_services(request), caller))
