"""Request size and JSON depth limits, enforced before any parsing (pure ASGI middleware)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from api.errors import error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


INT64 = (-(2**63), 2**63 - 1)
_NUMBER = frozenset(b"+-0123456789.eE")
_START = frozenset(b"-0123456789")


def _number_fits(token: bytes) -> bool:
    """Whether a JSON number token is a 64-bit integer or a finite double."""
    if any(b in b".eE" for b in token):
        try:
            value = float(token)
        except ValueError:
            return True  # not a number at all: the JSON reader refuses it with its own code
        return value not in (float("inf"), float("-inf"))
    if len(token) <= 18:  # at most 18 digits (and a sign) always fits
        return True
    try:
        return INT64[0] <= int(token) <= INT64[1]
    except ValueError:
        return True


def json_problem(body: bytes, depth_limit: int, *, numbers: bool = True) -> tuple[str, str] | None:
    """What is wrong with a JSON body before anyone parses it, in one pass (strings and escapes
    skipped): brackets nested deeper than ``depth_limit``, or (``numbers``) a number outside a
    64-bit integer or a finite double, or NaN and Infinity, which JSON does not have. Python reads
    any number of digits, but the read models' reader (orjson) does not, and every number the
    service stores must be one that every reader of the record can read back."""
    depth = 0
    in_string = escaped = False
    i, n = 0, len(body)
    while i < n:
        byte = body[i]
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > depth_limit:
                return "request/too_deep", f"JSON nests deeper than {depth_limit} levels."
        elif byte in (0x5D, 0x7D):
            depth -= 1
        elif numbers and byte in _START:
            j = i + 1
            while j < n and body[j] in _NUMBER:
                j += 1
            if not _number_fits(body[i:j]):
                return "request/number_out_of_range", OUT_OF_RANGE
            i = j
            continue
        elif numbers and byte in (0x4E, 0x49):  # N(aN), I(nfinity)
            return "request/number_out_of_range", OUT_OF_RANGE
        i += 1
    return None


OUT_OF_RANGE = (
    "A number in the body is not a 64-bit integer (-9223372036854775808 to 9223372036854775807) "
    "or a finite number; NaN and Infinity are not JSON."
)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A receive that gives ``body``, already read, once, then the server's own messages."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _is_json(scope: Scope) -> bool:
    """A body FastAPI reads as JSON: a JSON media type, or none at all."""
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            media = value.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or (
                media.startswith(b"application/") and media.endswith(b"+json")
            )
    return True


class BodyLimits:
    def __init__(self, app: ASGIApp, max_bytes: int, max_depth: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth

    async def _refuse(self, send: Send, status: int, code: str, message: str) -> None:
        body = json.dumps(error_body(code, message)).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                await self._refuse(
                    send, 413, "request/too_large", f"The body is over {self.max_bytes} bytes."
                )
                return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(
                    send, 413, "request/too_large", f"The body is over {self.max_bytes} bytes."
                )
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = json_problem(body, self.max_depth, numbers=_is_json(scope))
        if problem is not None:
            await self._refuse(send, 422, *problem)
            return
        await self.app(scope, replaying(body, receive), send)
