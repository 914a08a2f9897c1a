"""What the Shared spaces page shows: each space, its members, and its facts.

Only ever called inside the owner's unlock, with the owner's private context: the core
checks that context (`require_owner_private`, `list`), so this adds no rule of its own; it
only groups the shared facts by the space each names (`Fact.space`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...memory import Memory
from ...model import Context, Fact, Scope

_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True, slots=True)
class SpaceView:
    name: str
    namespace: str
    members: list[str]
    facts: list[Fact]


def spaces_of(mem: Memory, ctx: Context) -> list[SpaceView]:
    """Every space with its members and its facts (newest first), as `ctx` (the owner, in
    private) may see them."""
    listed = mem.list_spaces(ctx)  # the owner, in private, or AccessDenied
    shared = [f for f in mem.list(ctx) if f.scope is Scope.SHARED]
    out = []
    for s in listed:
        name = str(s["name"])
        facts = [f for f in shared if f.space == name]  # newest first, as list gives them
        members = s["members"]
        assert isinstance(members, list)
        out.append(SpaceView(name, str(s["namespace"]), [str(m) for m in members], facts))
    return out


def member_list(typed: str) -> list[str]:
    """Members as typed in a form: separated by commas, semicolons, spaces or lines."""
    return [m for m in _SPLIT.split(typed.strip()) if m]


__all__ = ["SpaceView", "member_list", "spaces_of"]
