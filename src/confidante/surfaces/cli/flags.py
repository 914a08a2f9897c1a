"""What every CLI command shares: the database and `--json` options, the context flags
(`--as ACTOR` plus exactly one surface flag, display names, a guild asked about) or the
context an agent host pins in `CONFIDANTE_CONTEXT`, text read from stdin (`-`), JSON
options, and how errors are printed and what they exit with.

It is also the one place that decides whether a memory command runs on a local database or,
in client mode (`CONFIDANTE_URL` set), against a running server: `_context_from_flags` and
`memory_for` both ask `client.client_mode()`.

Only light modules are imported here: the settings (pydantic), the engine and its models,
and the database drivers load inside the functions that need them, so `--help`, `version`
and client mode start quickly.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from ...errors import (
    AccessDenied,
    ConfidanteError,
    ConfigError,
    DatabaseMissing,
    InvalidContext,
    InvalidFilter,
    InvalidInput,
    OwnerMissing,
)
from ...model import Context
from .client import URL_ENV, RemoteMemory, SentContext, client_mode

if TYPE_CHECKING:
    from ...config import Settings
    from ...memory import Memory

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])

# --- exit codes -------------------------------------------------------------------------------

EXIT_ERROR = 1  # an error: bad input, a missing database, a server down, ...
EXIT_USAGE = 2  # the command line itself: an unknown command or option, a missing argument
EXIT_REFUSED = 3  # refused by policy: who may read or write what (HTTP 403 codes)

# --- shared options ---------------------------------------------------------------------------

DbOpt = Annotated[
    str | None,
    typer.Option("--db", help="Database file or postgresql:// URL (default: CONFIDANTE_DB)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
CreateOpt = Annotated[
    bool,
    typer.Option("--create", help="Create the database if there is none (default: an error)."),
]

_CONTEXT_PARAMS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annot)
    for name, default, annot in [
        ("actor", None, Annotated[str | None, typer.Option("--as", help="Actor, platform:id.")]),
        ("dm", False, Annotated[bool, typer.Option("--dm", help="A direct message.")]),
        ("guild", None, Annotated[str | None, typer.Option("--guild", help="Guild/server id.")]),
        ("channel", None, Annotated[str | None, typer.Option("--channel", help="Channel id.")]),
        (
            "participants",
            None,
            Annotated[str | None, typer.Option("--participants", help="Comma-separated actors.")],
        ),
        ("voice", False, Annotated[bool, typer.Option("--voice", help="A voice channel.")]),
        ("group", None, Annotated[str | None, typer.Option("--group", help="Group chat id.")]),
        (
            "owner_dashboard",
            False,
            Annotated[bool, typer.Option("--owner-dashboard", help="The explicit owner flow.")],
        ),
        (
            "dashboard",
            False,
            Annotated[bool, typer.Option("--dashboard", help="The general inspector.")],
        ),
        ("local", False, Annotated[bool, typer.Option("--local", help="The owner's own CLI.")]),
        (
            "background",
            None,
            Annotated[str | None, typer.Option("--background", help="A background task name.")],
        ),
        (
            "names",
            None,
            Annotated[
                str | None,
                typer.Option(
                    "--names",
                    help='Display names here, a JSON object: \'{"discord:42": "Alice"}\' '
                    "(--dm, --guild, --group).",
                ),
            ],
        ),
        (
            "about_guild",
            None,
            Annotated[
                str | None,
                typer.Option(
                    "--about-guild",
                    help="The owner asking about a guild (or group:CHAT) in their own DM, "
                    "--local or --owner-dashboard: its memory joins the recall.",
                    metavar="GUILD",
                ),
            ],
        ),
    ]
]
_CONTEXT_NAMES = [p.name for p in _CONTEXT_PARAMS]


def json_object(raw: str | None, option: str, error: type[ConfidanteError] = InvalidInput) -> Any:
    """The JSON object an option holds (`--metadata`, `--filter`, `--names`), or None. The
    value is never repeated in the error: it may hold anything."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        raise error(f"{option} must be a JSON object, e.g. {_EXAMPLES[option]}") from None
    if not isinstance(value, dict):
        raise error(f"{option} must be a JSON object, e.g. {_EXAMPLES[option]}")
    return value


