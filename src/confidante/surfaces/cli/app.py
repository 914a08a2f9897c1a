"""`confidante` command line: every library call has a twin here, each with `--json`.

The conversation context comes from flags (`--as ACTOR` plus one surface flag). This
adapter only parses and prints; every decision is the core's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..._version import __version__
from ...config import Settings
from ...engine import key_file_path
from ...memory import Memory
from ...model import Context, Fact, Hit
from ...store.postgres import is_postgres_url
from . import agents, interop
from .flags import (
    DbOpt,
    JsonOpt,
    emit,
    errors,
    open_memory,
    out,
    with_context,
)

app = typer.Typer(
    name="confidante",
    help="Private-by-design long-term memory for agents that talk to many people.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _fact_table(facts: list[Fact], scores: list[float] | None = None) -> Table:
    t = Table(show_lines=False)
    t.add_column("id", style="dim", no_wrap=True)
    t.add_column("scope")
    if scores is not None:
        t.add_column("score", justify="right")
    t.add_column("text")
    for i, f in enumerate(facts):
        row = [f.id[:12], f.scope.value]
        if scores is not None:
            row.append(f"{scores[i]:.3f}")
        row.append(f.text)
        t.add_row(*row)
    return t


# --- commands ---------------------------------------------------------------------------------


@app.command()
def init(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Create the database, its installation secret and (unless CONFIDANTE_MASTER_KEY is
    set) a master key file with mode 0600 beside it."""
    with errors(as_json):
        target = db or str(Settings().db)
        server = is_postgres_url(target)
        existed = not server and Path(target).exists()
        Memory.open(target).close()
        key_file = None if server else key_file_path(Path(target), Settings())
        data = {
            "db": "postgresql" if server else target,  # never echo a URL: it may hold a password
            "key_file": str(key_file) if key_file and key_file.exists() else None,
            "created": not existed,
        }
        path = data["db"]
    emit(
        as_json,
        data,
        lambda: out.print(
            f"{'initialised' if not existed else 'already initialised'}: {path}"
            + (f"\nmaster key file: {key_file} (mode 0600; back it up)" if data["key_file"] else "")
        ),
    )


