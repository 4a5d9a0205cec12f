"""The web pages (issue 8, "Play by web over days"): HTML over the same services as the API."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.staticfiles import StaticFiles

from api.web import audit_pages, pages, stat_pages
from api.web.pages import STATIC_DIR

router = APIRouter(include_in_schema=False)
router.include_router(pages.router)
router.include_router(audit_pages.router)
router.include_router(stat_pages.router)

STATIC_PATH = "/static"


def static_files() -> StaticFiles:
    """The pages' stylesheet and script, mounted at ``STATIC_PATH``."""
    return StaticFiles(directory=STATIC_DIR)


__all__ = ["STATIC_PATH", "router", "static_files"]