_EXAMPLES = {
    "--metadata": '\'{"category": "food"}\'',
    "--filter": '\'{"category": "food"}\' or \'{"kind": {"$in": ["fact", "habit"]}}\'',
    "--names": '\'{"discord:42": "Alice"}\'',
}


def build_context(
    *,
    actor: str | None,
    dm: bool = False,
    guild: str | None = None,
    channel: str | None = None,
    participants: str | None = None,
    voice: bool = False,
    group: str | None = None,
    owner_dashboard: bool = False,
    dashboard: bool = False,
    local: bool = False,
    background: str | None = None,
    names: str | None = None,
    about_guild: str | None = None,
) -> Context:
    """Turn the surface flags into a Context; exactly one surface must be chosen."""
    chosen = [
        name
        for name, on in [
            ("--dm", dm),
            ("--guild", guild is not None),
            ("--group", group is not None),
            ("--owner-dashboard", owner_dashboard),
            ("--dashboard", dashboard),
            ("--local", local),
            ("--background", background is not None),
        ]
        if on
    ]
    if len(chosen) != 1:
        raise InvalidContext(
            "choose exactly one of --dm, --guild, --group, --owner-dashboard, --dashboard, "
            "--local, --background"
        )
    shown = json_object(names, "--names", InvalidContext)
    if shown is not None and chosen[0] not in ("--dm", "--guild", "--group"):
        raise InvalidContext("--names goes with --dm, --guild or --group")
    if about_guild is not None and chosen[0] not in ("--dm", "--local", "--owner-dashboard"):
        raise InvalidContext("--about-guild goes with --dm, --local or --owner-dashboard")
    people = [p.strip() for p in (participants or "").split(",") if p.strip()]
    if background is not None:
        return Context.background(background)
    if dashboard:
        return Context.dashboard(actor)
    if actor is None:
        raise InvalidContext(f"{chosen[0]} needs --as ACTOR")
    if dm:
        return Context.dm(actor, names=shown, about_guild=about_guild)
    if guild is not None:
        return Context.guild(
            actor, guild, channel=channel, participants=people, voice=voice, names=shown
        )
    if group is not None:
        return Context.group_dm(actor, group, participants=people, names=shown)
    if owner_dashboard:
        return Context.owner_dashboard(actor, about_guild=about_guild)
    return Context.local(actor, about_guild=about_guild)


def flags_given(flags: dict[str, Any]) -> bool:
    return any(v not in (None, False) for v in flags.values())


def flags_spec(flags: dict[str, Any]) -> dict[str, Any]:
    """The API's context object for the context flags, after the same validation as every
    command (exactly one surface, well-formed actors and names)."""
    build_context(**flags)
    people = [p.strip() for p in (flags.get("participants") or "").split(",") if p.strip()]
    actor = flags.get("actor")
    extra: dict[str, Any] = {}
    if flags.get("names") is not None:
        extra["names"] = json_object(flags["names"], "--names", InvalidContext)
    if flags.get("about_guild") is not None:
        extra["about_guild"] = flags["about_guild"]
    if flags.get("background") is not None:
        return {"surface": "background", "task": flags["background"]}
    if flags.get("dashboard"):
        return {"surface": "dashboard", **({"actor": actor} if actor else {})}
    if flags.get("group") is not None:
        return {
            "surface": "group_dm",
            "actor": actor,
            "chat": flags["group"],
            "participants": people,
            **extra,
        }
    if flags.get("guild") is not None:
        spec = {
            "surface": "guild_voice" if flags.get("voice") else "guild_text",
            "actor": actor,
            "guild": flags["guild"],
            "participants": people,
            **extra,
        }
        if flags.get("channel"):
            spec["channel"] = flags["channel"]
        return spec
    if flags.get("owner_dashboard"):
        return {"surface": "owner_dashboard", "actor": actor, **extra}
    return {"surface": "dm" if flags.get("dm") else "local", "actor": actor, **extra}


