from __future__ import annotations

from fastapi import APIRouter

from api.deps import CallerDep
from api.schemas import ErrorOut, TitleOut
from ledger.registry import TITLES

router = APIRouter(tags=["titles"])


@router.get("/titles", response_model=list[TitleOut], responses={401: {"model": ErrorOut}})
def list_titles(_: CallerDep) -> list[TitleOut]:
    """The titles this service plays, with their player range and variant options."""
    copied = [name for name in TitleOut.model_fields if name != "options"]  # the same on TitleMeta
    return [
        TitleOut(**{name: getattr(m, name) for name in copied}, options=m.options_schema())
        for m in TITLES.values()
    ]
