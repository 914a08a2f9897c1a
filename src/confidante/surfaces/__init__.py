"""Thin adapters over the core: the CLI (`cli/`), the HTTP API (`http/`), MCP (`mcp.py`) and
the dashboard (`dashboard/`). Each imports the core, never another surface; `confidante.server`
and `confidante.main` put them together."""
