"""The `confidante` command: the CLI surface plus the two commands that start the network
surfaces, `serve` (API, dashboard and `/mcp` over HTTP) and `mcp` (MCP over stdio).

Like `server`, this is where surfaces are put together; the surfaces never import each
other. FastAPI, uvicorn, the MCP SDK, the engine and the settings model are imported inside
the commands, so `confidante --help` and the rest of the CLI start fast.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import logging
import re
import socket
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

try:  # typer vendors click from 0.2x on; its exceptions are what the parser raises
    from typer._click import exceptions as cx
except ImportError:  # pragma: no cover
    from click import exceptions as cx  # type: ignore[no-redef]

from ._version import __version__
from .errors import ConfidanteError, InvalidInput, OwnerMissing
from .model import Context
from .surfaces.cli import gate
from .surfaces.cli.app import app
from .surfaces.cli.flags import (
    EXIT_ERROR,
    EXIT_USAGE,
    CreateOpt,
    DbOpt,
    build_context,
    coded,
    db_target,
    err,
    errors,
    flags_given,
    is_server_url,
    open_memory,
    pinned_context,
    settings,
    with_flags,
)
from .surfaces.cli.setup import NO_OWNER, OwnerOpt, print_setup, set_up


def _log_to_stderr() -> None:
    """The server's own messages (cleanup runs, unexpected errors by type) beside uvicorn's."""
    log = logging.getLogger("confidante")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


def server_urls(host: str, port: int) -> dict[str, str]:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    base = f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"
    return {
        "api": f"{base}/v1",
        "docs": f"{base}/docs",
        "dashboard": f"{base}/dashboard",
        "mcp": f"{base}/mcp",
    }


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(help="TCP port (0: any free one, shown in the banner).", min=0, max=65535)
    ] = 8765,
    cleanup_days: Annotated[
        float | None,
        typer.Option(
            "--cleanup-days",
            help="Run cleanup every N days (0: never; default CONFIDANTE_CLEANUP_INTERVAL_DAYS"
            " or 7).",
        ),
    ] = None,
    owner: OwnerOpt = None,
    db: DbOpt = None,
    create: CreateOpt = False,
) -> None:
    """Serve the HTTP API (/v1, docs at /docs), the dashboard (/dashboard) and MCP (/mcp) in
    one process. On a fresh machine it first sets up the database, asks for the owner (or
    takes --owner / CONFIDANTE_OWNER_IDS) and prints a dashboard password and an agent key
    once. A database named by --db or CONFIDANTE_DB is created only with --create (a typo
    must not start an empty memory)."""
    with errors(False):
        listener = _claim_port(host, port)  # before anything is set up or printed
    port = listener.getsockname()[1]  # the one taken, for --port 0
    import uvicorn

    from .config import ServerSettings, setting_source, shown_db
    from .server import create_app
    from .services.credentials import password_is_set

    try:
        with errors(False):
            loaded = settings()
            target = db_target(db)
            fresh = not is_server_url(target) and not Path(target).exists()
            named = db is not None or setting_source("db") != "default"
            if fresh and named and not create:
                open_memory(target)  # the database_missing error, with what to run
            if fresh or owner:
                print_setup(set_up(target, owner))
            mem = open_memory(target)
            if not mem.owners:
                mem.close()
                raise OwnerMissing(NO_OWNER + ", then `confidante serve` again")
            if not password_is_set(mem):
                err.print("no dashboard password yet: run `confidante dashboard set-password`")
    except BaseException:
        listener.close()
        raise
    if cleanup_days is None:
        cleanup_days = loaded.cleanup_interval_days
    server_settings = ServerSettings(host=host, port=port, cleanup_days=cleanup_days)
    _log_to_stderr()
    urls = server_urls(host, port)
    owners = ", ".join(sorted(mem.owners))
    print(f"confidante {__version__}: owner {owners}, database {shown_db(target)}")
    print(f"  HTTP API   {urls['api']}   (Authorization: Bearer <agent key>)")
    print(f"  API docs   {urls['docs']}   (ReDoc: /redoc, OpenAPI: /openapi.json)")
    print(f"  dashboard  {urls['dashboard']}")
    print(f"  MCP        {urls['mcp']}   (an agent key pinned to an identity)")
    sys.stdout.flush()
    try:
        # No access log: request lines carry dashboard search terms in their query strings.
        config = uvicorn.Config(
            create_app(mem, server_settings),
            host=host,
            port=port,
            proxy_headers=False,
            access_log=False,
        )
        server = uvicorn.Server(config)
        # the socket claimed above: nothing else can take the port in between
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: a graceful stop, as uvicorn.run
            server.run(sockets=[listener])
    finally:
        listener.close()
        mem.close()
    if not server.started:
        sys.exit(EXIT_ERROR)  # the app did not start (uvicorn logged why)


def _claim_port(host: str, port: int) -> socket.socket:
    """Bind the server's socket first: a busy port is one coded line (`port_in_use`), before
    any set-up runs and before the banner and its URLs are printed."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise InvalidInput("--host: not an address this machine can listen on") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise coded(
                "port_in_use",
                f"port {port} on {host} is in use (another `confidante serve`?): stop it, or "
                "choose another with --port",
                409,
            ) from None
        raise InvalidInput(
            f"cannot listen on {host}:{port} ({e.strerror or type(e).__name__}): choose another "
            "--host or --port"
        ) from None
    sock.set_inheritable(True)
    return sock


