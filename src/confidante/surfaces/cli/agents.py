"""CLI commands for the credentials the server checks: agent API keys (`keys add-agent`,
`list-agents`, `revoke-agent`) and the dashboard password (`dashboard set-password`)."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from ...errors import InvalidContext
from ...policy import AGENT_SURFACES
from ...services.credentials import DEFAULT_DELEGATION_SECONDS, AgentKeys, set_password
from ...services.paging import iso
from .flags import (
    DbOpt,
    JsonOpt,
    build_context,
    emit,
    errors,
    flags_given,
    flags_spec,
    open_memory,
    out,
    with_flags,
)


def pin_spec(flags: dict[str, Any]) -> dict[str, Any]:
    """The context spec for the surface flags (what a pinned agent key speaks as)."""
    ctx = build_context(**flags)  # the same validation as every other command
    if ctx.surface not in AGENT_SURFACES:
        raise InvalidContext(
            "an agent key cannot be pinned to --owner-dashboard, --dashboard or --local: "
            "those are the owner's own flows (use --dm, --guild, --group or --background)"
        )
    return flags_spec(flags)


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
        from rich.table import Table

        t = Table("name", "created", "pinned to")
        for k in keys:
            pin = k["pinned"]
            t.add_row(
                k["name"],
                k["created"],
                " ".join(f"{a}={b}" for a, b in pin.items()) if pin else "-",
            )
        out.print(t)

    @keys_app.command("mint-token")
    @with_flags
    def mint_token(
        flags: dict[str, Any],
        parent: Annotated[
            str, typer.Argument(help="An agent key that is not pinned, e.g. discord-bot.")
        ],
        ttl: Annotated[
            int,
            typer.Option("--ttl", help="Seconds until it stops working (at most 86400)."),
        ] = DEFAULT_DELEGATION_SECONDS,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Mint a short-lived token that speaks only as one context (--as ACTOR --dm,
        --guild G, ...), for the agent key PARENT, and print it once. For an agent host
        serving many people: give the model's shell this token for the current message,
        never PARENT's. It stops working after --ttl seconds, or when PARENT is revoked;
        nothing is stored. The server's twin: POST /v1/agent-tokens."""
        with errors(as_json):
            if not flags_given(flags):
                raise InvalidContext("name the context the token speaks as (--as ACTOR --dm, ...)")
            pin = pin_spec(flags)
            with open_memory(db) as mem:
                token, expires = AgentKeys(mem).delegate(parent, pin, ttl)
        data = {"parent": parent, "token": token, "expires_at": iso(expires), "ttl_seconds": ttl}
        if as_json:
            print(json.dumps(data))
            return
        out.print(f"token for [bold]{parent}[/bold], until {data['expires_at']} (shown only now):")
        print(token)

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
