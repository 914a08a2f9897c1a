"""The policy: who may read and write which partition, decided from the context alone.

Pure functions over values. Nothing here touches storage, keys or the network, so each
rule is a truth table in the tests. Identities reach the read rules already *keyed* (the
store holds HMACs, not raw ids): the caller passes the key function, and the policy only
compares keys for equality.

The read rule is `grant_for(viewer, partition)`; every operation (recall, list, get,
forget, export) goes through it. Recall pools only choose where to look first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from .errors import AccessDenied
from .model import (
    Context,
    OriginKind,
    Scope,
    Surface,
    community_id,
    normalize_actor,
    parse_actor,
)

KeyFn = Callable[[str, str], str]
"""(domain, raw id) -> stored key. Domains: "actor", "community" (guilds), "group" (group
chats, kept apart from a guild that happens to share the id), "session"."""

ANY = "*"  # origin key wildcard in grants

# Surfaces an agent (a bearer token, a pinned MCP identity) may assert: what a chat adapter
# sees. The owner-private flows (`owner_dashboard`, `local`) and the general inspector
# belong to the owner's own tools.
AGENT_SURFACES = frozenset(
    {Surface.DM, Surface.GROUP_DM, Surface.GUILD_TEXT, Surface.GUILD_VOICE, Surface.BACKGROUND}
)
# Actor platforms the importers mint for people they could not name: `silo:<hash>` (a silo
# folder no sender matched) and `mem0:<user_id>` (a Mem0 user without a mapping). Whoever
# could assert such an actor would read that person's imported memory, so an agent may not.
SILO_PLATFORM = "silo"
MEM0_PLATFORM = "mem0"  # also the Mem0 client's own: an app moved from Mem0 keeps its users
RESERVED_PLATFORMS = frozenset({SILO_PLATFORM, MEM0_PLATFORM})
GUILD_SURFACES = frozenset({Surface.GUILD_TEXT, Surface.GUILD_VOICE, Surface.GROUP_DM})
_GUILD_SURFACES = GUILD_SURFACES
_NO_SESSION_SURFACES = frozenset({Surface.DASHBOARD, Surface.BACKGROUND})


# --- the gate ---------------------------------------------------------------------------


def is_owner(actor: str | None, owners: Collection[str]) -> bool:
    """An empty owner list means nobody is owner."""
    return actor is not None and actor in owners


def is_owner_private(ctx: Context, owners: Collection[str]) -> bool:
    """True only for: a DM whose actor is an owner; the authenticated owner dashboard flow
    (with an owner actor); `local` with an owner actor. Everything else is false."""
    if not is_owner(ctx.actor, owners):
        return False
    return ctx.surface in (Surface.DM, Surface.OWNER_DASHBOARD, Surface.LOCAL)


def agent_context_denial(ctx: Context) -> str | None:
    """What an agent (a bearer token, a pinned identity) may assert: a chat surface, with
    actors on platforms of their own (never one the importers reserve). Returns the denial
    code, or None when allowed."""
    if ctx.surface not in AGENT_SURFACES:
        return "surface_not_allowed"
    people = [ctx.actor, *ctx.participants] if ctx.actor else list(ctx.participants)
    people += [a for a, _ in ctx.names]  # nor name one (the directory would keep it)
    if any(parse_actor(a)[0] in RESERVED_PLATFORMS for a in people):
        return "reserved_platform"
    return None


# --- partitions and origins -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartitionRef:
    scope: Scope
    key: str = ""  # keyed subject / community / session; empty for owner and global

    @property
    def id(self) -> str:
        return f"{self.scope.value}:{self.key}" if self.key else self.scope.value


OWNER_PARTITION = PartitionRef(Scope.OWNER)
GLOBAL_PARTITION = PartitionRef(Scope.GLOBAL)


def user_partition(actor: str, key: KeyFn) -> PartitionRef:
    return PartitionRef(Scope.USER, key("actor", actor))


def guild_partition(community: str, key: KeyFn, *, group: bool = False) -> PartitionRef:
    return PartitionRef(Scope.GUILD, key("group" if group else "community", community))


def session_partition(session: str, key: KeyFn) -> PartitionRef:
    return PartitionRef(Scope.SESSION, key("session", session))


def space_partition(space_id: str, key: KeyFn) -> PartitionRef:
    """A shared space's own partition, keyed by its id (never its name: a space deleted
    and made again under the same name starts empty, under a new key)."""
    return PartitionRef(Scope.SHARED, key("space", space_id))


PRIVATE_DIRECTORY = PartitionRef(Scope.DIRECTORY)


def directory_partition(community: str | None, key: KeyFn, *, group: bool = False) -> PartitionRef:
    """Where display names are kept: those seen in a community, in that community's
    directory; every other (a DM's, the owner's contexts'), in the private one."""
    if community is None:
        return PRIVATE_DIRECTORY
    return PartitionRef(Scope.DIRECTORY, key("group" if group else "community", community))


@dataclass(frozen=True, slots=True)
class Space:
    """A shared space as the registry holds it: its id and its members (raw actor ids)."""

    id: str
    members: frozenset[str]


def spaces_open_to(
    ctx: Context, owners: Collection[str], spaces: Mapping[str, Space]
) -> dict[str, str]:
    """The shared spaces (name -> id) this context may read and write: every space for
    the owner in private; a member's, in their own DM (or non-owner `local`); in a group chat,
    the spaces of which the actor and every participant are members; none elsewhere (a
    guild, the dashboards, background work)."""
    if is_owner_private(ctx, owners):
        return {name: s.id for name, s in spaces.items()}
    if ctx.actor is None:
        return {}
    if ctx.surface in (Surface.DM, Surface.LOCAL):
        present = {ctx.actor}
    elif ctx.surface is Surface.GROUP_DM:
        present = {ctx.actor, *ctx.participants}
    else:
        return {}
    return {name: s.id for name, s in spaces.items() if present <= s.members}


def origin_of(ctx: Context, owners: Collection[str]) -> tuple[OriginKind, str | None]:
    """Where a write in this context was learned, as (kind, raw id or None)."""
    if is_owner_private(ctx, owners):
        return OriginKind.OWNER, None
    if ctx.surface in (Surface.DM, Surface.LOCAL):
        return OriginKind.DM, ctx.actor
    if ctx.surface in (Surface.GUILD_TEXT, Surface.GUILD_VOICE):
        return OriginKind.GUILD, ctx.community
    if ctx.surface is Surface.GROUP_DM:
        return OriginKind.GROUP, ctx.community
    if ctx.surface is Surface.BACKGROUND:
        return OriginKind.BACKGROUND, None
    return OriginKind.DASHBOARD, None


def origin_domain(kind: OriginKind) -> str | None:
    """Which key domain an origin's id lives in."""
    if kind is OriginKind.DM:
        return "actor"
    if kind is OriginKind.GUILD:
        return "community"
    if kind is OriginKind.GROUP:
        return "group"
    return None


def keyed_origin(
    ctx: Context, owners: Collection[str], key: KeyFn
) -> tuple[OriginKind, str | None]:
    """`origin_of`, with the id keyed as the store holds it."""
    kind, raw = origin_of(ctx, owners)
    domain = origin_domain(kind)
    return kind, key(domain, raw) if domain and raw else None


# --- the viewer: a context seen through the key function -------------------------------

_NAMED_ACTOR = re.compile(r"(?<![\w/])([a-z][a-z0-9_.-]{0,31}:[\w.-]{1,64})")
_MENTION = re.compile(r"<@!?(\d{1,32})>")


def actors_named_in(query: str, platform: str | None) -> set[str]:
    """People a query names explicitly: `platform:id` tokens and platform mentions."""
    named = set()
    for m in _NAMED_ACTOR.finditer(query or ""):
        try:
            named.add(normalize_actor(m.group(1)))
        except Exception:
            continue
    if platform:
        named.update(f"{platform}:{m.group(1)}" for m in _MENTION.finditer(query or ""))
    return named


@dataclass(frozen=True, slots=True)
class Viewer:
    surface: Surface
    owner_private: bool
    is_owner: bool
    actor_key: str | None
    community_key: str | None
    session_key: str | None
    relevant_keys: frozenset[str]  # actor, participants, and people the query names
    owner_keys: frozenset[str]  # the owner's own user partitions
    named_keys: frozenset[str] = frozenset()  # people the query names (ids, mentions, names)
    space_keys: frozenset[str] = frozenset()  # shared spaces open to this context
    about_key: str | None = None  # the community an owner-private context asks about
    about_group: bool = False  # ...and whether it is a group chat


def shows_provenance(v: Viewer, scope: Scope) -> bool:
    """Whether a fact is shown with who wrote it and where (`author`, `origin`, `community`).
    Global memory is read by every audience and written by the owner: outside the owner's
    private contexts its facts come without the owner's actor id or the conversation."""
    return scope is not Scope.GLOBAL or v.owner_private


def viewer(
    ctx: Context,
    owners: Collection[str],
    key: KeyFn,
    *,
    query: str = "",
    named: Iterable[str] = (),
    spaces: Iterable[str] = (),
) -> Viewer:
    """The context as the read rule sees it. `named`: people the query names by a display
    name (the engine resolves them in the directory this context may read); `spaces`: the
    ids of the shared spaces open to it (`spaces_open_to`)."""
    relevant = {ctx.actor, *ctx.participants} if ctx.actor else set(ctx.participants)
    people = actors_named_in(query, ctx.platform) | set(named)
    if ctx.surface in _GUILD_SURFACES:
        relevant |= people
    owner_private = is_owner_private(ctx, owners)
    about_group = bool(ctx.about and ctx.about.startswith("group:"))
    about = ctx.about[len("group:") :] if ctx.about and about_group else ctx.about
    return Viewer(
        surface=ctx.surface,
        owner_private=owner_private,
        is_owner=is_owner(ctx.actor, owners),
        actor_key=key("actor", ctx.actor) if ctx.actor else None,
        community_key=(
            key("group" if ctx.surface is Surface.GROUP_DM else "community", ctx.community)
            if ctx.community
            else None
        ),
        session_key=(
            key("session", ctx.session)
            if ctx.session and ctx.surface not in _NO_SESSION_SURFACES
            else None
        ),
        relevant_keys=frozenset(key("actor", a) for a in relevant if a),
        owner_keys=frozenset(key("actor", o) for o in owners),
        named_keys=frozenset(key("actor", a) for a in people),
        space_keys=frozenset(key("space", s) for s in spaces),
        about_key=(
            key("group" if about_group else "community", about) if about and owner_private else None
        ),
        about_group=about_group,
    )


# --- the read rule ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grant:
    """Which facts of one partition a viewer may read. `origins is None` means all of them;
    otherwise (kind, key) pairs, with key `ANY` admitting every key of that kind."""

    partition: PartitionRef
    origins: frozenset[tuple[OriginKind, str]] | None = None

    def admits(self, kind: OriginKind, key: str | None) -> bool:
        if self.origins is None:
            return True
        return (kind, key or "") in self.origins or (kind, ANY) in self.origins


# What the owner says in private about someone stays owner-only, even in the inspector.
_DASHBOARD_USER_ORIGINS = frozenset((k, ANY) for k in OriginKind if k is not OriginKind.OWNER)


def grant_for(v: Viewer, p: PartitionRef) -> Grant | None:
    """The design's read table. None = nothing in this partition is visible."""
    if p.scope is Scope.GLOBAL:
        return Grant(p)
    if p.scope is Scope.SESSION:
        return Grant(p) if v.session_key is not None and p.key == v.session_key else None
    if v.owner_private:
        return Grant(p)
    if p.scope is Scope.SHARED:  # its members, in a conversation of members only
        return Grant(p) if p.key in v.space_keys else None
    if p.scope is Scope.DIRECTORY:  # the names seen in a community are known there
        in_guild = v.surface in _GUILD_SURFACES and v.community_key
        return Grant(p) if in_guild and p.key == v.community_key else None
    if v.surface in (Surface.DM, Surface.LOCAL) and v.actor_key:
        if p.scope is not Scope.USER:
            return None
        origins = {(OriginKind.DM, v.actor_key)}  # what their own DM wrote
        if p.key == v.actor_key:  # about themselves, learned in any community
            origins |= {(OriginKind.GUILD, ANY), (OriginKind.GROUP, ANY)}
        return Grant(p, frozenset(origins))
    if v.surface in _GUILD_SURFACES and v.community_key:
        if p.scope is Scope.GUILD:
            return Grant(p) if p.key == v.community_key else None
        if p.scope is Scope.USER and p.key in v.relevant_keys:
            ck = v.community_key
            return Grant(p, frozenset({(OriginKind.GUILD, ck), (OriginKind.GROUP, ck)}))
        return None
    if v.surface is Surface.DASHBOARD:
        if p.scope is Scope.USER:
            return Grant(p, _DASHBOARD_USER_ORIGINS)
        if p.scope is Scope.GUILD:
            return Grant(p)
        return None
    return None  # background, owner_dashboard without an owner, anything unforeseen


def can_read(v: Viewer, p: PartitionRef, origin_kind: OriginKind, origin_key: str | None) -> bool:
    g = grant_for(v, p)
    return g is not None and g.admits(origin_kind, origin_key)


# --- pools: where recall and list look ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pool:
    """Partitions to search: named ones, plus every stored partition of `all_of` scopes.
    Every partition still passes `grant_for`; a pool never grants anything by itself."""

    partitions: frozenset[PartitionRef]
    all_of: frozenset[Scope] = frozenset()


def _base(v: Viewer) -> set[PartitionRef]:
    base = {GLOBAL_PARTITION}
    if v.session_key is not None:
        base.add(PartitionRef(Scope.SESSION, v.session_key))
    return base


def visible_pool(v: Viewer) -> Pool:
    """Everything this viewer may see (list, export). The directory is never listed."""
    parts = _base(v)
    if v.owner_private:
        parts.add(OWNER_PARTITION)
        return Pool(frozenset(parts), frozenset({Scope.USER, Scope.GUILD, Scope.SHARED}))
    if v.surface is Surface.DASHBOARD:
        return Pool(frozenset(parts), frozenset({Scope.USER, Scope.GUILD}))
    parts.update(PartitionRef(Scope.SHARED, k) for k in v.space_keys)
    if v.surface in (Surface.DM, Surface.LOCAL) and v.actor_key:
        parts.add(PartitionRef(Scope.USER, v.actor_key))
    elif v.surface in _GUILD_SURFACES and v.community_key:
        parts.add(PartitionRef(Scope.GUILD, v.community_key))
        parts.update(PartitionRef(Scope.USER, k) for k in v.relevant_keys)
    return Pool(frozenset(parts))


def directory_pool(v: Viewer) -> Pool:
    """The directories whose names this viewer may use to know who a query names: every one
    in owner-private contexts, its own community's in a guild or group chat, none elsewhere
    (in someone's DM, a name brings nothing)."""
    if v.owner_private:
        return Pool(frozenset({PRIVATE_DIRECTORY}), frozenset({Scope.DIRECTORY}))
    if v.surface in _GUILD_SURFACES and v.community_key:
        return Pool(frozenset({PartitionRef(Scope.DIRECTORY, v.community_key)}))
    return Pool(frozenset())


def recall_pool(
    ctx: Context,
    v: Viewer,
    key: KeyFn,
    *,
    subjects: Iterable[str] | None = None,
    guilds: Iterable[str] | None = None,
) -> Pool:
    """Default recall pool; owner-private contexts start narrow and may widen on request."""
    subjects = list(subjects or [])
    guilds = list(guilds or [])
    if (subjects or guilds) and not v.owner_private:
        raise AccessDenied(owner_only_code(v.is_owner))
    if not v.owner_private:
        return visible_pool(v)
    parts = _base(v) | {OWNER_PARTITION}
    parts.update(PartitionRef(Scope.USER, k) for k in v.owner_keys)
    parts.update(PartitionRef(Scope.USER, k) for k in v.named_keys)  # the people it names
    if v.about_key is not None:  # the community this context asks about
        parts.add(PartitionRef(Scope.GUILD, v.about_key))
    parts.update(user_partition(normalize_actor(s), key) for s in subjects)
    platform = ctx.platform or ""
    for g in guilds:  # "g1", "slack:g1", or "group:chat9" for a group chat
        group = g.startswith("group:")
        name = g[len("group:") :] if group else g
        community = community_id(platform, name, any_platform=True)
        parts.add(guild_partition(community, key, group=group))
    return Pool(frozenset(parts), frozenset({Scope.SHARED}))  # and every shared space


# --- the write rule -------------------------------------------------------------------------

_OWNER_NS = frozenset({"owner", "private"})
_SELF_NS = frozenset({"me", "self", "user"})
_GUILD_NS = frozenset({"guild", "community", "server"})
_GLOBAL_NS = frozenset({"global", "notes"})


@dataclass(frozen=True, slots=True)
class WriteTarget:
    """Where a write goes, in raw ids (the engine keys them)."""

    scope: Scope
    subject: str | None = None  # user scope: who the fact is about
    community: str | None = None  # guild scope
    group: bool = False  # the community is a group chat
    session: str | None = None  # session scope
    space: str | None = None  # shared scope: the space's id
    space_name: str | None = None  # ...and its name, sealed with the fact


def default_namespace(ctx: Context, owners: Collection[str]) -> str:
    if is_owner_private(ctx, owners) or ctx.surface in (Surface.DM, Surface.LOCAL):
        return "me"
    if ctx.surface in _GUILD_SURFACES:
        return "guild"
    raise AccessDenied("namespace_required")


def resolve_write(
    ctx: Context,
    owners: Collection[str],
    namespace: str | None,
    spaces: Mapping[str, str] | None = None,
) -> WriteTarget:
    """The design's write table. Raises AccessDenied with the table's codes. `spaces`: the
    shared spaces open to this context (`spaces_open_to`: name -> id)."""
    if namespace is None or not str(namespace).strip():
        namespace = default_namespace(ctx, owners)
    ns = str(namespace).strip().lower()
    owner_private = is_owner_private(ctx, owners)
    # An owner_dashboard without an owner actor is nobody's flow: it may write nothing.
    nobody = ctx.surface is Surface.OWNER_DASHBOARD and not owner_private

    if ns in _OWNER_NS:
        if not is_owner(ctx.actor, owners):
            raise AccessDenied("owner_required", scope="owner")
        if not owner_private:
            raise AccessDenied("owner_private_context_required", scope="owner")
        return WriteTarget(Scope.OWNER)
    if ns in _SELF_NS:
        if ctx.actor is None or nobody:
            raise AccessDenied("forbidden_subject", scope="user")
        return WriteTarget(Scope.USER, subject=ctx.actor)
    if ns.startswith("user:"):
        # The id is taken exactly as written after "user:": trailing or disguised spaces
        # are refused (InvalidActor), never trimmed into someone else's id.
        raw = str(namespace)
        subject = normalize_actor(raw[raw.lower().index("user:") + len("user:") :])
        if (subject == ctx.actor and not nobody) or owner_private:
            return WriteTarget(Scope.USER, subject=subject)
        raise AccessDenied("forbidden_subject", scope="user")
    if ns in _GUILD_NS:
        if ctx.surface not in _GUILD_SURFACES or not ctx.community:
            raise AccessDenied("guild_context_required", scope="guild")
        return WriteTarget(
            Scope.GUILD, community=ctx.community, group=ctx.surface is Surface.GROUP_DM
        )
    if ns == "session":
        if not ctx.session or ctx.surface in _NO_SESSION_SURFACES or nobody:
            raise AccessDenied("namespace_required", "this context has no session", scope="session")
        return WriteTarget(Scope.SESSION, session=ctx.session)
    if ns in _GLOBAL_NS:
        if not is_owner(ctx.actor, owners):
            raise AccessDenied("owner_required", scope="global")
        return WriteTarget(Scope.GLOBAL)
    if ns.startswith("shared:"):
        name = str(namespace).strip()[len("shared:") :]
        space = (spaces or {}).get(name)
        if space is None:  # no such space, or not open here: the same answer
            raise AccessDenied("not_a_member", scope="shared")
        return WriteTarget(Scope.SHARED, space=space, space_name=name)
    raise AccessDenied("unknown_namespace")


def write_partition(target: WriteTarget, key: KeyFn) -> PartitionRef:
    if target.scope is Scope.USER:
        assert target.subject is not None
        return user_partition(target.subject, key)
    if target.scope is Scope.GUILD:
        assert target.community is not None
        return guild_partition(target.community, key, group=target.group)
    if target.scope is Scope.SESSION:
        assert target.session is not None
        return session_partition(target.session, key)
    if target.scope is Scope.SHARED:
        assert target.space is not None
        return space_partition(target.space, key)
    if target.scope is Scope.DIRECTORY:
        return directory_partition(target.community, key, group=target.group)
    return PartitionRef(target.scope)


# --- owner-only operations and forgetting ---


def owner_only_code(is_owner_actor: bool) -> str:
    """The denial for an owner-only operation: who is asking decides which rule they broke."""
    return "owner_private_context_required" if is_owner_actor else "owner_required"


def forget_subject_denial(ctx: Context, owners: Collection[str], actor: str) -> str | None:
    """Erasing a person: the owner in an owner-private context, or that person in their own
    DM ("forget me"). Returns the denial code, or None when allowed."""
    if is_owner_private(ctx, owners):
        return None
    if ctx.surface is Surface.DM and ctx.actor == actor:
        return None
    return "owner_private_context_required" if is_owner(ctx.actor, owners) else "forbidden_subject"


def rewrite_denial(
    v: Viewer,
    here: tuple[OriginKind, str | None],
    learned: tuple[OriginKind, str | None],
) -> str | None:
    """Rewriting a fact shows the new text to the fact's audience, which is decided by where
    the fact was learned. So a rewrite must come from that same conversation (`here` is the
    keyed origin of the rewriting context, `learned` the fact's): text typed in a DM is never
    republished into a guild, nor a guild's words into someone's DM. The one exception is the
    owner's explicit dashboard flow, where the owner edits with the fact's audience in view.
    Returns the denial code, or None when allowed."""
    if here == learned:
        return None
    if v.surface is Surface.OWNER_DASHBOARD and v.owner_private:
        return None
    return "origin_mismatch"


def backdate_denial(ctx: Context, authority: Context | None, owners: Collection[str]) -> str | None:
    """Writing history with its original dates (an import, a bulk history load) is the
    owner's, in private: the writing context itself, or the `authority` context vouching
    for it, must be owner-private. Returns the denial code, or None when allowed."""
    for c in (authority, ctx):
        if c is not None and is_owner_private(c, owners):
            return None
    return owner_only_code(is_owner((authority or ctx).actor, owners))


def import_denial(ctx: Context, owners: Collection[str], *, places_entries: bool) -> str | None:
    """Importing plain texts is anyone's: they land where the importing context writes. An
    import that places entries itself (into other people's silos, scopes and origins named
    by the source, with their dates: every layout but plain JSONL, and JSONL lines as
    `export` writes them) is the owner's, in private. Returns the denial code, or None."""
    if not places_entries or is_owner_private(ctx, owners):
        return None
    return owner_only_code(is_owner(ctx.actor, owners))


def export_denial(ctx: Context, owners: Collection[str]) -> str | None:
    """An export writes every visible fact to plaintext files: the owner's alone, on their
    own machine (`local` with an owner actor). Returns the denial code, or None."""
    if not is_owner_private(ctx, owners):
        return owner_only_code(is_owner(ctx.actor, owners))
    return None if ctx.surface is Surface.LOCAL else "local_context_required"


def may_forget(v: Viewer, author_key: str | None, subject_key: str | None) -> bool:
    """Writer, subject, or the owner in an owner-private context (visibility checked first)."""
    if v.owner_private:
        return True
    return v.actor_key is not None and v.actor_key in (author_key, subject_key)


__all__ = [
    "ANY",
    "GLOBAL_PARTITION",
    "MEM0_PLATFORM",
    "OWNER_PARTITION",
    "PRIVATE_DIRECTORY",
    "RESERVED_PLATFORMS",
    "SILO_PLATFORM",
    "Grant",
    "KeyFn",
    "PartitionRef",
    "Pool",
    "Space",
    "Viewer",
    "WriteTarget",
    "actors_named_in",
    "agent_context_denial",
    "backdate_denial",
    "can_read",
    "default_namespace",
    "directory_partition",
    "directory_pool",
    "export_denial",
    "forget_subject_denial",
    "grant_for",
    "guild_partition",
    "import_denial",
    "is_owner",
    "is_owner_private",
    "keyed_origin",
    "may_forget",
    "origin_domain",
    "origin_of",
    "owner_only_code",
    "parse_actor",
    "recall_pool",
    "resolve_write",
    "rewrite_denial",
    "session_partition",
    "space_partition",
    "spaces_open_to",
    "user_partition",
    "viewer",
    "visible_pool",
    "write_partition",
]
