"""The `confidante` command line: every library call has a twin here, each with `--json`.

`app` holds the commands; `confidante.main` adds `serve` and `mcp` and runs it."""

from .app import app

__all__ = ["app"]
