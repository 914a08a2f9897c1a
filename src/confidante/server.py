"""`create_app`: what `confidante serve` runs, the API, the dashboard and MCP in one ASGI app.

This module and `main` are the only places that put surfaces together; the surfaces
themselves import the core, never each other. A small ASGI gate in front of everything
authenticates `/v1` and `/mcp` before any body is parsed (so an unauthenticated request
learns nothing, not even whether its JSON was valid), bounds request bodies, answers a core
error raised before any route (a busy database while checking the key: 503 `database_busy`)
with its code, and turns any unexpected exception into a bare 500 without its text.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .config import ServerSettings
from .errors import ConfidanteError
from .memory import Memory
from .services.credentials import AGENT_KEY_SCOPE, AgentKey, AgentKeys
from .surfaces.dashboard import create_dashboard
from .surfaces.http import create_api, error_body
from .surfaces.mcp import HTTP_CONTEXT_SCOPE, streamable_http

log = logging.getLogger("confidante.server")

MCP_PATH = "/mcp"
# SQLite: how often an idle server retries a WAL truncate a reader held up (the erasure it
# completes is pending meanwhile; any write retries it too).
WAL_RETRY_SECONDS = 5.0
# How often a server drops the cached partitions other processes changed.
STALE_SECONDS = 5.0


def dashboard_owner(mem: Memory, settings: ServerSettings) -> str | None:
    """Who the dashboard logs in as: the configured one, else the first owner, else nobody."""
    if settings.owner is not None:
        return settings.owner if settings.owner in mem.owners else None
    return mem.first_owner()


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
        except ConfidanteError as exc:  # raised here, before a route (the key check's read)
            log.error("%s on %s", exc.code, scope.get("path"))
            if not started:
                await _send_json(send, exc.http_status, error_body(exc.code, exc.message))
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
            key = await anyio.to_thread.run_sync(self._verify, bearer_token(auth), is_mcp)
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

    def _verify(self, token: str | None, is_mcp: bool) -> AgentKey | None:
        """The agent key, or None; a failed attempt goes to the owner's log, counted per
        minute (so a flood of bad tokens adds to one row), never with the token."""
        key = self.keys.verify(token)
        if key is None:
            self.keys.mem.record_denial("mcp" if is_mcp else "api", "unauthenticated")
        return key

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


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


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


async def _erasure_loop(mem: Memory, every_seconds: float) -> None:
    """Finish pending erasure now and then, even when no request comes. PostgreSQL (old row
    versions stay on disk): re-key and rotate the master key, so what `forget`, `update` and
    cleanup erased becomes unrecoverable from copies of the files within one interval.
    SQLite: truncate the WAL once readers in other processes let go of old snapshots."""
    while True:
        await asyncio.sleep(every_seconds)
        try:
            if await anyio.to_thread.run_sync(mem.erasure_pending):
                report = await anyio.to_thread.run_sync(mem.complete_erasure)
                if report.get("erasure_pending"):  # a reader still holds the WAL, say
                    log.debug("erasure still pending: %s", report)
                else:
                    log.info("erasure completed: %s", report)
        except ConfidanteError as e:
            log.error("erasure failed: %s", e.code)
        except Exception as e:  # keep serving; the type is enough to investigate
            log.error("erasure failed: %s", type(e).__name__)


async def _stale_loop(mem: Memory, every_seconds: float) -> None:
    """Drop cached partitions another process changed (a fact forgotten or overwritten
    there), so their decrypted text does not wait in this server's memory for the next read."""
    while True:
        await asyncio.sleep(every_seconds)
        try:
            await anyio.to_thread.run_sync(mem.drop_stale)
        except ConfidanteError as e:
            log.error("dropping stale partitions failed: %s", e.code)
        except Exception as e:  # keep serving; the type is enough to investigate
            log.error("dropping stale partitions failed: %s", type(e).__name__)


def create_app(mem: Memory, settings: ServerSettings | None = None) -> FastAPI:
    """The whole server as one ASGI app; `confidante serve` runs it under uvicorn."""
    settings = settings or ServerSettings()
    mcp_manager = None
    mcp_app = None
    if settings.mcp:
        mcp_app, mcp_manager = streamable_http(mem, host=settings.host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp_manager is not None:
                await stack.enter_async_context(mcp_manager.run())
            tasks = []
            if settings.cleanup_days > 0:
                tasks.append(asyncio.create_task(_cleanup_loop(mem, settings.cleanup_days)))
            tasks.append(asyncio.create_task(_stale_loop(mem, STALE_SECONDS)))
            if mem.store.erases_physically:
                tasks.append(asyncio.create_task(_erasure_loop(mem, WAL_RETRY_SECONDS)))
            elif mem.settings.erasure_interval_minutes > 0:
                every = mem.settings.erasure_interval_minutes * 60
                tasks.append(asyncio.create_task(_erasure_loop(mem, every)))
            try:
                yield
            finally:
                for task in tasks:
                    task.cancel()

    app = create_api(mem, lifespan=lifespan)
    app.state.settings = settings

    if mcp_app is not None:
        app.router.routes.append(Route(MCP_PATH, endpoint=mcp_app))

    if settings.dashboard:
        app.include_router(create_dashboard(mem, dashboard_owner(mem, settings), settings))

        @app.get("/", include_in_schema=False)
        def root() -> RedirectResponse:
            return RedirectResponse("/dashboard/", status_code=303)

    app.add_middleware(
        Gate, keys=AgentKeys(mem), max_body=settings.max_body_bytes, mcp_path=MCP_PATH
    )
    return app


__all__ = ["Gate", "create_app", "dashboard_owner"]
