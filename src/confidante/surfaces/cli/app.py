"""`confidante` command line: every library call has a twin here, each with `--json`.

The conversation context comes from flags (`--as ACTOR` plus one surface flag). This
adapter only parses and prints; every decision is the core's. Heavy parts (the engine, the
settings model, the database drivers, the web server) are imported by the commands that
use them, so `confidante --help` and client mode start quickly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ..._version import __version__
from ...errors import DatabaseExists, InvalidInput, MasterKeyMissing
from ...model import Context
from . import agents, interop, setup, spaces, stats
from .flags import (
    STDIN,
    CreateOpt,
    DbOpt,
    JsonOpt,
    db_target,
    emit,
    err,
    errors,
    filters_with_skill,
    is_server_url,
    json_object,
    memory_for,
    open_memory,
    out,
    settings,
    text_or_stdin,
    with_context,
)

if TYPE_CHECKING:
    from rich.table import Table

    from ...model import Fact, Hit

T = TypeVar("T")

app = typer.Typer(
    name="confidante",
    help="Private-by-design long-term memory for agents that talk to many people.",
    epilog="Exit codes: 0 done; 1 an error (its code is printed); 2 a usage error (an unknown "
    "command or option, a missing argument); 3 refused by policy (`owner_required`, "
    "`not_a_member`, `client_mode_forbids`, ...).",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (for the shell it runs in)
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # docstrings wrap as paragraphs, `code` shows as code
)


def _print_version(value: bool) -> None:
    if value:
        print(f"confidante {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Private-by-design long-term memory for agents that talk to many people.

    Start with `confidante init` (or just `confidante serve`), then see `confidante COMMAND
    --help`. Every command takes --json."""


setup.register(app)  # init and config come first in --help: where a newcomer starts

SHORT_ID = 12  # what tables show; every id argument takes a unique prefix like this

MetadataOpt = Annotated[
    str | None,
    typer.Option(
        "--metadata",
        help='The app\'s own metadata, a JSON object: \'{"category": "food"}\' (checked by the '
        "privacy guard like the text).",
        metavar="JSON",
    ),
]
FilterOpt = Annotated[
    str | None,
    typer.Option(
        "--filter",
        help="Only facts that match, a JSON object: metadata keys, kind, source_skill, "
        'created_at/updated_at ranges; \'{"category": "food"}\', '
        '\'{"kind": {"$in": ["fact", "habit"]}}\'. Narrows, never widens.',
        metavar="JSON",
    ),
]
SkillFilterOpt = Annotated[
    str | None,
    typer.Option("--skill", help='Only what this skill stored (the filter {"source_skill": S}).'),
]


def _fact_table(facts: list[Fact], scores: list[float] | None = None) -> Table:
    from rich.table import Table

    t = Table(show_lines=False)
    t.add_column("id", style="dim", no_wrap=True)
    t.add_column("scope")
    if scores is not None:
        t.add_column("score", justify="right")
    t.add_column("text")
    for i, f in enumerate(facts):
        row = [f.id[:SHORT_ID], f.scope.value]
        if scores is not None:
            row.append(f"{scores[i]:.3f}")
        row.append(f.text)
        t.add_row(*row)
    return t


# --- commands ---------------------------------------------------------------------------------


