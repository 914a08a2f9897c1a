"""`create_app`: the API, the dashboard and the MCP endpoint of `confidante serve`, in one app.

A small ASGI gate in front of everything authenticates `/v1` and `/mcp` before any body is
parsed (so an unauthenticated request learns nothing, not even whether its JSON was valid),
bounds request bodies, and turns any unexpected exception into a bare 500 without its text.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..engine import Memory
from ..errors import ConfidanteError
from .auth import AgentKeys, bearer_token
from .errors import error_body, install_error_handlers
from .routes import AGENT_KEY_SCOPE, router

log = logging.getLogger("confidante.http")


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    cleanup_days: float = 7.0  # periodic cleanup interval; 0 turns it off
    max_body_bytes: int = 1_048_576
    mcp: bool = True
    dashboard: bool = True
    owner: str | None = None  # dashboard identity; default: the first configured owner id
    session_hours: float = 12.0
    elevated_minutes: float = 10.0  # how long an Owner Private unlock lasts


def dashboard_owner(mem: Memory, settings: ServerSettings) -> str | None:
    """The first configured owner id (configuration order), or None: nobody can log in."""
    from ..mcp_server import first_owner

    if settings.owner is not None:
        return settings.owner if settings.owner in mem.owners else None
    return first_owner(mem)


async def _send_json(send: Send, status: int, body: dict[str, Any], **headers: str) -> None:
    raw = json.dumps(body).encode()
    hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    hdrs += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": hdrs})
    await send({"type": "http.response.body", "body": raw})


class Gate:
    """Authenticate, bound the body, and never leak an exception's text."""

    def __init__(self, app: ASGIApp, keys: AgentKeys, max_body: int, mcp_path: str) -> None:
        self.app = app
        self.keys = keys
        self.max_body = max_body
        self.mcp_path = mcp_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self._handle(scope, receive, tracking_send)
        except Exception as exc:
            log.error("unhandled %s on %s", type(exc).__name__, scope.get("path"))
            if not started:
                await _send_json(send, 500, error_body("internal_error", "internal error"))

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        is_mcp = path.rstrip("/") == self.mcp_path
        if path.startswith("/v1/") or is_mcp:
            headers = dict(scope["headers"])
            auth = headers.get(b"authorization", b"").decode("latin-1")
            key = await anyio.to_thread.run_sync(self.keys.verify, bearer_token(auth))
            if key is None:
                await _send_json(
                    send,
                    401,
                    error_body("unauthenticated", "a valid agent key is required"),
                    www_authenticate="Bearer",
                )
                return
            scope = {**scope, AGENT_KEY_SCOPE: key}
            if is_mcp:
                from ..mcp_server import HTTP_CONTEXT_SCOPE

                if key.pinned is None:
                    self.keys.mem.record_denial("mcp", "identity_not_pinned")
                    await _send_json(
                        send,
                        403,
                        error_body(
                            "identity_not_pinned",
                            "MCP needs an agent key pinned to an identity "
                            "(keys add-agent NAME --as ACTOR --dm ...)",
                        ),
                    )
                    return
                try:
                    ctx = key.pinned_context()
                except ConfidanteError as e:
                    await _send_json(send, e.http_status, error_body(e.code, e.message))
                    return
                scope[HTTP_CONTEXT_SCOPE] = ctx
                await self.app(scope, receive, send)  # the MCP transport bounds its own bodies
                return
        buffered = await self._buffer(scope, receive, send)
        if buffered is not None:
            await self.app(scope, buffered, send)

    async def _buffer(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """Read the whole body (bounded) so no handler ever sees more than max_body."""
        too_large = error_body("payload_too_large", f"the body is over {self.max_body} bytes")
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            await _send_json(send, 413, too_large)
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await _send_json(send, 413, too_large)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay


async def _cleanup_loop(mem: Memory, every_days: float) -> None:
    """Run the core's cleanup now and then every `every_days` (a restart does not skip it)."""
    while True:
        try:
            report = await anyio.to_thread.run_sync(lambda: mem.cleanup())
            counts = {k: v for k, v in report.items() if type(v) is int}
            log.info("periodic cleanup finished: %s", counts)
        except ConfidanteError as e:
            log.error("periodic cleanup failed: %s", e.code)
        except Exception as e:  # keep serving; the type is enough to investigate
            log.error("periodic cleanup failed: %s", type(e).__name__)
        await asyncio.sleep(every_days * 86_400)


def create_app(mem: Memory, settings: ServerSettings | None = None) -> FastAPI:
    """The whole server as one ASGI app; `confidante serve` runs it under uvicorn."""
    settings = settings or ServerSettings()
    keys = AgentKeys(mem)
    mcp_manager = None
    mcp_app = None
    if settings.mcp:
        from ..mcp_server import streamable_http

        mcp_app, mcp_manager = streamable_http(mem, host=settings.host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp_manager is not None:
                await stack.enter_async_context(mcp_manager.run())
            task = None
            if settings.cleanup_days > 0:
                task = asyncio.create_task(_cleanup_loop(mem, settings.cleanup_days))
            try:
                yield
            finally:
                if task is not None:
                    task.cancel()

    app = FastAPI(
        title="confidante",
        version=__version__,
        description=(
            "Private-by-design long-term memory for agents. Every request carries the "
            "conversation context; the memory decides what that context may read and write. "
            'Errors are `{"error": {"code", "message"}}` with stable codes.'
        ),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.memory = mem
    app.state.agent_keys = keys
    app.state.settings = settings
    install_error_handlers(app)
    app.include_router(router)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    if mcp_app is not None:
        app.router.routes.append(Route("/mcp", endpoint=mcp_app))

    if settings.dashboard:
        from ..dashboard import create_dashboard

        app.include_router(create_dashboard(mem, dashboard_owner(mem, settings), settings))

        @app.get("/", include_in_schema=False)
        def root() -> RedirectResponse:
            return RedirectResponse("/dashboard/", status_code=303)

    app.add_middleware(Gate, keys=keys, max_body=settings.max_body_bytes, mcp_path="/mcp")
    return app