@app.command()
@with_context
def remember(
    text: Annotated[str, typer.Argument(help="What to remember.")],
    ctx: Context,
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="me, owner, guild, user:ID, ...")
    ] = None,
    kind: Annotated[str, typer.Option(help="Kind of fact.")] = "fact",
    skill: Annotated[str | None, typer.Option("--skill", help="Source skill.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remember a fact in the namespace this context may write."""
    with errors(as_json), open_memory(db) as mem:
        fact = mem.remember(ctx, text, namespace, kind=kind, source_skill=skill)
    emit(as_json, fact.to_dict(), lambda: out.print(f"remembered {fact.id} in {fact.scope}"))


@app.command()
@with_context
def recall(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    ctx: Context,
    k: Annotated[int, typer.Option("-k", help="How many hits.")] = 10,
    subjects: Annotated[
        str | None, typer.Option("--subjects", help="Widen (owner-private only): actors.")
    ] = None,
    guilds: Annotated[
        str | None, typer.Option("--guilds", help="Widen (owner-private only): guild ids.")
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall what this context may see, best first."""
    with errors(as_json), open_memory(db) as mem:
        hits: list[Hit] = mem.recall(
            ctx, query, k, subjects=_split(subjects), guilds=_split(guilds)
        )
    emit(
        as_json,
        {"hits": [h.to_dict() for h in hits]},
        lambda: out.print(
            _fact_table([h.fact for h in hits], [h.score for h in hits]) if hits else "no hits"
        ),
    )


@app.command()
@with_context
def get(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    ctx: Context,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show one fact, if this context may see it."""
    with errors(as_json), open_memory(db) as mem:
        fact = mem.get(ctx, fact_id)
    emit(as_json, fact.to_dict(), lambda: out.print(_fact_table([fact])))


@app.command()
@with_context
def forget(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    ctx: Context,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Forget one fact (its writer, its subject, or the owner in private)."""
    with errors(as_json), open_memory(db) as mem:
        mem.forget(ctx, fact_id)
    emit(as_json, {"forgotten": fact_id}, lambda: out.print(f"forgotten {fact_id}"))


@app.command("list")
@with_context
def list_(
    ctx: Context,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List every fact this context may see, newest first."""
    with errors(as_json), open_memory(db) as mem:
        facts = mem.list(ctx, limit=limit)
    emit(
        as_json,
        {"facts": [f.to_dict() for f in facts]},
        lambda: out.print(_fact_table(facts) if facts else "nothing visible here"),
    )


@app.command()
@with_context
def update(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    text: Annotated[str, typer.Argument(help="The new text.")],
    ctx: Context,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Replace a fact's text (its writer, its subject, or the owner in private)."""
    with errors(as_json), open_memory(db) as mem:
        fact = mem.update(ctx, fact_id, text)
    emit(as_json, fact.to_dict(), lambda: out.print(f"updated {fact.id}"))


@app.command()
@with_context
def context(
    query: Annotated[str, typer.Argument(help="What the conversation is about.")],
    ctx: Context,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Token budget.")] = 800,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the prompt context for this conversation: identity block plus recalled facts."""
    with errors(as_json), open_memory(db) as mem:
        text = mem.prompt_context(ctx, query, max_tokens=max_tokens)
    emit(as_json, {"context": text}, lambda: print(text))


@app.command("forget-subject")
@with_context
def forget_subject(
    subject: Annotated[str, typer.Argument(help="The actor to erase, platform:id.")],
    ctx: Context,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase everything about a person and destroy their keys (owner in private, or self)."""
    with errors(as_json), open_memory(db) as mem:
        report = mem.forget_subject(ctx, subject)
    emit(as_json, report, lambda: out.print(report))


@app.command("forget-guild")
@with_context
def forget_guild(
    community: Annotated[str, typer.Argument(help="Guild id (or group:CHAT).", metavar="GUILD")],
    ctx: Context,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase a community's memory and destroy its key (owner, in private)."""
    with errors(as_json), open_memory(db) as mem:
        report = mem.forget_guild(ctx, community)
    emit(as_json, report, lambda: out.print(report))


@app.command()
@with_context
def log(
    ctx: Context,
    limit: Annotated[int, typer.Option(help="At most this many.")] = 100,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Denials and owner-memory reads (the owner, in an owner-private context)."""
    with errors(as_json), open_memory(db) as mem:
        rows = mem.access_log(ctx, limit)
    data = [
        {"at": _iso(r.at), "kind": r.kind, "code": r.code, "scope": r.scope, "surface": r.surface}
        for r in rows
    ]

    def human() -> None:
        t = Table("at", "kind", "code", "scope", "surface")
        for d in data:
            t.add_row(*(str(d[k] or "") for k in ("at", "kind", "code", "scope", "surface")))
        out.print(t)

    emit(as_json, {"events": data}, human)


def _iso(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")


@app.command()
def stats(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """The T1 public stats: skill usage and observed patterns (no identifiers)."""
    with errors(as_json), open_memory(db) as mem:
        data = mem.public_stats()
    emit(as_json, data, lambda: out.print_json(json.dumps(data)))


@app.command()
def audit(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Run the privacy checklist over the whole store; exit 1 on findings."""
    with errors(as_json), open_memory(db) as mem:
        report = mem.audit()

    def human() -> None:
        t = Table("check", "ok", "findings", "what it checks")
        for c in report["checks"]:
            t.add_row(
                c["name"],
                "[green]yes[/green]" if c["ok"] else "[red]NO[/red]",
                str(c["findings"]),
                c["description"],
            )
        out.print(t)
        for f in report["findings"]:
            out.print(f)

    emit(as_json, report, human)
    if not report["ok"]:
        raise typer.Exit(1)


@app.command()
def cleanup(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count, change nothing.")] = False,
    history: Annotated[bool, typer.Option("--history", help="List earlier runs.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the cleanup protocol (archive, purge, re-scan, merge, compact), or list its log."""
    with errors(as_json), open_memory(db) as mem:
        if history:
            lines = mem.cleanup_history()
            emit(as_json, {"history": lines}, lambda: out.print("\n".join(lines) or "none"))
            return
        report = mem.cleanup(dry_run=dry_run)
    emit(as_json, report, lambda: out.print(report["line"]))


keys_app = typer.Typer(help="Master key and agent API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("rotate")
def keys_rotate(
    new_key: Annotated[
        str | None, typer.Option("--new-key", help="Base64 of 32 bytes (default: random).")
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-wrap every data key under a new master key (facts are not re-encrypted)."""
    from ...services.lifecycle import rotate_key_file
    from ...vault.crypto import encode_key, parse_master_key
    from ...vault.crypto import new_key as fresh_key

    with errors(as_json):
        settings = Settings()
        target = db or str(settings.db)
        new = parse_master_key(new_key) if new_key else fresh_key()
        with Memory.open(target) as mem:
            env_key = settings.master_key is not None or is_postgres_url(target)
            if env_key:
                mem.rotate_master_key(new)
            else:
                rotate_key_file(mem, key_file_path(Path(target), settings), new)
        data: dict[str, Any] = {"rotated": True, "key_file": None if env_key else "updated"}
        if env_key and not new_key:
            data["new_master_key"] = encode_key(new)  # shown once: set CONFIDANTE_MASTER_KEY
    emit(
        as_json,
        data,
        lambda: out.print(
            "rotated; "
            + (
                "set CONFIDANTE_MASTER_KEY to: " + data["new_master_key"]
                if "new_master_key" in data
                else "key file updated"
            )
        ),
    )


@app.command()
def backup(
    dest: Annotated[Path, typer.Argument(help="Where to write the copy.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A consistent online copy of the database, still encrypted (keep the key apart)."""
    with errors(as_json), open_memory(db) as mem:
        path = mem.backup(dest)
    emit(as_json, {"backup": str(path)}, lambda: out.print(f"backed up to {path}"))


@app.command()
def restore(
    src: Annotated[Path, typer.Argument(help="A backup made by `confidante backup`.")],
    force: Annotated[bool, typer.Option("--force", help="Replace an existing database.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Put a backup in place, after checking that the current master key opens it."""
    from ...services.lifecycle import restore as restore_db
    from ...vault.crypto import parse_master_key, read_key_file

    with errors(as_json):
        settings = Settings()
        target = Path(db or str(settings.db))
        if settings.master_key is not None:
            key = parse_master_key(settings.master_key.get_secret_value())
        else:  # the key must already exist: a restore never invents one
            key = read_key_file(key_file_path(target, settings))
        restore_db(src, target, key, force=force)
    emit(as_json, {"restored": str(target)}, lambda: out.print(f"restored into {target}"))


@app.command()
def demo(as_json: JsonOpt = False) -> None:
    """Run a short scripted conversation in a temporary database and show, per context,
    what is recalled and what is refused."""
    from .demo import run_demo

    with errors(as_json):
        run_demo(out, as_json=as_json)


@app.command()
def version() -> None:
    """Print the version."""
    out.print(__version__)


agents.register(app, keys_app)  # dashboard set-password, keys add-agent/list/revoke
interop.register(app)  # import --from FORMAT, export --to FORMAT


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None
