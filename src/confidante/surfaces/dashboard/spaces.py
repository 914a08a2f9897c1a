"""What the Shared spaces page shows: each space, its members, and its facts.

Only ever called inside the owner's unlock, with the owner's private context: the core
checks that context (`require_owner_private`) and each space's partition is read through
the same grant every read takes (`Engine.candidates`), so this adds no rule of its own.
It only groups: a shared fact does not say which space holds it, so each space's own
partition is read on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from ... import policy
from ...memory import Memory
from ...model import Context, Fact

_SPLIT = re.compile(r"[\s,;]+")
_OLDEST = datetime.min.replace(tzinfo=UTC)


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
    v = mem.viewer(ctx)
    registry = mem.spaces()
    out = []
    for s in listed:
        name = str(s["name"])
        facts: list[Fact] = []
        space = registry.get(name)
        if space is not None:  # deleted meanwhile: shown empty until the next page load
            ref = policy.space_partition(space.id, mem.keys.key)
            for c in mem.candidates(v, policy.Pool(frozenset({ref}))):
                facts += [c.index.facts[i].fact for i in np.flatnonzero(c.mask)]
        facts.sort(key=lambda f: (f.created_at or _OLDEST, f.id), reverse=True)
        members = s["members"]
        assert isinstance(members, list)
        out.append(SpaceView(name, str(s["namespace"]), [str(m) for m in members], facts))
    return out


def member_list(typed: str) -> list[str]:
    """Members as typed in a form: separated by commas, semicolons, spaces or lines."""
    return [m for m in _SPLIT.split(typed.strip()) if m]


__all__ = ["SpaceView", "member_list", "spaces_of"]
