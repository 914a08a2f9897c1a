"""One error shape for the whole API: `{"error": {"code", "message"}}`.

Core errors keep their stable codes and statuses. Messages never echo request values:
validation errors name the field and the problem, not what was sent (it may be a secret).
Unexpected exceptions are caught by the server's gate (`confidante.server.Gate`), which logs
their type only.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...errors import ConfidanteError, describe_validation

log = logging.getLogger("confidante.surfaces.http")

JSON_HINT = "the body is not valid JSON (send JSON, with Content-Type: application/json)"

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
}


class ApiError(Exception):
    """An adapter-level refusal (authentication, surfaces an agent may not assert)."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def validation_message(errors: list[Any]) -> str:
    """`field: problem; ...` from pydantic errors, without their `input` values."""
    if any(e.get("type") == "json_invalid" for e in errors):
        return JSON_HINT
    return describe_validation(errors)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ConfidanteError)
    async def _core(request: Request, exc: ConfidanteError) -> JSONResponse:
        if exc.http_status >= 500:
            log.error("core error %s on %s", exc.code, request.url.path)
        return error_response(exc.http_status, exc.code, exc.message)

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "malformed_json", JSON_HINT)
        return error_response(422, "invalid_input", validation_message(errors))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return error_response(exc.status_code, code, message, getattr(exc, "headers", None))
