"""Shared by the surface tests: a real uvicorn server on a loopback port, in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from confidante import Memory
from confidante.config import ServerSettings
from confidante.server import create_app
from confidante.services.credentials import AgentKeys, set_password

PASSWORD = "correct horse battery staple"


@dataclass
class Live:
    url: str
    mem: Memory
    server: uvicorn.Server

    def token(self, name: str, pinned: dict[str, Any] | None = None) -> str:
        return AgentKeys(self.mem).add(name, pinned)


@contextmanager
def live_server(mem: Memory, *, password: str | None = PASSWORD, **settings: Any) -> Iterator[Live]:
    """Serve `create_app(mem)` on 127.0.0.1:<free port> until the block ends."""
    if password is not None:
        set_password(mem, password)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings.setdefault("cleanup_days", 0)
    app = create_app(mem, ServerSettings(host="127.0.0.1", port=port, **settings))
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield Live(f"http://127.0.0.1:{port}", mem, server)
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
