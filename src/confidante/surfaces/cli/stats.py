"""`confidante stats`: the T1 public stats, read (`stats`) and counted (`stats record SKILL`,
`stats pattern --skills a,b`), as the tiered skill's dependents use them.

T1 holds counts under guarded, identifier-free labels (the core refuses names, handles,
exact times and T3 data in them), so an agent host may run these under CONFIDANTE_CONTEXT,
and in client mode they go to the server's `/v1/stats` routes, open to any agent key.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ...errors import InvalidInput
from .flags import DbOpt, JsonOpt, emit, errors, memory_for, out, text_or_stdin

CountOpt = Annotated[int, typer.Option("--count", min=1, help="How many at once.")]


def register(app: typer.Typer) -> None:
    stats_app = typer.Typer(
        help="The T1 public stats: skill usage and observed patterns (no identifiers). On "
        "its own, `stats` shows them; `stats record` and `stats pattern` count.",
        invoke_without_command=True,
        no_args_is_help=False,
    )

    @stats_app.callback()
    def stats(ctx: typer.Context, db: DbOpt = None, as_json: JsonOpt = False) -> None:
        """The T1 public stats: skill usage and observed patterns (no identifiers). `stats
        record` and `stats pattern` count a skill call and a pattern."""
        if ctx.invoked_subcommand is not None:
            return
        with errors(as_json), memory_for(db) as mem:
            data = mem.public_stats()
        emit(as_json, data, lambda: _print_stats(data))

    @stats_app.command("record")
    def record(
        skill: Annotated[str, typer.Argument(help="The skill's name, e.g. weather-brief.")],
        failed: Annotated[
            bool, typer.Option("--failed", help="The call failed (default: it succeeded).")
        ] = False,
        count: CountOpt = 1,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Count a skill call (or --count N of them) in the public stats."""
        with errors(as_json), memory_for(db) as mem:
            mem.record_skill_use(skill, not failed, count=count)
        data = {"recorded": "skill_use", "skill": skill.strip(), "ok": not failed, "count": count}
        calls = "call" if count == 1 else "calls"
        emit(
            as_json,
            data,
            lambda: out.print(
                f"recorded {count} {'failed ' if failed else ''}{calls} of {data['skill']}"
            ),
        )

    @stats_app.command("pattern")
    def pattern(
        trigger: Annotated[
            str | None,
            typer.Argument(
                help="What set it off, e.g. 'morning request' (`-` or none: read it from stdin)."
            ),
        ] = None,
        skills: Annotated[
            str | None,
            typer.Option("--skills", help="The skills it led to, comma-separated: a,b."),
        ] = None,
        count: CountOpt = 1,
        db: DbOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Count an observed pattern: a trigger (generalised; names and exact times are
        refused) and the skills it led to."""
        with errors(as_json):
            names = [s.strip() for s in (skills or "").split(",") if s.strip()]
            if not names:
                raise InvalidInput("--skills names the skills the trigger led to: --skills a,b")
            if trigger is None and sys.stdin.isatty():
                raise InvalidInput("give the trigger as an argument, or on stdin")
            text = text_or_stdin("-" if trigger is None else trigger).strip()
            with memory_for(db) as mem:
                mem.record_pattern(text, names, count=count)
        data = {"recorded": "pattern", "skills": sorted(set(names)), "count": count}
        emit(
            as_json,
            data,
            lambda: out.print(f"recorded a pattern leading to {', '.join(data['skills'])}"),
        )

    app.add_typer(stats_app, name="stats")


def _print_stats(data: dict[str, Any]) -> None:
    from rich.table import Table

    skills = data["skill_stats"]
    if not skills and not data["patterns_observed"]:
        out.print("no public stats yet")
        return
    t = Table("skill", "calls", "success rate", "last used", title="Skills")
    for name, s in skills.items():
        t.add_row(name, str(s["calls"]), f"{s['success_rate']:.0%}", s["last_used"])
    out.print(t)
    p = Table("trigger", "skills used", "count", title="Patterns observed")
    for pat in data["patterns_observed"]:
        p.add_row(pat["trigger"], ", ".join(pat["skills_used"]), str(pat["count"]))
    out.print(p)
