"""Which commands run where: one allow-list, checked before any command does anything.

- **Local mode** (the owner's own shell): every command.
- **Agent-context mode** (`CONFIDANTE_CONTEXT` set, the context an agent host gives a chat
  message): only the memory commands, in that context, and `mcp` (which serves that pinned
  identity over stdio). Everything that acts as the owner (`init`, `keys`, `dashboard`,
  `import`, `export`, `backup`, `restore`, `cleanup`, `audit`, `log`, ...) is refused with
  `agent_context_forbids`. This stops a model that can only run these commands; it is no
  boundary against a process that can read the database and key file itself (that is what
  client mode is for).
- **Client mode** (`CONFIDANTE_URL` set): only the memory commands, over HTTP
  (`client_mode_forbids` for the rest).

`--help` and `version` work everywhere. The check wraps every command's callback, so it
runs after the command line is parsed (a `--help` anywhere still shows help) and before the
command's body; a command added later is refused in both modes until it is put on a list.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

from ...errors import AccessDenied
from .client import URL_ENV, client_mode
from .flags import CONTEXT_ENV, errors

MEMORY_COMMANDS = frozenset(
    {"remember", "recall", "get", "list", "update", "forget", "context", "forget-subject"}
)
ANYWHERE = frozenset({"version"})
ALLOWED = {
    "agent": MEMORY_COMMANDS | ANYWHERE | {"mcp"},
    "client": MEMORY_COMMANDS | ANYWHERE,
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


def _guard_command(name: str, callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def guarded(*args: Any, **kwargs: Any) -> Any:
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
    for param in root.params:
        if param.name not in _ROOT_OPTIONS_ANYWHERE and param.callback is not None:
            shown = (param.opts or [param.name])[0]
            param.callback = _guard_option(shown, param.callback)
