"""The routes' way into the one Idempotency-Key mechanism (``api/idempotency.py``): a route
that takes the header asks for ``OnceDep`` and answers through it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from pydantic import BaseModel

from api.deps import Caller, CallerDep, ServicesDep
from api.services import Services

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=200,
        description="Retrying with the same key replays the first answer (replayed: true); the same key "
        "with another request is refused (409 request/idempotency_key_reused)",
    ),
]


@dataclass(frozen=True)
class Once:
    """This request's key (if it sent one), its caller and the service."""

    services: Services
    caller: Caller
    key: str | None
    request: Request

    def __call__(self, body: BaseModel | None, answer: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``answer()``, once per key: the first answer again for the same request."""
        assert self.services.idempotency is not None
        return self.services.idempotency.run(self.caller.player_id, self.key, self.request, body, answer)


async def once_per_key(
    request: Request, caller: CallerDep, services: ServicesDep, idempotency_key: IdempotencyKey = None
) -> Once:
    return Once(services, caller, idempotency_key, request)


OnceDep = Annotated[Once, Depends(once_per_key)]
