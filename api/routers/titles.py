from __future__ import annotations

from fastapi import APIRouter

from api.deps import CallerDep
from api.schemas import ErrorOut, TitleOut
from ledger.registry import TITLES

router = APIRouter(tags=["titles"])


@router.get("/titles", response_model=list[TitleOut], responses={401: {"model": ErrorOut}})
def list_titles(_: CallerDep) -> list[TitleOut]:
    """The titles this service plays, with their player range and variant options."""
    return [
        TitleOut(
            id=m.id,
            name=m.name,
            min_players=m.min_players,
            max_players=m.max_players,
            description=m.description,
            rules_version=m.rules_version,
            options=m.options_schema(),
        )
        for m in TITLES.values()
    ]
