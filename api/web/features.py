"""Which optional API calls this server has: the pages show a control only when its call exists.

Live updates (server-sent events), time controls, clocks, undo, vacations and
notification settings arrive in the API independently of the pages; the pages ask
the running application's OpenAPI schema (its public contract) instead of assuming them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

API = "/api/v1"


def _normal(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def _calls(*calls: str) -> property:
    """A feature that needs these calls ("METHOD /path", "{}" for each parameter), all of them."""

    def present(self: Features) -> bool:
        return all(self.has(*call.split(" ", 1)) for call in calls)

    return property(present)


@dataclass(frozen=True)
class Features:
    routes: frozenset[tuple[str, str]]  # (method, path with "{}" for each parameter)
    create_fields: frozenset[str]  # the properties of POST /games's body

    def has(self, method: str, path: str) -> bool:
        return (method.upper(), _normal(API + path)) in self.routes

    @property
    def time_control(self) -> bool:
        return "time_control" in self.create_fields

    game_stream = _calls("GET /games/{}/stream")
    me_stream = _calls("GET /me/stream")
    undo = _calls("POST /games/{}/undo")
    undo_request = _calls("POST /games/{}/undo/request", "POST /games/{}/undo/answer")
    vacation = _calls("POST /me/vacation")
    vacation_status = _calls("GET /me/vacation")
    end_vacation = _calls("DELETE /me/vacation")
    notification_settings = _calls("GET /me/notifications/settings", "PUT /me/notifications/settings")


def _body_properties(schema: dict[str, Any], path: str, method: str) -> frozenset[str]:
    operation = schema.get("paths", {}).get(path, {}).get(method, {})
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    ref = body.get("$ref", "")
    if ref:
        body = schema.get("components", {}).get("schemas", {}).get(ref.rsplit("/", 1)[-1], {})
    return frozenset(body.get("properties", {}))


def features(app: FastAPI) -> Features:
    """The optional calls of ``app`` (computed once per application)."""
    cached: Features | None = getattr(app.state, "web_features", None)
    if cached is None:
        schema: dict[str, Any] = app.openapi()
        routes = frozenset(
            (method.upper(), _normal(path))
            for path, operations in schema.get("paths", {}).items()
            for method in operations
        )
        cached = Features(routes=routes, create_fields=_body_properties(schema, f"{API}/games", "post"))
        app.state.web_features = cached
    return cached
