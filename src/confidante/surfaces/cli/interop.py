"""`confidante import --from FORMAT PATH` and `confidante export --to FORMAT DEST`: the CLI
twins of `confidante.interop`. Every decision (who may import what, the privacy guard,
dates and expiry) is the library's; this only parses flags, shows progress, prints."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...errors import InvalidInput
from ...model import Context
from .flags import CreateOpt, DbOpt, JsonOpt, emit, err, errors, open_memory, out, with_context

if TYPE_CHECKING:
    from rich.progress import Progress

    from ...interop import ImportReport

# the library's `interop.FORMATS`, named here so `--help` need not load the importers (a
# test checks they are the same)
IMPORT_FORMATS = ("silo-tree", "tiered", "memory-facts", "mem0", "jsonl")
EXPORT_FORMATS = ("jsonl", "silo-tree", "memory-facts")


class _Bar:
    """A rich progress bar on stderr (none with --json)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: Any = None

    def start(self, total: int) -> None:
        self.task = self.progress.add_task("importing", total=total)

    def advance(self, n: int) -> None:
        self.progress.update(self.task, advance=n)


def _print_report(r: ImportReport) -> None:
    verb = "would import" if r.dry_run else "imported"
    out.print(
        f"{verb} {r.imported}, archived {len(r.archived)} (already past expiry), "
        f"refused {len(r.refused)}, skipped {len(r.skipped)}"
        + (
            f"; stats: {r.stats['skills']} skills, {r.stats['patterns']} patterns"
            if any(r.stats.values())
            else ""
        )
    )
    if r.refused:
        cats = ", ".join(f"{c} {n}" for c, n in r.refused_by_category().items())
        out.print(f"refused by category: {cats}")
        for ref in r.refused:
            why = f"{ref.code} ({', '.join(ref.categories)})" if ref.categories else ref.code
            out.print(f"  {ref.position}: {why}")
    if r.skipped:
        reasons = ", ".join(f"{c} {n}" for c, n in r.skipped_by_reason().items())
        out.print(f"skipped: {reasons}")
    if r.archived:
        out.print("archived (use --ttl-days N to keep old entries longer):")
        for pos in r.archived[:20]:
            out.print(f"  {pos}")
        if len(r.archived) > 20:
            out.print(f"  ... and {len(r.archived) - 20} more")
    if r.unmapped_silos:
        out.print(
            f"{len(r.unmapped_silos)} silo(s) matched no sender: kept as silo:<hash>; "
            "import again with --sender-ids to merge them"
        )
    if r.merged_silos:
        out.print(f"merged {len(r.merged_silos)} earlier unmapped silo(s)")
    for note in r.notes:
        out.print(note)


def register(app: typer.Typer) -> None:
    @app.command("import")
    @with_context
    def import_cmd(
        path: Annotated[Path, typer.Argument(help="The file or folder to import.")],
        ctx: Context,
        fmt: Annotated[
            str,
            typer.Option("--from", help=f"Layout: {', '.join(IMPORT_FORMATS)}.", metavar="FORMAT"),
        ] = "jsonl",
        namespace: Annotated[
            str | None, typer.Option("--namespace", "-n", help="jsonl: where plain lines go.")
        ] = None,
        sender_ids: Annotated[
            Path | None,
            typer.Option("--sender-ids", help="silo-tree: one actor (platform:id) a line."),
        ] = None,
        platform: Annotated[
            str, typer.Option("--platform", help="memory-facts: the platform of raw ids.")
        ] = "discord",
        user_map: Annotated[
            Path | None,
            typer.Option("--user-map", help="mem0: user_id to actor (JSON or `id actor` lines)."),
        ] = None,
        ttl_days: Annotated[
            float | None,
            typer.Option("--ttl-days", help="Lifetime of what this import brings in, in days."),
        ] = None,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Report what would happen; change nothing.")
        ] = False,
        db: DbOpt = None,
        create: CreateOpt = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Import memory from another layout, keeping each entry's date. Run as the owner
        locally (--as OWNER --local); plain JSONL may be imported in any context."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        from ...interop import import_from

        with (
            errors(as_json),
            open_memory(db, create=create) as mem,
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=err,
                disable=as_json,
                transient=True,
            ) as progress,
        ):
            report = import_from(
                mem,
                fmt,
                path,
                ctx,
                namespace=namespace,
                sender_ids=sender_ids,
                platform=platform,
                user_map=user_map,
                ttl_days=ttl_days,
                dry_run=dry_run,
                progress=_Bar(progress),
            )
        emit(as_json, report.to_dict(), lambda: _print_report(report))
        if report.looks_like is not None:  # nothing imported, and likely the wrong --from
            if not as_json:
                err.print(
                    f"[yellow]hint[/yellow]: nothing was imported; this looks like "
                    f"{report.looks_like}: try --from {report.looks_like}"
                )
            raise typer.Exit(1)

    @app.command("export")
    @with_context
    def export_cmd(
        dest: Annotated[Path, typer.Argument(help="The file (jsonl) or folder (silo-tree).")],
        ctx: Context,
        fmt: Annotated[
            str,
            typer.Option("--to", help="jsonl, silo-tree or memory-facts.", metavar="FORMAT"),
        ] = "jsonl",
        force: Annotated[bool, typer.Option("--force", help="Overwrite DEST.")] = False,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Export everything the owner may see, as PLAINTEXT files (the owner, --local). An
        existing DEST is replaced only with --force."""
        from ...interop import export_jsonl, export_memory_facts, export_silo_tree

        with errors(as_json):
            if fmt not in EXPORT_FORMATS:
                raise InvalidInput(f"unknown export format; one of: {', '.join(EXPORT_FORMATS)}")
            with open_memory(db) as mem:
                write = {
                    "jsonl": export_jsonl,
                    "silo-tree": export_silo_tree,
                    "memory-facts": export_memory_facts,
                }[fmt]
                try:
                    report = write(mem, ctx, dest, force=force)
                except InvalidInput as e:
                    raise _with_force_hint(e, dest, force) from None
        err.print(f"[yellow]warning[/yellow]: {report.warning}")
        emit(
            as_json,
            report.to_dict(),
            lambda: out.print(f"exported {report.facts} facts to {report.path}"),
        )


def _with_force_hint(e: InvalidInput, dest: Path, force: bool) -> InvalidInput:
    """An export refused because DEST is there says how to replace it."""
    if force or not dest.exists() or "--force" in e.message:
        return e
    return InvalidInput(f"{e.message}: add --force to replace it", code=e.code)
