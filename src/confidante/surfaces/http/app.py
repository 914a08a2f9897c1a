"""`create_api`: the `/v1` API as a FastAPI app.

Authentication happens before a request reaches it: `confidante.server`'s gate verifies the
bearer token and leaves the agent key in the request scope, and every route also declares
(and re-checks) that key, so this app answers 401 even when mounted without the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI

from ..._version import __version__
from ...memory import Memory
from .errors import install_error_handlers
from .routes import router

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]


def create_api(mem: Memory, *, lifespan: Lifespan | None = None) -> FastAPI:
    """The API app; `lifespan` is the server's (background work that starts and stops with it)."""
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
    install_error_handlers(app)
    app.include_router(router)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    return app
