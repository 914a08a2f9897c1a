"""HTTP surface of `confidante serve`: the `/v1` API, with the dashboard and MCP mounted.

`create_app(mem, ServerSettings(port=8765))` returns the ASGI app that uvicorn runs.
"""

from .app import ServerSettings, create_app
from .auth import AgentKey, AgentKeys

__all__ = ["AgentKey", "AgentKeys", "ServerSettings", "create_app"]