def context_flags(
    param: str, convert: Callable[[dict[str, Any], dict[str, Any]], Any]
) -> Callable[[F], F]:
    """Add the context flags to a command; `convert(flags, other_kwargs)` makes the value
    the command receives as `param`."""

    def decorate(func: F) -> F:
        sig = inspect.signature(func, eval_str=True)
        params = [p for p in sig.parameters.values() if p.name != param]

        @functools.wraps(func)
        def wrapper(**kwargs: Any) -> Any:
            flags = {name: kwargs.pop(name) for name in _CONTEXT_NAMES}
            kwargs[param] = convert(flags, kwargs)
            return func(**kwargs)

        all_params = params + _CONTEXT_PARAMS
        wrapper.__signature__ = sig.replace(parameters=all_params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in all_params}
        return wrapper  # type: ignore[return-value]

    return decorate


CONTEXT_ENV = "CONFIDANTE_CONTEXT"
"""An agent host that runs the CLI for a chat message sets this to the message's context,
as the API takes it (`{"surface": "dm", "actor": "discord:42"}`, with `names` and
`about_guild` where the API takes them): the identity then comes from the host, never from
arguments a model wrote. Context flags are refused while it is set, and it may name only
what an agent key may (no owner-only surface)."""


def host_spec(flags: dict[str, Any]) -> dict[str, Any] | None:
    """The context object `CONFIDANTE_CONTEXT` holds, or None when it is not set; context
    flags beside it are refused."""
    raw = os.environ.get(CONTEXT_ENV)
    if raw is None:
        return None
    if flags_given(flags):
        raise InvalidContext(
            f"{CONTEXT_ENV} sets the context here (the agent host's): context flags are refused"
        )
    try:
        spec = json.loads(raw)
    except json.JSONDecodeError:
        spec = None
    if not isinstance(spec, dict):
        raise InvalidContext(f"{CONTEXT_ENV} must be a JSON context object (surface, actor, ...)")
    return spec


def pinned_context(flags: dict[str, Any]) -> Context | None:
    """The context `CONFIDANTE_CONTEXT` pins, or None when it is not set."""
    spec = host_spec(flags)
    if spec is None:
        return None
    from ...services.credentials import agent_context

    return agent_context(spec)


def _context_from_flags(flags: dict[str, Any], kwargs: dict[str, Any]) -> Context | SentContext:
    """Local mode: the Context itself. Client mode: what to send, so the server decides (the
    host's context or the flags; nothing, for a pinned token, to speak as its pin)."""
    with errors(kwargs.get("as_json", False)):
        if client_mode():
            spec = host_spec(flags)
            if spec is None and flags_given(flags):
                spec = flags_spec(flags)
            return SentContext(spec)
        return pinned_context(flags) or build_context(**flags)


STDIN = "-"
MAX_STDIN_BYTES = 1_048_576


