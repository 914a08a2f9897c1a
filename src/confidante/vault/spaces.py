"""The registry of shared spaces: each space's name, id and members, kept as one value
sealed under the master key (members are raw actor ids)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ..errors import InvalidInput
from ..model import normalize_actor
from ..policy import Space

SPACES_META = "spaces"
SPACE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
MAX_MEMBERS = 256


def check_space_name(name: object) -> str:
    """A space's name: a lowercase label (`home`, `team-x`), the `shared:<name>` namespace."""
    if not isinstance(name, str) or not SPACE_NAME.match(name):
        raise InvalidInput(
            "a space name is 1-64 lowercase letters, digits, '.', '_' or '-' (e.g. home)"
        )
    return name


def check_members(members: object) -> frozenset[str]:
    if isinstance(members, str) or not isinstance(members, list | tuple | set | frozenset):
        raise InvalidInput("members must be a list of actors (platform:id)")
    found = frozenset(normalize_actor(m) for m in members)
    if len(found) > MAX_MEMBERS:
        raise InvalidInput(f"a space has at most {MAX_MEMBERS} members")
    return found


def read_spaces(raw: bytes | None) -> dict[str, Space]:
    if not raw:
        return {}
    data = json.loads(raw)
    return {
        name: Space(str(s["id"]), frozenset(str(m) for m in s["members"]))
        for name, s in data.items()
    }


def write_spaces(spaces: Mapping[str, Space]) -> bytes:
    return json.dumps(
        {name: {"id": s.id, "members": sorted(s.members)} for name, s in sorted(spaces.items())},
        separators=(",", ":"),
    ).encode()


__all__ = [
    "SPACES_META",
    "check_members",
    "check_space_name",
    "read_spaces",
    "write_spaces",
]
