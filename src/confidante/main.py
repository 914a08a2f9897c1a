"""CLI commands for the network surfaces: `serve`, `mcp`, `dashboard set-password`, and the
agent-key commands under `keys`.

`register(app, keys_app)` is called by `confidante.cli`; heavy imports (FastAPI, uvicorn, the
MCP SDK) happen inside the commands so the rest of the CLI starts fast. No `from __future__
import annotations` here: Typer reads these signatures, whose types come from `confidante.cli`
inside `register`.
"""

import json
import logging
import sys
from typing import Annotated, Any

import typer

from .errors import InvalidContext


def _flags_given(flags: dict[str, Any]) -> bool:
    return any(v not in (None, False) for v in flags.values())


def pin_spec(flags: dict[str, Any]) -> dict[str, Any]:
    """The API context object for the surface flags (what a pinned agent key speaks as)."""
    people = [p.strip() for p in (flags.get("participants") or "").split(",") if p.strip()]
    if flags.get("owner_dashboard") or flags.get("dashboard") or flags.get("local"):
        raise InvalidContext(
            "an agent key cannot be pinned to --owner-dashboard, --dashboard or --local: "
            "those are the owner's own flows (use --dm, --guild, --group or --background)"
        )
    if flags.get("background") is not None:
        return {"surface": "background", "task": flags["background"]}
    if flags.get("dm"):
        return {"surface": "dm", "actor": flags["actor"]}
    if flags.get("group") is not None:
        return {
            "surface": "group_dm",
            "actor": flags["actor"],
            "chat": flags["group"],
            "participants": people,
        }
    spec = {
        "surface": "guild_voice" if flags.get("voice") else "guild_text",
        "actor": flags["actor"],
        "guild": flags["guild"],
        "participants": people,
    }
    if flags.get("channel"):
        spec["channel"] = flags["channel"]
    return spec


def _log_to_stderr() -> None:
    """The server's own messages (cleanup runs, unexpected errors by type) beside uvicorn's."""
    log = logging.getLogger("confidante")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


