"""Shared spaces: memory shared on purpose by a household, a team, a project.

The owner, in private, makes a space with named members, changes who is in it, and deletes
it. Members write with the namespace `shared:<name>` and read it in their own DMs and in
group chats of members only; never in a guild or in a conversation with anyone else
(`policy.spaces_open_to`, `policy.grant_for`). A space has its own partition and key:
removing a member takes effect at the next operation, and deleting the space erases its
facts by destroying that key, as forgetting a person does."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .. import policy
from ..errors import InvalidInput, NotFound
from ..model import Context, normalize_actor
from ..policy import Space
from ..vault.spaces import (
    MAX_MEMBERS,
    SPACES_META,
    check_members,
    check_space_name,
    read_spaces,
    write_spaces,
)

if TYPE_CHECKING:
    from ..engine import Engine


def _save(mem: Engine, spaces: dict[str, Space]) -> None:
    mem.set_sealed_meta(SPACES_META, write_spaces(spaces))


def _load(mem: Engine) -> dict[str, Space]:
    return read_spaces(mem.sealed_meta(SPACES_META))


def create_space(mem: Engine, ctx: Context, name: str, members: Iterable[str]) -> dict[str, object]:
    """A new space (the owner, in private). Its name must be free."""
    mem.require_owner_private(ctx)
    name = check_space_name(name)
    people = check_members(list(members))
    spaces = _load(mem)
    if name in spaces:
        raise InvalidInput("a space with that name exists", code="space_exists")
    spaces[name] = Space(secrets.token_hex(16), people)
    _save(mem, spaces)
    return describe(name, spaces[name])


def add_member(mem: Engine, ctx: Context, name: str, actor: str) -> dict[str, object]:
    mem.require_owner_private(ctx)
    spaces = _load(mem)
    space = _existing(spaces, name)
    members = space.members | {normalize_actor(actor)}
    if len(members) > MAX_MEMBERS:
        raise InvalidInput(f"a space has at most {MAX_MEMBERS} members")
    spaces[name] = Space(space.id, members)
    _save(mem, spaces)
    return describe(name, spaces[name])


def remove_member(mem: Engine, ctx: Context, name: str, actor: str) -> dict[str, object]:
    """From the next operation on, `actor` neither reads nor writes the space (what they
    wrote there stays the space's)."""
    mem.require_owner_private(ctx)
    spaces = _load(mem)
    space = _existing(spaces, name)
    spaces[name] = Space(space.id, space.members - {normalize_actor(actor)})
    _save(mem, spaces)
    return describe(name, spaces[name])


def delete_space(mem: Engine, ctx: Context, name: str) -> dict[str, int]:
    """Erase a space: its facts and its key (crypto-erasure, as for a person), then its
    name and members."""
    from .lifecycle import erase_partitions

    mem.require_owner_private(ctx)
    spaces = _load(mem)
    space = _existing(spaces, name)
    report = erase_partitions(mem, {policy.space_partition(space.id, mem.keys.key).id})
    spaces = _load(mem)  # as it is now: a member changed meanwhile must not come back
    spaces.pop(name, None)
    _save(mem, spaces)
    return report


def list_spaces(mem: Engine, ctx: Context) -> list[dict[str, object]]:
    """Every space with its members (the owner, in private)."""
    mem.require_owner_private(ctx)
    return [describe(name, s) for name, s in sorted(_load(mem).items())]


def forget_member_everywhere(mem: Engine, actor: str) -> int:
    """Take `actor` out of every space (forgetting a person); how many spaces they left."""
    spaces = _load(mem)
    left = {n: Space(s.id, s.members - {actor}) for n, s in spaces.items() if actor in s.members}
    if left:
        spaces.update(left)
        _save(mem, spaces)
    return len(left)


def describe(name: str, space: Space) -> dict[str, object]:
    return {"name": name, "namespace": f"shared:{name}", "members": sorted(space.members)}


def _existing(spaces: dict[str, Space], name: str) -> Space:
    found = spaces.get(check_space_name(name))
    if found is None:
        raise NotFound("no space with that name")
    return found


__all__ = [
    "add_member",
    "create_space",
    "delete_space",
    "describe",
    "forget_member_everywhere",
    "list_spaces",
    "remove_member",
]
