"""CLI commands for the credentials the server checks: agent API keys (`keys add-agent`,
`list-agents`, `revoke-agent`) and the dashboard password (`dashboard set-password`)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer
from rich.table import Table

from ...errors import InvalidContext
from ...policy import AGENT_SURFACES
from ...services.credentials import AgentKeys, set_password
from .flags import DbOpt, JsonOpt, build_context, context_flags, emit, errors, open_memory, out


def flags_given(flags: dict[str, Any]) -> bool:
    return any(v not in (None, False) for v in flags.values())


def pin_spec(flags: dict[str, Any]) -> dict[str, Any]:
    """The context spec for the surface flags (what a pinned agent key speaks as)."""
    ctx = build_context(**flags)  # the same validation as every other command
    if ctx.surface not in AGENT_SURFACES:
        raise InvalidContext(
            "an agent key cannot be pinned to --owner-dashboard, --dashboard or --local: "
            "those are the owner's own flows (use --dm, --guild, --group or --background)"
        )
    people = [p.strip() for p in (flags.get("participants") or "").split(",") if p.strip()]
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


# The command receives the raw flags (a key may be unpinned, so no context is required).
with_flags = context_flags("flags", lambda flags, _kwargs: flags)


def register(app: typer.Typer, keys_app: typer.Typer) -> None:
    """Add `dashboard set-password` to `app`, and `add-agent`, `list-agents`, `revoke-agent`
    to `keys_app`."""
    dashboard_app = typer.Typer(help="The owner's dashboard.", no_args_is_help=True)

    @dashboard_app.command("set-password")
    def set_password_cmd(
        password_stdin: Annotated[
            bool, typer.Option("--password-stdin", help="Read the password from stdin.")
        ] = False,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Set the dashboard password (kept as a salted scrypt hash, sealed in the database)."""
        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = typer.prompt(
                "New dashboard password", hide_input=True, confirmation_prompt=True
            )
        with errors(as_json), open_memory(db) as mem:
            set_password(mem, password)
        emit(as_json, {"password_set": True}, lambda: out.print("dashboard password set"))

    app.add_typer(dashboard_app, name="dashboard")

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
        with errors(as_json):
            pin = pin_spec(flags) if flags_given(flags) else None
            with open_memory(db) as mem:
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
        with errors(as_json), open_memory(db) as mem:
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
        with errors(as_json), open_memory(db) as mem:
            AgentKeys(mem).revoke(name)
        if as_json:
            print(json.dumps({"revoked": name}))
        else:
            out.print(f"revoked {name}")
