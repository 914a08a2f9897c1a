"""What a file's place in an imported tree lets its entries become.

A file's *place* in the tree decides the widest audience its entries may reach. What the
file says about itself (confidante's `<!-- confidante: {...} -->` comment after an entry)
may restore dates, kind, skill and confidence, and may only *narrow* where the entry goes.
Identity never comes from inside a file: a comment may name only the person or the
community that the place already names (a folder named by a hash names whoever hashes to
it, so an export's own names check out).

- the root `MEMORY.md`: owner memory, and nothing else;
- `users/<hash>/MEMORY.md` (person P): P's fact as said in P's DM (the default), or the
  owner's own note about P (owner-only);
- `guilds/<platform>/<id>/MEMORY.md` (community C): C's memory (by default written by the
  owner; a comment may name any author), or a member's own fact learned in C;
  `groups/<platform>/<id>/MEMORY.md` likewise, for the group chat C;
- `YYYY-MM-DD.md`: a global note (the default), or owner memory.

Anything else is refused as `metadata_widens` and not imported: owner memory or a global
note from a person's or a community's file, another person's silo, another community, a
community from a person's silo, session history, an author who is neither the place's
person nor the owner. One request is narrowed instead of refused: a person's own fact
learned in a community, found in that person's silo (confidante's exports put those in the
community's folder; older ones put them in the silo) comes back as said in their DM, which
fewer people read, and is reported as `narrowed`.

Pure: values in, values out (the I/O is `silo_tree`'s).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..errors import ConfidanteError
from ..model import Context, normalize_actor
from .entries import community_context

WIDENS = "metadata_widens"  # the comment asks for more than the file's place allows
HASHED = "~"  # a community folder named `~<hash>`: its id could not be a folder name


class Where(StrEnum):
    OWNER = "owner"  # the root MEMORY.md
    SILO = "silo"  # users/<hash>/MEMORY.md
    COMMUNITY = "community"  # guilds/<platform>/<id>/MEMORY.md, groups/...
    DAILY = "daily"  # YYYY-MM-DD.md


def names_hash(value: str, digest: str) -> bool:
    """Whether `value` hashes to the folder name `digest` (hex, at least 16 chars): the
    first chars of SHA-256, as silo folders (and hashed community folders) are named."""
    digest = digest.lower()
    return len(digest) >= 16 and hashlib.sha256(value.encode()).hexdigest().startswith(digest)


@dataclass(frozen=True, slots=True)
class FilePlace:
    """Where a file sits in the tree: the widest audience its entries may reach."""

    where: Where
    person: str | None = None  # SILO: the silo's actor (mapped, or `silo:<hash>`)
    community: str | None = None  # COMMUNITY: `platform:id`, as the folders name it
    group: bool = False  # COMMUNITY: a group chat's folder (`groups/`)
    digest: str | None = None  # a hash the folder is named by, when nobody is mapped to it

    @classmethod
    def owner(cls) -> FilePlace:
        return cls(Where.OWNER)

    @classmethod
    def daily(cls) -> FilePlace:
        return cls(Where.DAILY)

    @classmethod
    def silo(cls, person: str, folder: str, *, mapped: bool) -> FilePlace:
        return cls(Where.SILO, person=person, digest=None if mapped else folder.lower())

    @classmethod
    def community_folder(cls, platform: str, name: str, *, group: bool) -> FilePlace:
        digest = name[len(HASHED) :] if name.startswith(HASHED) else None
        return cls(Where.COMMUNITY, community=f"{platform}:{name}", group=group, digest=digest)

    @property
    def origin_kind(self) -> str:
        return "group" if self.group else "guild"


@dataclass(frozen=True, slots=True)
class Placed:
    """The context and namespace that write an entry where its place allows."""

    ctx: Context
    namespace: str
    narrowed: bool = False  # the comment asked for more; this is the place's narrower one


@dataclass(frozen=True, slots=True)
class _Ask:
    """What a comment asks for (any field may be missing)."""

    scope: str
    subject: str | None
    community: str | None
    origin: str | None
    author: str | None

    def the_owners(self, owners: frozenset[str | None]) -> bool:
        """Names no person and no community, and was written by the owner in private."""
        return (
            self.subject is None
            and self.community is None
            and (self.author is None or self.author in owners)
            and self.origin in (None, "owner")
        )


def default_place(place: FilePlace, owner_ctx: Context) -> Placed:
    """Where an entry without confidante's comment goes: exactly what its place says."""
    if place.where is Where.SILO:
        assert place.person is not None
        return Placed(Context.dm(place.person), "me")
    if place.where is Where.COMMUNITY:
        assert place.community is not None and owner_ctx.actor is not None
        ctx = community_context(owner_ctx.actor, place.community, group=place.group)
        return Placed(ctx, "guild")
    return Placed(owner_ctx, "global" if place.where is Where.DAILY else "owner")


