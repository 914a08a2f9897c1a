"""The HTTP API (`/v1`): routes, request and response bodies, one error shape.

`create_api(mem)` returns the FastAPI app; `confidante.server.create_app` puts it behind the
server's gate, with the dashboard and MCP beside it.
"""

from .app import create_api
from .errors import error_body

__all__ = ["create_api", "error_body"]