def text_or_stdin(value: str) -> str:
    """`-` reads the text from stdin (UTF-8): a message never has to pass through a shell
    command line, where `$(...)` and backticks would run."""
    if value != STDIN:
        return value
    data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        raise InvalidInput(f"stdin is longer than {MAX_STDIN_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("stdin is not UTF-8 text") from None


with_context = context_flags("ctx", _context_from_flags)
"""The command receives `ctx: Context`, built from the flags."""

with_flags = context_flags("flags", lambda flags, _kwargs: flags)
"""The command receives the raw flags (for commands whose context may default)."""


def owner_context(flags: dict[str, Any], mem: Memory) -> Context:
    """The context of an owner command: the flags when given (the policy still decides),
    else the owner's own local context (`--as OWNER --local`)."""
    if flags_given(flags):
        return build_context(**flags)
    owner = mem.first_owner()
    if owner is None:
        raise OwnerMissing(
            "no owner is configured: run `confidante init --owner platform:id`, or name the "
            "context (--as OWNER --local)"
        )
    return Context.local(owner)


def exit_code(exc: ConfidanteError) -> int:
    """Policy refusals (the 403 codes) exit 3; every other error 1."""
    return EXIT_REFUSED if exc.http_status == 403 else EXIT_ERROR


class errors:
    """Print a ConfidanteError as `code: message` (or JSON) and exit non-zero."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        if isinstance(exc, ConfidanteError):
            if self.as_json:
                print(json.dumps({"error": {"code": exc.code, "message": exc.message}}))
            else:
                err.print(f"[red]error[/red] [bold]{exc.code}[/bold]: {exc.message}")
            raise typer.Exit(exit_code(exc))
        return False


def settings() -> Settings:
    """The settings in effect, checked where the settings model cannot check them itself:
    the embedder's name (its list lives with the embedders, a layer above the settings)."""
    from ...config import load_settings
    from ...recall.embedding import EMBEDDER_NAMES

    loaded = load_settings()
    name = loaded.embedder.strip().lower()
    if name != "default" and not _known_embedder(name):
        raise ConfigError(
            "CONFIDANTE_EMBEDDER (embedder): expected one of "
            + ", ".join(EMBEDDER_NAMES)
            + " (default: auto)"
        )
    return loaded


def _known_embedder(name: str) -> bool:
    # the embedders' own reading of a name (aliases included), without loading a model
    from ...recall.embedding import _canonical

    try:
        _canonical(name)
    except ValueError:
        return False
    return True


def coded(code: str, message: str, status: int) -> ConfidanteError:
    """An error of the CLI's own (its code in `errors.ERROR_CODES`), with its status."""
    e = ConfidanteError(message, code=code)
    e.http_status = status
    return e


def memory_for(db: str | None, *, create: bool = False) -> Memory | RemoteMemory:
    """What a memory command works on: in client mode the server at CONFIDANTE_URL (no local
    database or key file is touched, and naming one is refused), else the local database."""
    if client_mode():
        if db is not None or create:
            raise AccessDenied(
                "client_mode_forbids",
                f"--db and --create name a local database: in client mode ({URL_ENV} set) the "
                "server's database is used",
            )
        return RemoteMemory.from_env()
    return open_memory(db, create=create)


def db_target(db: str | None) -> str:
    """The database a command works on: `--db`, else CONFIDANTE_DB, else the default path."""
    return db or str(settings().db)


def is_server_url(target: str) -> bool:
    """A PostgreSQL URL (the same test as the store's, without loading its driver)."""
    return target.startswith(("postgresql://", "postgres://"))


SQLITE_HEADER = b"SQLite format 3\x00"


def check_database_path(target: str) -> None:
    """A `--db` that names a folder, or a file that is no SQLite database, is said to be
    what it is (before the engine would look for its key file and say the key is missing)."""
    path = Path(target)
    if path.is_dir():
        raise coded(
            "not_a_database", f"{target} is a folder, not a database file: name a file in it", 409
        )
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError:
        return  # missing or unreadable: the open says which
    if head and head != SQLITE_HEADER:
        raise coded(
            "not_a_database",
            f"{target} is not a confidante database (not an SQLite file): check --db / "
            "CONFIDANTE_DB",
            409,
        )


def open_memory(db: str | None, *, create: bool = False) -> Memory:
    """Open the database; one that does not exist is an error unless `create` (a mistyped
    --db must not quietly start a new, empty memory with a new key). Never in client mode:
    the gate refuses every command that would, and this refuses again."""
    if client_mode():
        raise AccessDenied(
            "client_mode_forbids", f"no local database is opened in client mode ({URL_ENV} set)"
        )
    loaded = settings()
    target = db or str(loaded.db)
    if not is_server_url(target):
        check_database_path(target)
        if not create and not Path(target).exists():
            raise DatabaseMissing(
                f"no database at {target}: run `confidante init` to create one "
                "(or pass --create), or check --db / CONFIDANTE_DB"
            )
    from ...memory import Memory

    return Memory.open(target, settings=loaded)


def emit(as_json: bool, data: Any, human: Callable[[], None]) -> None:
    """JSON for scripts (one object on stdout), or the human rendering."""
    if as_json:
        print(json.dumps(data, default=str))
    else:
        human()


def filters_with_skill(raw: str | None, skill: str | None) -> dict[str, Any] | None:
    """`--filter JSON` and `--skill NAME` (the filter `{"source_skill": NAME}`), together."""
    given = json_object(raw, "--filter", InvalidFilter)
    if skill is None:
        return given
    by_skill = {"source_skill": skill}
    return {"$and": [given, by_skill]} if given else by_skill
