"""Which commands run where: one allow-list, checked before any command does anything.

- **Local mode** (the owner's own shell): every command.
- **Agent-context mode** (`CONFIDANTE_CONTEXT` set, the context an agent host gives a chat
  message): only the memory commands, in that context, the public stats (identifier-free
  counts: `stats`, `stats record`, `stats pattern`) and `mcp` (which serves that pinned
  identity over stdio). Everything that acts as the owner (`init`, `keys`, `dashboard`,
  `space`, `people`, `import`, `export`, `backup`, `restore`, `cleanup`, `audit`, `log`,
  ...) is refused with `agent_context_forbids`. This stops a model that can only run these
  commands; it is no boundary against a process that can read the database and key file
  itself (that is what client mode is for).
- **Client mode** (`CONFIDANTE_URL` set): only the memory commands and the public stats,
  over HTTP (`client_mode_forbids` for the rest).

`--help` and `version` work everywhere. The check wraps every command's callback, so it
runs after the command line is parsed (a `--help` anywhere still shows help) and before the
command's body; a command added later is refused in both modes until it is put on a list. A
group that runs on its own (`stats`, with no subcommand) is checked as a command of its own.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

try:  # typer vendors click from 0.2x on
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover
    from click import get_current_context  # type: ignore[no-redef]

from ...errors import AccessDenied
from .client import URL_ENV, client_mode
from .flags import CONTEXT_ENV, errors

MEMORY_COMMANDS = frozenset(
    {
        "remember",
        "recall",
        "get",
        "list",
        "update",
        "history",
        "forget",
        "context",
        "forget-subject",
    }
)
# T1: counts under guarded, identifier-free labels; anyone may add to them and read them
PUBLIC_STATS = frozenset({"stats", "stats record", "stats pattern"})
ANYWHERE = frozenset({"version"})
ALLOWED = {
    "agent": MEMORY_COMMANDS | PUBLIC_STATS | ANYWHERE | {"mcp"},
    "client": MEMORY_COMMANDS | PUBLIC_STATS | ANYWHERE,
}
_ROOT_OPTIONS_ANYWHERE = frozenset({"help", "version"})


def mode() -> str:
    """`client`, `agent` or `local`, from the environment (client mode wins)."""
    if client_mode():
        return "client"
    if CONTEXT_ENV in os.environ:
        return "agent"
    return "local"


def admit(command: str) -> None:
    """Refuse `command` (`keys add-agent`, `--install-completion`) unless this mode runs it."""
    current = mode()
    if current == "local" or command in ALLOWED[current]:
        return
    if current == "client":
        raise AccessDenied(
            "client_mode_forbids",
            f"`confidante {command}` does not run in client mode ({URL_ENV} is set): only the "
            "memory commands do, over HTTP, as the token's identity",
        )
    raise AccessDenied(
        "agent_context_forbids",
        f"`confidante {command}` is refused while {CONTEXT_ENV} is set: an agent host runs only "
        "the memory commands (and mcp); the owner runs this in their own shell",
    )


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    subcommands = getattr(command, "commands", None)
    if subcommands is None:
        yield " ".join(path), command
        return
    for name, sub in subcommands.items():
        yield from _leaves(sub, (*path, name))


def _groups(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    """Every group below the root that runs a callback of its own."""
    for name, sub in (getattr(command, "commands", None) or {}).items():
        if getattr(sub, "commands", None) is not None:
            if sub.callback is not None:
                yield " ".join((*path, name)), sub
            yield from _groups(sub, (*path, name))


def _guard_command(name: str, callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        with errors(bool(kwargs.get("as_json"))):
            admit(name)
        return callback(*args, **kwargs)

    return guarded


def _guard_group(name: str, callback: Callable[..., Any]) -> Callable[..., Any]:
    """A group's callback runs before any of its subcommands (each guarded on its own): it is
    checked only when it is the command, run without a subcommand."""

    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if get_current_context().invoked_subcommand is None:
            with errors(bool(kwargs.get("as_json"))):
                admit(name)
        return callback(*args, **kwargs)

    return guarded


def _guard_option(name: str, callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def guarded(ctx: Any, param: Any, value: Any) -> Any:
        if value and not ctx.resilient_parsing:
            with errors(False):
                admit(name)
        return callback(ctx, param, value)

    return guarded


def install(root: Any) -> None:
    """Guard every command under the click command `root` (as `typer.main.get_command`
    builds it), and the root's own eager options (shell completion set-up) but --help and
    --version."""
    for name, command in _leaves(root):
        if command.callback is not None:
            command.callback = _guard_command(name, command.callback)
    for name, group in _groups(root):
        group.callback = _guard_group(name, group.callback)
    for param in root.params:
        if param.name not in _ROOT_OPTIONS_ANYWHERE and param.callback is not None:
            shown = (param.opts or [param.name])[0]
            param.callback = _guard_option(shown, param.callback)
