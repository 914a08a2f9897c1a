"""Setting up a deployment: `init` (database, key file, owner, first credentials), what
`serve` runs on a fresh home, and `config` (the effective settings and their reference).

The owner is asked for when a person is at the terminal; otherwise it comes from `--owner`
or CONFIDANTE_OWNER_IDS, and without one nothing is created and the message says the one
command to run. The dashboard password and the first agent key are generated here and
printed once; only their hashes are kept.
"""

from __future__ import annotations

import json
import secrets
import select
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...errors import ConfidanteError, InvalidActor, OwnerMissing
from ...model import qualify_actor
from .flags import DbOpt, JsonOpt, db_target, emit, err, errors, is_server_url, out, settings

if TYPE_CHECKING:
    from ...config import Settings

FIRST_AGENT = "first-agent"
OWNER_HELP = (
    "Your own id on your chat platform, as platform:id (e.g. discord:123456789012345678; a "
    "bare id when CONFIDANTE_DEFAULT_PLATFORM is set); repeat for each platform you use."
)
OwnerOpt = Annotated[list[str] | None, typer.Option("--owner", help=OWNER_HELP)]
NO_OWNER = (
    "no owner is configured: run `confidante init --owner platform:id` with your own chat id "
    "(e.g. discord:123456789012345678), or set CONFIDANTE_OWNER_IDS"
)


@dataclass
class Setup:
    """What a set-up did; the secrets exist only in this object, to be shown once."""

    db: str
    created: bool
    key_file: str | None
    owners: list[str]
    owner_source: str | None
    dashboard_password: str | None = None
    agent_name: str | None = None
    agent_token: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "created": self.created,
            "key_file": self.key_file,
            "owners": self.owners,
            "owner_source": self.owner_source,
            "dashboard_password": self.dashboard_password,
            "agent_key": (
                {"name": self.agent_name, "token": self.agent_token} if self.agent_token else None
            ),
        }


def _split_owners(values: list[str] | None) -> list[str]:
    return [p.strip() for v in values or [] for p in v.split(",") if p.strip()]


def qualified_owners(values: list[str] | None, default_platform: str | None) -> list[str]:
    """Owner ids as given (`--owner`, a piped line, the prompt): `platform:id`, or a bare
    numeric id on the configured default platform (`model.qualify_actor`)."""
    return [qualify_actor(o, default_platform) for o in _split_owners(values)]


def _ask_owner(platform: str | None) -> list[str]:
    """Ask at the terminal (only there: a pipe or a service has nobody to answer)."""
    out.print(
        "Who owns this memory? Only the owner reads owner-private memory and logs into the "
        "dashboard."
    )
    while True:
        answer = typer.prompt("Your own chat id (platform:id, e.g. discord:123456789012345678)")
        try:
            return qualified_owners([answer], platform)
        except InvalidActor as e:
            err.print(f"[red]{e.message}[/red]")


def interactive() -> bool:
    return sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()


def _piped_owner(platform: str | None) -> list[str] | None:
    """An owner id piped in (`echo discord:1 | confidante serve`), if a line is there
    already: never wait on a pipe nobody writes to."""
    if sys.stdin is None or sys.stdin.closed:
        return None
    try:
        ready, _, _ = select.select([sys.stdin], [], [], 0.2)
    except (OSError, ValueError):  # not a selectable stream
        return None
    line = sys.stdin.readline().strip() if ready else ""
    return qualified_owners([line], platform) if line else None


def set_up(
    db: str | None,
    owners: list[str] | None = None,
    *,
    credentials: bool = True,
    ask: bool | None = None,
) -> Setup:
    """Create (or complete) a deployment: the database and its key file, the owner, and, when
    it has none yet, a dashboard password and a first agent key. Nothing is created when no
    owner can be found."""
    from ...engine import key_file_path
    from ...memory import Memory
    from ...services.credentials import AgentKeys, password_is_set, set_password
    from .flags import check_database_path

    loaded = settings()
    target = db_target(db)
    server = is_server_url(target)
    if not server:
        check_database_path(target)
    existed = not server and Path(target).exists()
    given = qualified_owners(owners, loaded.default_platform)
    stored: list[str] = []
    if existed or server:
        with Memory.open(target, settings=loaded, create_key=True) as probe:
            stored = probe.stored_owners()
    chosen = given or list(loaded.owner_ids) or stored
    if not chosen:
        at_terminal = interactive() if ask is None else ask
        if at_terminal:
            chosen = _ask_owner(loaded.default_platform)
        elif not interactive():  # never read a terminal without asking
            chosen = _piped_owner(loaded.default_platform) or []
        if not chosen:
            raise OwnerMissing(NO_OWNER)
    with Memory.open(target, settings=loaded) as mem:
        if chosen != stored:
            mem.store_owners(chosen)
        key_file = loaded.key_file if server else key_file_path(Path(target), loaded)
        report = Setup(
            db=_shown(target),
            created=not existed and not server,
            key_file=str(key_file) if key_file and key_file.exists() else None,
            owners=sorted(mem.owners),
            owner_source=mem.owner_source,
        )
        if loaded.owner_ids and given and set(given) != set(loaded.owner_ids):
            report.notes.append(
                "CONFIDANTE_OWNER_IDS (or owner_ids in the config file) still takes precedence "
                "over the owner stored in the database"
            )
        keys = AgentKeys(mem)
        if credentials and not password_is_set(mem) and not keys.list():
            report.dashboard_password = secrets.token_urlsafe(15)
            set_password(mem, report.dashboard_password)
            report.agent_name = FIRST_AGENT
            report.agent_token = keys.add(FIRST_AGENT)
    return report