@app.command("mcp")
@with_flags
def mcp_stdio(flags: dict[str, Any], db: DbOpt = None) -> None:
    """Serve the memory tools over MCP stdio, as the local owner, or as the identity the
    context flags pin (e.g. --as discord:42 --dm) or the agent host sets in
    CONFIDANTE_CONTEXT.

    MCP clients start this with a bare environment: when the database is missing or has no
    owner, the server still starts and every tool answers with what to run, instead of the
    client seeing only a closed connection."""
    from .surfaces.mcp import run_stdio, run_unavailable

    try:
        with errors(False):
            ctx = pinned_context(flags) or (build_context(**flags) if flags_given(flags) else None)
        mem = open_memory(db)
    except ConfidanteError as e:
        run_unavailable(f"{e.code}: {e.message}")
        return
    if ctx is None:
        owner = mem.first_owner()
        if owner is None:
            mem.close()
            run_unavailable(f"owner_missing: {NO_OWNER} (or pin an identity: --as ACTOR --dm)")
            return
        ctx = Context.local(owner)
    try:
        run_stdio(mem, ctx)
    finally:
        mem.close()


# what a mistyped name may look like to be repeated back: a command or option word, never a
# value (a secret typed in the wrong place has digits, capitals or other marks in it)
_SHOWABLE = re.compile(r"^-{0,2}[a-z][a-z-]{0,31}$")
_NO_SUCH_COMMAND = re.compile(r"^No such command (['\"])(.*?)\1")


def _closest(typed: str, known: list[str]) -> str:
    """` (did you mean --token?)` for the nearest of our own names, if one is near."""
    near = difflib.get_close_matches(typed, known, n=1, cutoff=0.6)
    return f" (did you mean {near[0]}?)" if near else ""


def _named(what: str, typed: str, known: list[str]) -> str:
    shown = f" {typed}" if _SHOWABLE.match(typed) else ""
    return f"{what}{shown}{_closest(typed, known)}"


def _option_names(ctx: Any) -> list[str]:
    command = getattr(ctx, "command", None)
    names = [o for p in getattr(command, "params", ()) for o in (*p.opts, *p.secondary_opts)]
    return [n for n in names if n.startswith("-")] + ["--help"]


def usage_message(e: cx.UsageError) -> str:
    """Click's usage errors quote what was typed ("'sk_live_...' is not a valid integer");
    this names the parameter, which is ours, and a mistyped command or option only when it
    looks like one (never a value), with the closest of ours."""
    if isinstance(e, cx.MissingParameter):
        return e.format_message()
    if isinstance(e, cx.BadParameter):
        param = e.param
        names = "/".join(getattr(param, "opts", None) or ()) or getattr(param, "name", None)
        return f"invalid value for {names or 'an argument'}"
    if isinstance(e, cx.NoSuchOption):
        typed = e.option_name.split("=", 1)[0]
        return _named("no such option", typed, _option_names(e.ctx))
    if isinstance(e, cx.BadOptionUsage):  # a known option used wrongly: it names only ours
        return e.format_message().rstrip(".")
    found = _NO_SUCH_COMMAND.match(e.message)
    if found is not None:
        commands = sorted(getattr(getattr(e.ctx, "command", None), "commands", {}) or {})
        return _named("no such command", found.group(2), commands)
    if e.message.startswith("Got unexpected extra argument"):
        return "unexpected extra argument (quote a text with spaces, or pass - and use stdin)"
    return "malformed command line"


def main() -> None:
    command = typer.main.get_command(app)
    # CONFIDANTE_CONTEXT (an agent host) and CONFIDANTE_URL (client mode) allow only a few
    # commands: checked here, once, for every command, before any of them runs
    gate.install(command)
    try:
        # Not standalone, so usage errors reach us; an Exit comes back as its code.
        # one program name however it is started (`python -m confidante` too): completion
        # scripts and help text name the command a user types
        code = command.main(prog_name="confidante", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except cx.NoArgsIsHelpError as e:
        e.show()
        sys.exit(e.exit_code)
    except cx.UsageError as e:
        command = e.ctx.command_path if e.ctx is not None else "confidante"
        print(f"error: {usage_message(e)} (see `{command} --help`)", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except (typer.Abort, KeyboardInterrupt):  # pragma: no cover
        sys.exit(130)
    except cx.ClickException as e:  # pragma: no cover - other click errors carry no input
        e.show()
        sys.exit(e.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
