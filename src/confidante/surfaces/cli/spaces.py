"""`confidante space ...` (shared spaces: a household, a team) and `confidante people` (the
people directory): the owner's, in private.

Without context flags these run as the owner's own local context (`--as OWNER --local`);
with flags, that context is used and the core decides (anyone else gets `owner_required`).
Members write to a space with `remember -n shared:NAME` and read it in their DMs and in group
chats of members only. They are refused under CONFIDANTE_CONTEXT and in client mode (the
gate's default for every command that is not a memory command).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from .flags import DbOpt, JsonOpt, emit, errors, open_memory, out, owner_context, with_flags

SpaceArg = Annotated[str, typer.Argument(help="The space's name, e.g. home.", metavar="NAME")]
ActorArg = Annotated[str, typer.Argument(help="A member, platform:id.", metavar="ACTOR")]


def register(app: typer.Typer) -> None:
    space_app = typer.Typer(
        help="Shared spaces (a household, a team): the owner's, in private. Members write "
        "with `remember -n shared:NAME`.",
        no_args_is_help=True,
    )

    @space_app.command("create")
    @with_flags
    def create(
        flags: dict[str, Any],
        name: SpaceArg,
        member: Annotated[
            list[str] | None,
            typer.Option("--member", help="A member, platform:id (repeat for each)."),
        ] = None,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Create a shared space with these members."""
        with errors(as_json), open_memory(db) as mem:
            space = mem.create_space(owner_context(flags, mem), name, members=member or [])
        emit(as_json, space, lambda: _print_space("created", space))

    @space_app.command("list")
    @with_flags
    def list_(flags: dict[str, Any], db: DbOpt = None, as_json: JsonOpt = False) -> None:
        """Every shared space and its members."""
        with errors(as_json), open_memory(db) as mem:
            spaces = mem.list_spaces(owner_context(flags, mem))

        def human() -> None:
            from rich.table import Table

            if not spaces:
                out.print("no shared spaces")
                return
            t = Table("name", "namespace", "members")
            for s in spaces:
                t.add_row(str(s["name"]), str(s["namespace"]), ", ".join(s["members"]))
            out.print(t)

        emit(as_json, {"spaces": spaces}, human)

    @space_app.command("add")
    @with_flags
    def add(
        flags: dict[str, Any],
        name: SpaceArg,
        member: ActorArg,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Let ACTOR into a space."""
        with errors(as_json), open_memory(db) as mem:
            space = mem.add_member(owner_context(flags, mem), name, member)
        emit(as_json, space, lambda: _print_space("added to", space))

    @space_app.command("remove")
    @with_flags
    def remove(
        flags: dict[str, Any],
        name: SpaceArg,
        member: ActorArg,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Take ACTOR out of a space: from the next operation on, they read nothing of it."""
        with errors(as_json), open_memory(db) as mem:
            space = mem.remove_member(owner_context(flags, mem), name, member)
        emit(as_json, space, lambda: _print_space("removed from", space))

    @space_app.command("delete")
    @with_flags
    def delete(
        flags: dict[str, Any], name: SpaceArg, db: DbOpt = None, as_json: JsonOpt = False
    ) -> None:
        """Erase a space: its facts and its key (not recoverable)."""
        with errors(as_json), open_memory(db) as mem:
            report = mem.delete_space(owner_context(flags, mem), name)
        data = {"deleted": name, **report}
        counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.items())
        shown = f"deleted {name}" + (f": {counts}" if counts else "")
        emit(as_json, data, lambda: out.print(shown))

    app.add_typer(space_app, name="space")

    @app.command()
    @with_flags
    def people(flags: dict[str, Any], db: DbOpt = None, as_json: JsonOpt = False) -> None:
        """The people directory (the owner, in private): each person and the display names
        they were seen with, most recent first."""
        with errors(as_json), open_memory(db) as mem:
            directory = mem.people(owner_context(flags, mem))

        def human() -> None:
            from rich.table import Table

            if not directory:
                out.print("nobody named yet (contexts carry names with --names)")
                return
            t = Table("actor", "names")
            for actor, names in directory.items():
                t.add_row(actor, ", ".join(names))
            out.print(t)

        emit(as_json, {"people": directory}, human)


def _print_space(verb: str, space: dict[str, Any]) -> None:
    members = ", ".join(space["members"]) or "no members yet"
    out.print(f"{verb} {space['name']} ({space['namespace']}): {members}")
