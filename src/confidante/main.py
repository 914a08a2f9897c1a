"""The `confidante` command: the CLI surface plus the two commands that start the network
surfaces, `serve` (API, dashboard and `/mcp` over HTTP) and `mcp` (MCP over stdio).

Like `server`, this is where surfaces are put together; the surfaces never import each
other. FastAPI, uvicorn and the MCP SDK are imported inside the commands, so the rest of
the CLI starts fast.
"""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Any

import typer

try:  # typer vendors click from 0.2x on; its exceptions are what the parser raises
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover
    from click import exceptions as cx  # type: ignore[no-redef]

from .errors import InvalidContext
from .memory import Memory
from .model import Context
from .surfaces.cli.agents import flags_given, with_flags
from .surfaces.cli.app import app
from .surfaces.cli.flags import DbOpt, build_context, err, errors


def _log_to_stderr() -> None:
    """The server's own messages (cleanup runs, unexpected errors by type) beside uvicorn's."""
    log = logging.getLogger("confidante")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


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

    from .config import ServerSettings
    from .server import create_app
    from .services.credentials import password_is_set

    with errors(False):
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


@app.command("mcp")
@with_flags
def mcp_stdio(flags: dict[str, Any], db: DbOpt = None) -> None:
    """Serve the memory tools over MCP stdio, as the local owner, or as the identity the
    context flags pin (e.g. --as discord:42 --dm)."""
    from .surfaces.mcp import run_stdio

    with errors(False):
        mem = Memory.open(db)
        if flags_given(flags):
            ctx = build_context(**flags)
        else:
            owner = mem.first_owner()
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


def usage_message(e: cx.UsageError) -> str:
    """Click's usage errors quote what was typed ("'sk_live_...' is not a valid integer");
    this names only the parameter, which is ours."""
    if isinstance(e, cx.MissingParameter):
        return e.format_message()
    if isinstance(e, cx.BadParameter):
        param = e.param
        names = "/".join(getattr(param, "opts", None) or ()) or getattr(param, "name", None)
        return f"invalid value for {names or 'an argument'}"
    if isinstance(e, cx.NoSuchOption):
        return "no such option"
    return "malformed command line"


def main() -> None:
    try:
        # Not standalone, so usage errors reach us; an Exit comes back as its code.
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except cx.NoArgsIsHelpError as e:
        e.show()
        sys.exit(e.exit_code)
    except cx.UsageError as e:
        command = e.ctx.command_path if e.ctx is not None else "confidante"
        print(f"error: {usage_message(e)} (see `{command} --help`)", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):  # pragma: no cover
        sys.exit(130)
    except cx.ClickException as e:  # pragma: no cover - other click errors carry no input
        e.show()
        sys.exit(e.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