def register(app: typer.Typer, keys_app: typer.Typer) -> None:
    """Add `serve`, `mcp`, `dashboard set-password`, and `add-agent`, `list-agents`,
    `revoke-agent` to `keys_app`."""
    from rich.table import Table

    from .cli import (
        DbOpt,
        JsonOpt,
        _errors,
        build_context,
        context_flags,
        err,
        out,
    )
    from .engine import Memory

    # The command receives the raw flags (a key may be unpinned, so no context is required).
    with_flags = context_flags("flags", lambda flags, _kwargs: flags)

    # -- serve ------------------------------------------------------------------------------
    @app.command()
    def serve(
        host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
        cleanup_days: Annotated[
            float | None,
            typer.Option(
                "--cleanup-days",
                help="Run cleanup every N days (0: never; default CONFIDANTE_CLEANUP_INTERVAL_DAYS"
                " or 7).",
            ),
        ] = None,
        db: DbOpt = None,
    ) -> None:
        """Serve the HTTP API (/v1), the dashboard (/dashboard) and MCP (/mcp) in one process."""
        import uvicorn

        from .dashboard.auth import password_is_set
        from .http import ServerSettings, create_app

        with _errors(False):
            mem = Memory.open(db)
            if not mem.owners:
                err.print("[yellow]no owner configured[/yellow]: the dashboard refuses every login")
            elif not password_is_set(mem):
                err.print("no dashboard password yet: run `confidante dashboard set-password`")
        if cleanup_days is None:
            cleanup_days = mem.settings.cleanup_interval_days
        settings = ServerSettings(host=host, port=port, cleanup_days=cleanup_days)
        _log_to_stderr()
        try:
            # No access log: request lines carry dashboard search terms in their query strings.
            uvicorn.run(
                create_app(mem, settings),
                host=host,
                port=port,
                proxy_headers=False,
                access_log=False,
            )
        finally:
            mem.close()

    # -- mcp (stdio) ---------------------------------------------------------------------------
    @app.command("mcp")
    @with_flags
    def mcp_stdio(flags: dict[str, Any], db: DbOpt = None) -> None:
        """Serve the memory tools over MCP stdio, as the local owner, or as the identity the
        context flags pin (e.g. --as discord:42 --dm)."""
        from .mcp_server import first_owner, run_stdio
        from .model import Context

        with _errors(False):
            mem = Memory.open(db)
            if _flags_given(flags):
                ctx = build_context(**flags)
            else:
                owner = first_owner(mem)
                if owner is None:
                    mem.close()
                    raise InvalidContext(
                        "no owner is configured: set CONFIDANTE_OWNER_IDS, or pin an identity "
                        "with --as ACTOR and a surface flag"
                    )
                ctx = Context.local(owner)
        try:
            run_stdio(mem, ctx)
        finally:
            mem.close()

    # -- dashboard ---------------------------------------------------------------------------
    dashboard_app = typer.Typer(help="The owner's dashboard.", no_args_is_help=True)

    @dashboard_app.command("set-password")
    def set_password(
        password_stdin: Annotated[
            bool, typer.Option("--password-stdin", help="Read the password from stdin.")
        ] = False,
        db: DbOpt = None,
    ) -> None:
        """Set the dashboard password (kept as a salted scrypt hash, sealed in the database)."""
        from .dashboard.auth import set_password as store_password

        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = typer.prompt(
                "New dashboard password", hide_input=True, confirmation_prompt=True
            )
        with _errors(False), Memory.open(db) as mem:
            store_password(mem, password)
        out.print("dashboard password set")

    app.add_typer(dashboard_app, name="dashboard")

    # -- agent keys --------------------------------------------------------------------------
    @keys_app.command("add-agent")
    @with_flags
    def add_agent(
        flags: dict[str, Any],
        name: Annotated[str, typer.Argument(help="A name for the agent, e.g. discord-bot.")],
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Create an API key for an agent and print its token once. Pin it to one identity
        with the context flags (--as ACTOR --dm, --guild G, ...) to let it use MCP."""
        from .http.auth import AgentKeys
        from .http.schemas import ContextIn

        with _errors(as_json):
            pin = None
            if _flags_given(flags):
                build_context(**flags)  # the same validation as every other command
                pin = ContextIn.model_validate(pin_spec(flags))
            with Memory.open(db) as mem:
                token = AgentKeys(mem).add(name, pin)
        if as_json:
            print(json.dumps({"name": name, "token": token, "pinned": pin is not None}))
            return
        out.print(f"agent key [bold]{name}[/bold] created. Its token (shown only now):")
        print(token)
        out.print("Send it as: Authorization: Bearer <token>")

    @keys_app.command("list-agents")
    def list_agents(db: DbOpt = None, as_json: JsonOpt = False) -> None:
        """List agent keys: names, creation time, pinned identity. Never the tokens."""
        from .http.auth import AgentKeys

        with _errors(as_json), Memory.open(db) as mem:
            keys = [k.describe(show_pinned=True) for k in AgentKeys(mem).list()]
        if as_json:
            print(json.dumps({"agents": keys}))
            return
        if not keys:
            out.print("no agent keys")
            return
        t = Table("name", "created", "pinned to")
        for k in keys:
            pin = k["pinned"]
            t.add_row(
                k["name"],
                k["created"],
                " ".join(f"{a}={b}" for a, b in pin.items()) if pin else "-",
            )
        out.print(t)

    @keys_app.command("revoke-agent")
    def revoke_agent(
        name: Annotated[str, typer.Argument(help="The agent key's name.")],
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Revoke an agent key; a running server refuses it from the next request on."""
        from .http.auth import AgentKeys

        with _errors(as_json), Memory.open(db) as mem:
            AgentKeys(mem).revoke(name)
        if as_json:
            print(json.dumps({"revoked": name}))
        else:
            out.print(f"revoked {name}")
