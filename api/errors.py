"""One place that maps errors to HTTP: every error is JSON {code, message[, details]}."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from eventsourcing.persistence import DataError, InterfaceError, OperationalError
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ledger.errors import (
    AuthError,
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    LedgerError,
    NotFoundError,
    NotYourTurnError,
    RateLimitedError,
    RuleViolationError,
    StaleVersionError,
    UnavailableError,
)

log = logging.getLogger("gameledger.api")

STATUS: list[tuple[type[LedgerError], int]] = [
    (RuleViolationError, 422),
    (InvalidRequestError, 422),
    (StaleVersionError, 409),
    (ConflictError, 409),
    (NotYourTurnError, 403),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (AuthError, 401),
    (UnavailableError, 503),
    (RateLimitedError, 429),
]


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return body


def status_of(exc: LedgerError) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 400


def install(app: FastAPI) -> None:
    @app.exception_handler(LedgerError)
    async def ledger_error(_: Request, exc: LedgerError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, AuthError) else None
        if isinstance(exc, RateLimitedError):
            headers = {"Retry-After": str(exc.retry_after)}
        return JSONResponse(
            error_body(exc.code, exc.message, exc.details or None), status_of(exc), headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        if first.get("type") == "json_invalid":
            return JSONResponse(error_body("request/bad_json", "The body is not valid JSON."), 400)
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        message = f"{where}: {first.get('msg')}" if where else str(first.get("msg", "invalid request"))
        details = [
            {"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg")), "type": str(e.get("type"))}
            for e in errors[:10]
        ]
        return JSONResponse(error_body("request/invalid", message, details), 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "http/not_found", 405: "http/method_not_allowed", 401: "auth/required"}
        return JSONResponse(
            error_body(codes.get(exc.status_code, f"http/{exc.status_code}"), str(exc.detail)),
            exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    @app.exception_handler(psycopg.OperationalError)  # one that escaped eventsourcing's wrapping
    async def unavailable(_: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable: %s", exc)
        return JSONResponse(
            error_body("service/unavailable", "The database is unavailable; try again shortly."),
            503,
            headers={"Retry-After": "2"},
        )

    @app.exception_handler(DataError)
    @app.exception_handler(psycopg.DataError)
    async def unstorable(_: Request, exc: Exception) -> JSONResponse:
        """A value PostgreSQL cannot hold (a NUL byte in a text parameter): the request's fault."""
        log.info("refused a value the database cannot store: %s", exc)
        return JSONResponse(
            error_body("request/invalid_text", "A parameter holds characters that cannot be stored (e.g. NUL)."),
            422,
        )

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return JSONResponse(error_body("server/error", "An unexpected error occurred."), 500)