@app.command()
@with_context
def remember(
    text: Annotated[str, typer.Argument(help="What to remember (`-`: read it from stdin).")],
    ctx: Context,
    namespace: Annotated[
        str | None,
        typer.Option("--namespace", "-n", help="me, owner, guild, user:ID, shared:SPACE, ..."),
    ] = None,
    kind: Annotated[str, typer.Option(help="Kind of fact.")] = "fact",
    skill: Annotated[str | None, typer.Option("--skill", help="Source skill.")] = None,
    metadata: MetadataOpt = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Remember a fact in the namespace this context may write. The same sentence said again
    in the same place is not stored twice: the fact already there is refreshed (`refreshed`
    in the JSON)."""
    with errors(as_json):
        meta = json_object(metadata, "--metadata")
        with memory_for(db, create=create) as mem:
            fact = mem.remember(
                ctx, text_or_stdin(text), namespace, kind=kind, source_skill=skill, metadata=meta
            )

    def human() -> None:
        if fact.refreshed:
            out.print(f"already remembered {fact.id} in {fact.scope}, refreshed")
        else:
            out.print(f"remembered {fact.id} in {fact.scope}")

    emit(as_json, fact.to_dict(), human)


@app.command()
@with_context
def recall(
    query: Annotated[str, typer.Argument(help="What to look for (`-`: read it from stdin).")],
    ctx: Context,
    k: Annotated[int, typer.Option("-k", help="How many hits.")] = 10,
    subjects: Annotated[
        str | None, typer.Option("--subjects", help="Widen (owner-private only): actors.")
    ] = None,
    guilds: Annotated[
        str | None, typer.Option("--guilds", help="Widen (owner-private only): guild ids.")
    ] = None,
    filter_: FilterOpt = None,
    skill: SkillFilterOpt = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Recall what this context may see, best first."""
    with errors(as_json):
        where = filters_with_skill(filter_, skill)
        with memory_for(db, create=create) as mem:
            hits: list[Hit] = mem.recall(
                ctx,
                text_or_stdin(query),
                k,
                subjects=_split(subjects),
                guilds=_split(guilds),
                filters=where,
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
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Show one fact, if this context may see it."""
    with errors(as_json), memory_for(db, create=create) as mem:
        fact = mem.get(ctx, fact_id)
    emit(as_json, fact.to_dict(), lambda: out.print(_fact_table([fact])))


@app.command()
@with_context
def forget(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    ctx: Context,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Forget one fact (its writer, its subject, or the owner in private)."""
    with errors(as_json), memory_for(db, create=create) as mem:
        mem.forget(ctx, fact_id)
    emit(as_json, {"forgotten": fact_id}, lambda: out.print(f"forgotten {fact_id}"))


@app.command("list")
@with_context
def list_(
    ctx: Context,
    limit: Annotated[int | None, typer.Option(help="At most this many.")] = None,
    filter_: FilterOpt = None,
    skill: SkillFilterOpt = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """List every fact this context may see, newest first (`--skill S`: what one skill
    stored; `--filter JSON`: only facts that match)."""
    with errors(as_json):
        where = filters_with_skill(filter_, skill)
        with memory_for(db, create=create) as mem:
            facts = mem.list(ctx, limit=limit, filters=where)
    emit(
        as_json,
        {"facts": [f.to_dict() for f in facts]},
        lambda: out.print(_fact_table(facts) if facts else "nothing visible here"),
    )


@app.command()
@with_context
def update(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    text: Annotated[str, typer.Argument(help="The new text (`-`: read it from stdin).")],
    ctx: Context,
    metadata: Annotated[
        str | None,
        typer.Option(
            "--metadata",
            help="Replace the fact's metadata with this JSON object (default: keep it).",
            metavar="JSON",
        ),
    ] = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Replace a fact's text (its writer, its subject, or the owner in private); the text it
    had is kept for `confidante history`."""
    with errors(as_json):
        meta = json_object(metadata, "--metadata")
        with memory_for(db, create=create) as mem:
            fact = mem.update(ctx, fact_id, text_or_stdin(text), metadata=meta)
    emit(as_json, fact.to_dict(), lambda: out.print(f"updated {fact.id}"))


@app.command()
@with_context
def history(
    fact_id: Annotated[str, typer.Argument(help="Fact id.")],
    ctx: Context,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The texts a fact went through, oldest first: the facts it superseded that this context
    may see, its first text, and every update since."""
    with errors(as_json), memory_for(db, create=create) as mem:
        versions = [v if isinstance(v, dict) else v.to_dict() for v in mem.history(ctx, fact_id)]

    def human() -> None:
        from rich.table import Table

        t = Table("at", "event", "fact", "text")
        for v in versions:
            t.add_row(str(v["at"] or ""), str(v["event"]), str(v["fact_id"])[:SHORT_ID], v["text"])
        out.print(t)

    emit(as_json, {"versions": versions}, human)


@app.command()
@with_context
def context(
    query: Annotated[
        str, typer.Argument(help="What the conversation is about (`-`: read it from stdin).")
    ],
    ctx: Context,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Token budget.")] = 800,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Print the prompt context for this conversation: identity block plus recalled facts."""
    with errors(as_json), memory_for(db, create=create) as mem:
        text = mem.prompt_context(ctx, text_or_stdin(query), max_tokens=max_tokens)
    emit(as_json, {"context": text}, lambda: print(text))


@app.command("forget-subject")
@with_context
def forget_subject(
    ctx: Context,
    subject: Annotated[
        str | None,
        typer.Argument(help="The actor to erase, platform:id (default: the one speaking)."),
    ] = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Erase everything about a person and destroy their keys (owner in private, or self:
    "forget me", with no SUBJECT). The JSON always has the same keys: the counts are numbers
    for the owner in private and null elsewhere (they would tell someone how much the owner
    noted about them)."""
    with errors(as_json):
        subject = subject or ctx.actor
        if subject is None and isinstance(ctx, Context):
            raise InvalidInput("name the actor to erase (this context has no actor)")
        with memory_for(db, create=create) as mem:
            report = mem.forget_subject(ctx, subject)  # None: a pinned token's own actor
    shown = subject or "the one speaking"
    data = forget_report(subject, report)
    emit(as_json, data, lambda: out.print(_erasure_line(f"forgot {shown}", report)))


FORGET_COUNTS = (
    "facts_deleted",
    "keys_destroyed",
    "authorship_removed",
    "spaces_left",
    "erasure_pending",
    "partitions_rekeyed",
    "master_key_rotated",
)


def forget_report(subject: str | None, report: dict[str, int]) -> dict[str, Any]:
    """`forget-subject --json`, one shape: `forgotten`, `subject`, and every count (null
    where the core shows none)."""
    counted = "facts_deleted" in report
    return {
        "forgotten": 1,
        "subject": subject,
        **{k: int(report.get(k, 0)) if counted else None for k in FORGET_COUNTS},
    }


@app.command("forget-guild")
@with_context
def forget_guild(
    community: Annotated[str, typer.Argument(help="Guild id (or group:CHAT).", metavar="GUILD")],
    ctx: Context,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Erase a community's memory and destroy its key (owner, in private)."""
    with errors(as_json), open_memory(db, create=create) as mem:
        report = mem.forget_guild(ctx, community)
    emit(as_json, report, lambda: out.print(_erasure_line(f"forgot {community}", report)))


def _erasure_line(head: str, report: dict[str, int]) -> str:
    """`forgot X: 3 facts deleted, 2 keys destroyed, ...` (only the counts the caller got)."""
    words = {
        "facts_deleted": "facts deleted",
        "keys_destroyed": "keys destroyed",
        "authorship_removed": "authorships removed",
    }
    parts = [f"{n} {words[k]}" for k, n in report.items() if k in words]
    return head + (": " + ", ".join(parts) if parts else "")


@app.command()
@with_context
def log(
    ctx: Context,
    limit: Annotated[int, typer.Option(help="At most this many.")] = 100,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Denials and owner-memory reads (the owner, in an owner-private context)."""
    from ...services.paging import iso

    with errors(as_json), open_memory(db, create=create) as mem:
        rows = mem.access_log(ctx, limit)
    data = [
        {
            "at": iso(r.at),
            "kind": r.kind,
            "code": r.code,
            "scope": r.scope,
            "surface": r.surface,
            "count": r.count,
        }
        for r in rows
    ]
    columns = ("at", "kind", "code", "scope", "surface", "count")

    def human() -> None:
        from rich.table import Table

        t = Table(*columns)
        for d in data:
            t.add_row(*(str(d[k] or "") for k in columns))
        out.print(t)

    emit(as_json, {"events": data}, human)


@app.command()
def audit(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Run the privacy checklist over the whole store; exit 1 on findings."""
    with errors(as_json), open_memory(db) as mem:
        report = mem.audit()

    def human() -> None:
        from rich.table import Table

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
    log_file: Annotated[
        Path | None,
        typer.Option(
            "--log-file",
            help="Also append the run's log line ([YYYY-MM-DD] Memory cleanup: X archived, "
            "Y deleted, Z merged) to this file, as the tiered skill kept it.",
            metavar="PATH",
        ),
    ] = None,
    db: DbOpt = None,
    create: CreateOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run the cleanup protocol (archive, purge, re-scan, merge, compact), or list its log."""
    with errors(as_json):
        if log_file is not None and (dry_run or history):
            raise InvalidInput("--log-file logs a run: not with --dry-run or --history")
        # opened first: a log that cannot be written stops the run before it changes anything
        log = _open_log(log_file) if log_file is not None else None
        try:
            with open_memory(db, create=create) as mem:
                if history:
                    lines = mem.cleanup_history()
                    emit(as_json, {"history": lines}, lambda: out.print("\n".join(lines) or "none"))
                    return
                report = mem.cleanup(dry_run=dry_run)
            if log is not None:
                log.write(report["line"] + "\n")
                report = {**report, "log_file": str(log_file)}
        finally:
            if log is not None:
                log.close()
    emit(as_json, report, lambda: out.print(report["line"]))


def _open_log(path: Path) -> Any:
    """The old skill's log file, for appending one line (created if missing)."""
    if path.is_dir():
        raise InvalidInput("--log-file names a folder: name a file")
    try:
        return path.open("a", encoding="utf-8")
    except OSError as e:
        raise InvalidInput(
            f"cannot append to --log-file {path}: {e.strerror or type(e).__name__}"
        ) from None


keys_app = typer.Typer(help="Master key and agent API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


BACKUP_WARNING = (
    "backups made before this rotation open only with the old master key; keep it "
    "(--keep-old-key PATH) for as long as you keep those backups"
)


@keys_app.command("rotate")
def keys_rotate(
    new_key: Annotated[
        str | None, typer.Option("--new-key", help="Base64 of 32 bytes (default: random).")
    ] = None,
    keep_old_key: Annotated[
        Path | None,
        typer.Option(
            "--keep-old-key",
            help="Write the old master key to this file (mode 0600) first: earlier backups "
            "need it.",
        ),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-wrap every data key under a new master key (facts are not re-encrypted); first
    give every partition that had something erased a fresh data key. With a key file, every
    process reading it (a running server) follows; with CONFIDANTE_MASTER_KEY, no other
    process may have the database open.

    Backups made before the rotation still need the old key: keep it with --keep-old-key
    (which also keeps what was erased before this rotation readable in those backups)."""
    from ...services.lifecycle import complete_erasure
    from ...vault.crypto import encode_key, parse_master_key, write_key_file

    with errors(as_json):
        new = parse_master_key(new_key) if new_key else None
        if keep_old_key is not None and keep_old_key.exists():
            raise InvalidInput("--keep-old-key names a file that exists; choose a new path")
        with open_memory(db) as mem:
            from_file = mem.keys.rotatable
            key_file = mem.keys.key_file.path if mem.keys.key_file is not None else None
            if keep_old_key is not None:
                write_key_file(keep_old_key, mem.keys.current_master())
            report = complete_erasure(mem, rotate=True, new_key=new)
            current = mem.keys.current_master()
        data: dict[str, Any] = {
            "rotated": True,
            "key_file": str(key_file) if from_file else None,
            "partitions_rekeyed": report["partitions_rekeyed"],
            "old_key_kept": str(keep_old_key) if keep_old_key else None,
            "warning": None if keep_old_key else BACKUP_WARNING,
        }
        if not from_file and not new_key:
            data["new_master_key"] = encode_key(current)  # shown once: set CONFIDANTE_MASTER_KEY

    def human() -> None:
        if "new_master_key" in data:
            out.print("rotated; set CONFIDANTE_MASTER_KEY to (shown only now):")
            print(data["new_master_key"])
        elif from_file:
            out.print(f"rotated; key file {key_file} updated (every process using it follows)")
        else:
            out.print("rotated; use the new key from now on")
        if keep_old_key:
            out.print(
                f"the old key is in {keep_old_key} (mode 0600): restore an earlier backup with "
                f"`confidante restore BACKUP --key-file {keep_old_key}`"
            )
        else:
            err.print(f"[yellow]warning[/yellow]: {BACKUP_WARNING}")

    emit(as_json, data, human)


@app.command()
def backup(
    dest: Annotated[Path, typer.Argument(help="Where to write the copy.")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A consistent online copy of the database, still encrypted. Keep the master key
    apart from it: `restore` will need it (--key-file or --key-stdin) on a new machine."""
    with errors(as_json), open_memory(db) as mem:
        path = mem.backup(dest)
    emit(
        as_json,
        {"backup": str(path)},
        lambda: out.print(
            f"backed up to {path} (encrypted; restoring it needs this database's master key)"
        ),
    )


@app.command()
def restore(
    src: Annotated[Path, typer.Argument(help="A backup made by `confidante backup`.")],
    key_file: Annotated[
        Path | None,
        typer.Option("--key-file", help="The backup's master key file (default: BACKUP.key)."),
    ] = None,
    key_stdin: Annotated[
        bool,
        typer.Option("--key-stdin", help="Read the backup's master key (base64) from stdin."),
    ] = False,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="The backup's master key, base64 of 32 bytes. Visible to other local users "
            "in the process list: prefer --key-stdin, --key-file or CONFIDANTE_MASTER_KEY.",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing database.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Put a backup in place (a new path or, with --force, over the database), after
    checking that its master key opens it. The key comes from --key-stdin, --key-file or
    --key, else CONFIDANTE_MASTER_KEY, the database's key file, or a key file beside the
    backup; the restored database gets a key file beside it so it opens as it is. A key
    given with --key is visible to every local user while the command runs (the process
    list): pipe it in with --key-stdin instead."""
    from ...engine import key_file_path
    from ...services.lifecycle import backup_opens_with
    from ...services.lifecycle import restore as restore_db
    from ...vault.crypto import key_file_for, parse_master_key, read_key_file, write_key_file

    with errors(as_json):
        loaded = settings()
        raw_target = db_target(db)
        if is_server_url(raw_target):
            raise InvalidInput("restore a PostgreSQL database with pg_restore")
        target = Path(raw_target)
        own_key_file = key_file_path(target, loaded)
        env_key = (
            parse_master_key(loaded.master_key.get_secret_value())
            if loaded.master_key is not None
            else None
        )
        if sum((key is not None, key_file is not None, key_stdin)) > 1:
            raise InvalidInput("give the key one way: --key-stdin, --key-file or --key")
        if key_stdin:
            master = parse_master_key(text_or_stdin(STDIN).strip())
        elif key is not None:
            master = parse_master_key(key)
        elif key_file is not None:
            master = read_key_file(key_file)
        else:
            # the keys this machine knows, in order; the first that opens the backup wins
            candidates = [env_key] if env_key is not None else []
            configured = key_file_path(Path(str(loaded.db)), loaded)
            for path in (own_key_file, configured, key_file_for(src)):
                if path.is_file():
                    candidates.append(read_key_file(path))
            if not candidates:
                raise MasterKeyMissing(
                    "no key for this backup here: give its master key with --key-file PATH "
                    "or --key-stdin"
                )
            master = next((k for k in candidates if backup_opens_with(src, k)), candidates[0])
        if env_key is not None and env_key != master:
            raise InvalidInput(
                "CONFIDANTE_MASTER_KEY is not the backup's key: the restored database would "
                "not open; set it to the backup's key first"
            )
        if target.exists() and not force:
            raise DatabaseExists(f"a database exists at {target}: add --force to replace it")
        restore_db(src, target, master, force=force)
        kept_old = None
        if env_key is None:
            current = read_key_file(own_key_file) if own_key_file.exists() else None
            if current != master:
                if current is not None:  # the replaced database's key, not thrown away
                    kept_old = own_key_file.with_name(own_key_file.name + ".before-restore")
                    kept_old.unlink(missing_ok=True)
                    own_key_file.replace(kept_old)
                write_key_file(own_key_file, master)
    warning = (
        f"{kept_old} is the replaced database's master key: it opens backups of the replaced "
        "database, including what was forgotten before they were made. Move it somewhere safe "
        "if you keep such backups; delete it otherwise."
        if kept_old
        else None
    )
    data = {
        "restored": str(target),
        "key_file": None if env_key is not None else str(own_key_file),
        "previous_key_file": str(kept_old) if kept_old else None,
        "warning": warning,
    }

    def human() -> None:
        out.print(
            f"restored into {target}" + (f" (key file {own_key_file})" if env_key is None else "")
        )
        if warning:
            err.print(f"[yellow]warning[/yellow]: {warning}")

    emit(as_json, data, human)


@app.command()
def demo(as_json: JsonOpt = False) -> None:
    """Run a short scripted conversation in a temporary database and show, per context,
    what is recalled and what is refused."""
    from .demo import run_demo

    with errors(as_json):
        run_demo(out, as_json=as_json)


@app.command()
def version(as_json: JsonOpt = False) -> None:
    """Print the version (also `confidante --version`)."""
    emit(as_json, {"version": __version__}, lambda: print(f"confidante {__version__}"))


agents.register(app, keys_app)  # dashboard set-password, keys add-agent/list/revoke
interop.register(app)  # import --from FORMAT, export --to FORMAT
stats.register(app)  # stats, stats record, stats pattern
spaces.register(app)  # space create/list/add/remove/delete, people


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


@app.command()
def selftest(
    url: Annotated[
        str | None,
        typer.Option("--url", help="Test a running server (e.g. http://127.0.0.1:8765)."),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="CONFIDANTE_TOKEN",
            help="With --url: an agent key that is not pinned (or CONFIDANTE_TOKEN).",
        ),
    ] = None,
    owner: Annotated[
        str | None,
        typer.Option(
            "--owner",
            help="With --url: the owner's id (default: the configured or stored one).",
        ),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check a deployment for leaks: plant canaries in every kind of partition, read them
    from every kind of context, scan the files for plaintext, remove the canaries (erasure
    included). Exit 1 on any leak or fault."""
    from ...services.selftest import HttpTarget, LibraryTarget, run_selftest

    def progress(msg: str) -> None:
        if not as_json:
            err.print(f"[dim]{msg}...[/dim]")

    with errors(as_json):
        if url is not None:
            if not token:
                raise InvalidInput("--url needs --token (an agent key that is not pinned)")
            # the owner: given, else configured, else stored in this machine's database
            who = owner or next(iter(setup.owners_in_effect(settings())["ids"]), None)
            if who is None:
                raise InvalidInput("--url needs --owner (the owner's id, platform:id)")
            target = HttpTarget(url, token, who)
            report = _over_http(url, lambda: run_selftest(target, progress=progress))
        else:
            with open_memory(db) as mem:
                report = run_selftest(LibraryTarget(mem), progress=progress)
    data = report.to_dict()

    def human() -> None:
        from rich.table import Table

        t = Table("context", "operation", "result")
        for row in data["checks"]:
            if row["ok"]:
                result = "[green]pass[/green]"
            elif row["leaks"]:
                result = f"[red]LEAK[/red] ({row['leaks']})"
            else:
                result = "[red]MISSING[/red] " + ", ".join(row["missing"])
            t.add_row(row["probe"], row["operation"], result)
        out.print(t)
        files = data["files"]
        if files.get("checked"):
            out.print(
                "files: "
                + (
                    "[green]no plaintext[/green]"
                    if files["ok"]
                    else f"[red]PLAINTEXT[/red] in {files['files']}"
                )
            )
        else:
            out.print(f"files: not checked ({files.get('why')})")
        removed = data["removed"]
        out.print(
            "canaries removed: the owner's and the global one forgotten; the made-up person "
            "and both communities erased with their keys"
            + (
                f"; {removed['earlier_runs_removed']} left by earlier runs removed"
                if removed.get("earlier_runs_removed")
                else ""
            )
            + (
                f"; [red]still there: {removed['still_there']}[/red]"
                if removed.get("still_there")
                else ""
            )
        )
        leaks, faults = len(data["leaks"]), len(data["faults"])
        out.print(
            "[green]selftest passed[/green]: nothing leaked"
            if data["ok"]
            else f"[red]selftest FAILED[/red]: {leaks} leaks, {faults} faults"
        )

    emit(as_json, data, human)
    if not report.ok:
        raise typer.Exit(1)


def _over_http(url: str, run: Callable[[], T]) -> T:
    """Run `run` against the server at `url`: a server that is down, or that answers with
    something else than confidante's API, is `server_unreachable`, not a traceback."""
    import http.client

    from ...config import shown_db
    from .client import unreachable

    url = shown_db(url)  # a password in the address is not printed
    try:
        return run()
    except (OSError, http.client.HTTPException) as e:  # urllib's URLError is an OSError
        reason = getattr(e, "reason", e)
        why = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
        raise unreachable(url, why) from None
    except ValueError:  # an address urllib cannot use, or an answer that is not JSON
        raise unreachable(url, "not a confidante server's address or answer") from None