def print_setup(report: Setup) -> None:
    out.print(f"{'initialised' if report.created else 'ready'}: {report.db}")
    if report.key_file:
        out.print(f"master key file: {report.key_file} (mode 0600; back it up, apart from the db)")
    out.print(f"owner: {', '.join(report.owners)} (from the {report.owner_source})")
    for note in report.notes:
        err.print(f"[yellow]note[/yellow]: {note}")
    if report.dashboard_password:
        # plain print: a console may wrap or style a long secret
        print()
        print("Shown only now; keep them somewhere safe:")
        print(f"  dashboard password: {report.dashboard_password}")
        print("    (log in at /dashboard; change it with `confidante dashboard set-password`)")
        print(f"  agent key ({report.agent_name}): {report.agent_token}")
        print("    (for the HTTP API: Authorization: Bearer <key>; more with `confidante keys")
        print("    add-agent NAME`, pinned to an identity with --as ACTOR --dm for /mcp)")
        print(f"  export TOKEN={report.agent_token}")
        print()


def register(app: typer.Typer) -> None:
    """Add `init` and `config` to the command line."""

    @app.command()
    def init(
        owner: OwnerOpt = None,
        no_credentials: Annotated[
            bool,
            typer.Option(
                "--no-credentials", help="Do not create the dashboard password and agent key."
            ),
        ] = False,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Set up a deployment: the database, its master key file (mode 0600), the owner
        (asked at a terminal, else --owner or CONFIDANTE_OWNER_IDS), and a dashboard password
        and first agent key, printed once. Run again to change the owner."""
        with errors(as_json):
            report = set_up(
                db, owner, credentials=not no_credentials, ask=False if as_json else None
            )
        emit(as_json, report.to_dict(), lambda: print_setup(report))

    @app.command("config")
    def config_cmd(
        show: Annotated[
            bool, typer.Option("--show", help="The effective settings (secrets masked).")
        ] = False,
        ref: Annotated[
            bool,
            typer.Option("--reference", help="Every setting: variable, TOML key, default."),
        ] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Show the effective configuration (--show, the default: every setting, where it
        comes from, the lifetime of each scope's facts, the owners) or the reference of every
        setting (--reference, as Markdown)."""
        from ...config import (
            default_config_path,
            effective,
            lifetimes,
            reference,
            reference_markdown,
        )

        del show  # the default view
        with errors(as_json):
            if ref:
                rows = [r.__dict__ for r in reference()]
                emit(as_json, {"settings": rows}, lambda: print(reference_markdown()))
                return
            loaded = settings()
            values = effective(loaded)
            days = lifetimes(loaded)
            owners = owners_in_effect(loaded)
        data = {
            "config_file": str(default_config_path()),
            "settings": values,
            "lifetimes_days": days,
            "owners": owners,
        }

        def human() -> None:
            from rich.table import Table

            path = default_config_path()
            out.print(f"config file: {path}{'' if path.exists() else ' (none)'}")
            t = Table("setting", "value", "from")
            for v in values:
                t.add_row(
                    v["env"], json.dumps(v["value"]) if v["value"] is not None else "-", v["source"]
                )
            out.print(t)
            out.print(
                "lifetimes (days, unless a kind or the write says otherwise): "
                + ", ".join(f"{scope} {_days(n)}" for scope, n in days.items())
            )
            out.print(
                "owners in effect: "
                + (
                    ", ".join(owners["ids"]) + f" (from the {owners['source']})"
                    if owners["ids"]
                    else "none"
                )
            )

        emit(as_json, data, human)


def _days(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else f"{n:g}"


def _shown(target: str) -> str:
    from ...config import shown_db

    return shown_db(target)


def owners_in_effect(loaded: Settings) -> dict[str, Any]:
    """The owners in effect: configuration first, else what the database stores."""
    if loaded.owner_ids:
        return {"ids": list(loaded.owner_ids), "source": "configuration"}
    target = str(loaded.db)
    if not is_server_url(target) and not Path(target).exists():
        return {"ids": [], "source": None}
    from ...memory import Memory

    try:
        with Memory.open(target, settings=loaded) as mem:
            return {"ids": mem.stored_owners(), "source": "database"}
    except ConfidanteError:  # a config view must not fail on an unopenable database
        return {"ids": [], "source": "unknown (the database did not open)"}
