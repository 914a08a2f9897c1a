"""`create_api`: the `/v1` API as a FastAPI app, with its documentation at `/docs` (Swagger
UI) and `/redoc` (ReDoc), served from assets shipped in a package: no CDN.

Authentication happens before a request reaches it: `confidante.server`'s gate verifies the
bearer token and leaves the agent key in the request scope, and every route also declares
(and re-checks) that key, so this app answers 401 even when mounted without the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from importlib import resources
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

from ..._version import __version__
from ...memory import Memory
from .errors import install_error_handlers
from .json_bodies import JsonBodies
from .routes import router
from .stats import router as stats_router

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[Any]]
DOCS_ASSETS = "/docs/assets"
# The pages may load only what this server serves: the browser itself refuses anything else
# (ReDoc's bundle, for one, points an image at its makers' CDN).
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def _same_origin_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = DOCS_CSP
    return page


DESCRIPTION = """Private-by-design long-term memory for agents. Every request carries the
conversation context (or uses the one its agent key is pinned to); the memory decides what
that context may read and write.

Authenticate with `Authorization: Bearer <agent key>` (`confidante keys add-agent NAME`).
Bodies are JSON (a missing `Content-Type` is read as JSON). Times are ISO 8601 in UTC.
`list` and `search` return a `next_cursor`: send it back as `cursor` for the next page.
Facts carry your app's own `metadata`; `filters` narrow `list` and `search` to what matches,
never beyond what the context may see. A context may carry the display `names` the platform
shows, so a query can name someone. Shared spaces (`/v1/spaces`) are the owner's to manage,
in an owner-private context; members write to them with the namespace `shared:<name>`.
Errors are `{"error": {"code", "message"}}` with stable codes (see each route's responses).
"""


def _assets() -> str:
    """Swagger UI and ReDoc, as the `fastapi-offline` package ships them."""
    return str(resources.files("fastapi_offline") / "static")


def create_api(mem: Memory, *, lifespan: Lifespan | None = None) -> FastAPI:
    """The API app; `lifespan` is the server's (background work that starts and stops with it)."""
    app = FastAPI(
        title="confidante",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.memory = mem
    install_error_handlers(app)
    app.include_router(router)
    app.include_router(stats_router)
    app.add_middleware(JsonBodies)
    app.mount(DOCS_ASSETS, StaticFiles(directory=_assets()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="confidante API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
            # no call-out to the public validator service
            swagger_ui_parameters={"validatorUrl": None, "persistAuthorization": False},
        )
        return _same_origin_only(page)

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        page = get_redoc_html(
            openapi_url="/openapi.json",
            title="confidante API",
            redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )
        return _same_origin_only(page)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    return app
