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


@dataclass(frozen=True)
class Features:
    routes: frozenset[tuple[str, str]]  # (method, path with "{}" for each parameter)
    create_fields: frozenset[str]  # the properties of POST /games's body

    def has(self, method: str, path: str) -> bool:
        return (method.upper(), _normal(API + path)) in self.routes

    @property
    def game_stream(self) -> bool:
        return self.has("GET", "/games/{}/stream")

    @property
    def me_stream(self) -> bool:
        return self.has("GET", "/me/stream")

    @property
    def time_control(self) -> bool:
        return "time_control" in self.create_fields

    @property
    def undo(self) -> bool:
        return self.has("POST", "/games/{}/undo")

    @property
    def undo_request(self) -> bool:
        return self.has("POST", "/games/{}/undo/request") and self.has("POST", "/games/{}/undo/answer")

    @property
    def vacation(self) -> bool:
        return self.has("POST", "/me/vacation")

    @property
    def vacation_status(self) -> bool:
        return self.has("GET", "/me/vacation")

    @property
    def end_vacation(self) -> bool:
        return self.has("DELETE", "/me/vacation")

    @property
    def notification_settings(self) -> bool:
        return self.has("GET", "/me/notifications/settings") and self.has("PUT", "/me/notifications/settings")


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
