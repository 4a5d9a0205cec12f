"""One place that maps errors to HTTP: every error is JSON {code, message[, details]}."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from eventsourcing.persistence import DataError, IntegrityError, InterfaceError, OperationalError
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


@dataclass(frozen=True)
class FixedAnswer:
    """A database failure's answer, the same whichever request it happened to; logged, with the error."""

    errors: tuple[type[Exception], ...]
    status: int
    code: str
    message: str
    log_level: int
    log_words: str  # "%s": the error
    headers: dict[str, str] | None = None

    async def answer(self, _: Request, exc: Exception) -> JSONResponse:
        log.log(self.log_level, self.log_words, exc)
        return JSONResponse(error_body(self.code, self.message), self.status, headers=self.headers)


DATABASE_ANSWERS = (
    FixedAnswer(
        # psycopg.OperationalError: one that escaped eventsourcing's wrapping
        (OperationalError, InterfaceError, psycopg.OperationalError),
        503,
        "service/unavailable",
        "The database is unavailable; try again shortly.",
        logging.WARNING,
        "database unavailable: %s",
        headers={"Retry-After": "2"},
    ),
    FixedAnswer(
        # a value PostgreSQL cannot hold (a NUL byte in a text parameter): the request's fault
        (DataError, psycopg.DataError),
        422,
        "request/invalid_text",
        "A parameter holds characters that cannot be stored (e.g. NUL).",
        logging.INFO,
        "refused a value the database cannot store: %s",
    ),
    FixedAnswer(
        # a version clash a use case did not turn into a retry or a refusal of its own: the
        # store kept its record whole and wrote nothing of this request
        (IntegrityError,),
        409,
        "request/write_conflict",
        "Another request changed this at the same moment; try again.",
        logging.WARNING,
        "write conflict: %s",
    ),
)


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

    for fixed in DATABASE_ANSWERS:
        for error in fixed.errors:
            app.add_exception_handler(error, fixed.answer)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return JSONResponse(error_body("server/error", "An unexpected error occurred."), 500)