def decide(
    place: FilePlace, meta: Mapping[str, Any], owner_ctx: Context, owners: Collection[str]
) -> Placed | str:
    """Where an entry goes, given its place and its comment (`meta`), or why it is not
    imported (`metadata_widens`, or `invalid` for a comment that names no valid place)."""
    if not meta.get("scope"):
        return default_place(place, owner_ctx)
    scope = _str(meta.get("scope"))
    if scope is None:
        return "invalid"
    ask = _Ask(
        scope,
        _str(meta.get("subject")),
        _str(meta.get("community")),
        _str(meta.get("origin")),
        _str(meta.get("author")),
    )
    owner_ids: frozenset[str | None] = frozenset(owners) | {owner_ctx.actor}
    try:
        if place.where is Where.OWNER:
            placed = _owner_file(ask, owner_ctx, owner_ids)
        elif place.where is Where.DAILY:
            placed = _daily_note(ask, owner_ctx, owner_ids)
        elif place.where is Where.SILO:
            placed = _silo(place, ask, owner_ctx, owner_ids)
        else:
            placed = _community(place, ask, owner_ctx)
    except ConfidanteError:  # an id that is no actor, a community no context can name
        return "invalid"
    return WIDENS if placed is None else placed


def _owner_file(ask: _Ask, owner_ctx: Context, owners: frozenset[str | None]) -> Placed | None:
    if ask.scope == "owner" and ask.the_owners(owners):
        return Placed(owner_ctx, "owner")
    return None


def _daily_note(ask: _Ask, owner_ctx: Context, owners: frozenset[str | None]) -> Placed | None:
    if ask.scope in ("global", "owner") and ask.the_owners(owners):
        return Placed(owner_ctx, ask.scope)
    return None


def _silo(
    place: FilePlace, ask: _Ask, owner_ctx: Context, owners: frozenset[str | None]
) -> Placed | None:
    """The silo's person's own fact (as said in their DM), or the owner's note about them;
    nothing about anyone else, and nothing outside their partition."""
    person = place.person
    assert person is not None
    if ask.scope != "user" or ask.community is not None:
        return None
    if ask.subject is not None and ask.subject != person:
        # an unmapped silo's comment may name its person when they hash to its folder
        if place.digest is None or not names_hash(ask.subject, place.digest):
            return None
        person = normalize_actor(ask.subject)
    if ask.author not in (None, person) and ask.author not in owners:
        return None
    kind, _, raw = (ask.origin or "").partition(":")
    if kind == "dm" and raw == person:
        return Placed(Context.dm(person), "me")
    if kind in ("guild", "group") and raw and ask.author == person:
        return Placed(Context.dm(person), "me", narrowed=True)  # fewer read their DM
    return Placed(owner_ctx, f"user:{person}")  # written by the owner in private: owner-only


def _community(place: FilePlace, ask: _Ask, owner_ctx: Context) -> Placed | None:
    """That community's memory, or a member's own fact learned there."""
    kind, _, learned = (ask.origin or "").partition(":")
    if ask.origin is not None and kind != place.origin_kind:
        return None
    named = {c for c in (ask.community, learned or None) if c is not None}
    if len(named) > 1:
        return None  # a comment naming two communities names no place
    community = named.pop() if named else place.community
    if not _names_folder(place, community):
        return None
    if ask.scope == "guild" and ask.subject is None:
        author = ask.author or owner_ctx.actor
        assert author is not None
        return Placed(community_context(author, community, group=place.group), "guild")
    if ask.scope == "user" and ask.origin is not None and ask.subject is not None:
        if ask.subject != ask.author:
            return None  # a member's own fact only: authorship decides who may forget it
        return Placed(community_context(ask.subject, community, group=place.group), "me")
    return None


def _names_folder(place: FilePlace, community: str | None) -> bool:
    """Whether `community` is the one the folder names: by its id, or (a `~<hash>` folder)
    by hashing to it, on the folder's platform."""
    if community is None or place.community is None:
        return False
    if community == place.community:
        return True
    platform = place.community.partition(":")[0]
    return (
        place.digest is not None
        and community.partition(":")[0] == platform
        and names_hash(community, place.digest)
    )


def _str(v: object) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


__all__ = ["HASHED", "WIDENS", "FilePlace", "Placed", "Where", "decide", "default_place"]
