"""Values of the design's vocabulary: actors, contexts, scopes, tiers, facts, hits.

Everything here is an immutable value with validation at construction, so a malformed
actor or context is refused where it enters, with a stable error code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .errors import InvalidActor, InvalidContext

_PLATFORM = r"[a-z][a-z0-9_.-]{0,31}"
_ACTOR_RE = re.compile(rf"^({_PLATFORM}):(\S{{1,200}})$")
_ID_RE = re.compile(r"^\S{1,200}$")


def parse_actor(actor: str) -> tuple[str, str]:
    """Split `platform:id`; raise InvalidActor (without echoing the value) otherwise.

    Nothing is stripped or folded: an id is taken exactly as the adapter authenticated it,
    and one with whitespace, control or invisible format characters anywhere (`discord:1\u00a0`,
    `\u3000discord:1`, a zero-width space) is refused rather than trimmed into someone
    else's id, the owner's included."""
    if not isinstance(actor, str):
        raise InvalidActor("an actor must be a string of the form platform:id")
    m = _ACTOR_RE.match(actor)
    if not m or not _plain(actor):
        raise InvalidActor(
            "an actor must be of the form platform:id (e.g. discord:1234), without spaces "
            "or invisible characters"
        )
    return m.group(1), m.group(2)


def _plain(value: str) -> bool:
    """Encodable, and free of whitespace, control and format characters (any script)."""
    if not _encodable(value):
        return False
    return not any(ch.isspace() or unicodedata.category(ch)[0] in "CZ" for ch in value)


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates cannot be stored or keyed
        return False
    return True


def normalize_actor(actor: str) -> str:
    platform, ident = parse_actor(actor)
    return f"{platform}:{ident}"


def qualify_actor(actor: str, default_platform: str | None) -> str:
    """`platform:id`, or a bare id (digits, as chat platforms number people) on the
    configured default platform; anything else must name its platform."""
    if isinstance(actor, str) and default_platform and actor.isascii() and actor.isdigit():
        return normalize_actor(f"{default_platform}:{actor}")
    return normalize_actor(actor)


def _check_id(value: str | None, what: str) -> str:
    """Ids are taken exactly as given, like actors: no trimming into another id."""
    if not isinstance(value, str) or not _ID_RE.match(value) or not _plain(value):
        raise InvalidContext(f"{what} must be a non-empty id without spaces")
    return value


def _session_part(value: str | None) -> str:
    """One variable part of a session key, escaped so the parts cannot run into each other:
    `%` and `:` are percent-encoded, a literal "-" too (a bare "-" stands for "none"). A
    part without those characters is unchanged, so keys made before the builder stay the
    same."""
    if value is None:
        return "-"
    if value == "-":
        return "%2D"
    return value.replace("%", "%25").replace(":", "%3A")


# Every kind of session and what its parts are: `actor` and `community` are `platform:id`
# (the platform holds no colon, the id is escaped), `id` is one escaped id (None: "-").
# The kind decides the number of colon-separated fields, and no field holds a colon, so
# distinct (kind, parts) never give the same key.
_SESSION_KINDS: dict[str, tuple[str, ...]] = {
    "dm": ("actor",),
    "local": ("actor",),
    "owner_dashboard": ("actor",),
    "guild": ("community", "id"),  # a guild channel (None: the guild without a channel)
    "group": ("community",),
    # a named conversation inside a context (`Context.dm(actor, session="thread-9")`)
    "dm-named": ("actor", "id"),
    "local-named": ("actor", "id"),
    "owner_dashboard-named": ("actor", "id"),
    "guild-named": ("community", "id"),
    "group-named": ("community", "id"),
    "mem0-run": ("actor", "id"),  # a Mem0 `run_id` of one user
    "graph-thread": ("actor", "id"),  # a LangGraph `thread_id` of one actor
}
SESSION_KINDS = frozenset(_SESSION_KINDS)


class SessionKey(str):
    """A session key, as only `session_key` builds it. `Context` accepts nothing else, so
    every session name in the program comes from the one escaping builder."""

    __slots__ = ()


def session_key(kind: str, *parts: str | None) -> SessionKey:
    """The one builder of session keys: `session_key("guild", "discord:g1", "general")`.
    Each kind has a fixed list of parts (`_SESSION_KINDS`); ids are escaped, so a user id
    or run id holding `:` can never make two conversations share a key."""
    schema = _SESSION_KINDS.get(kind)
    if schema is None:
        raise InvalidContext("unknown kind of session")
    if len(parts) != len(schema):
        raise InvalidContext(f"a {kind} session has {len(schema)} part(s)")
    fields = [kind]
    for what, part in zip(schema, parts, strict=True):
        if what == "id":
            if part is not None and (not isinstance(part, str) or not part):
                raise InvalidContext("a session id must be a non-empty string")
            fields.append(_session_part(part))
            continue
        if part is None:
            raise InvalidContext(f"a {kind} session needs its {what}")
        platform, ident = parse_actor(part)
        fields += [platform, _session_part(ident)]
    return SessionKey(":".join(fields))


def legacy_session_key(kind: str, actor: str) -> str:
    """What a private context's default session was keyed as before the builder escaped
    ids (`dm:<actor>` verbatim): erasure removes this one too."""
    return f"{kind}:{actor}"


def guild_session(community: str, channel: str | None) -> SessionKey:
    """The session of a guild channel (a guild "a:b" with channel "c" and a guild "a" with
    channel "b:c" are two sessions)."""
    return session_key("guild", community, channel)


def _about(actor: str, guild: str | None) -> str | None:
    """The community an owner-private context asks about: a guild id on the actor's platform
    (or qualified, `slack:T1`), `group:CHAT` for a group chat (kept as `group:platform:id`)."""
    if guild is None:
        return None
    if not isinstance(guild, str):
        raise InvalidContext("about_guild must be a guild id")
    platform, _ = parse_actor(actor)
    group = guild.startswith("group:")
    ident = _check_id(guild[len("group:") :] if group else guild, "about_guild")
    community = community_id(platform, ident, any_platform=True)
    return f"group:{community}" if group else community


def _named(kind: str, where: str, session: str | SessionKey | None) -> SessionKey | None:
    """A constructor's `session=`: a `SessionKey` as built, a plain name made a key of its
    own inside this context (`Context.dm(a, session="t")` never reaches another's)."""
    if session is None or isinstance(session, SessionKey):
        return session
    if not isinstance(session, str):
        raise InvalidContext("session must be a name (a string) or a SessionKey")
    return session_key(f"{kind}-named", where, _check_id(session, "session"))


def community_id(platform: str, ident: str, *, any_platform: bool = False) -> str:
    """A community is named by platform and guild/chat id: discord g1 and slack g1 differ.
    An already-qualified id must name the actor's own platform (the owner, widening a recall
    in private, may name any)."""
    m = _ACTOR_RE.match(ident)
    if m and ":" in ident:
        if m.group(1) != platform and not any_platform:
            raise InvalidContext("a community id must be on the actor's own platform")
        return ident
    return f"{platform}:{ident}"


class Surface(StrEnum):
    DM = "dm"
    GROUP_DM = "group_dm"
    GUILD_TEXT = "guild_text"
    GUILD_VOICE = "guild_voice"
    DASHBOARD = "dashboard"
    OWNER_DASHBOARD = "owner_dashboard"
    LOCAL = "local"
    BACKGROUND = "background"


class Scope(StrEnum):
    OWNER = "owner"
    USER = "user"
    GUILD = "guild"
    SESSION = "session"
    GLOBAL = "global"
    SHARED = "shared"  # a shared space: a household, a team (`Memory.create_space`)
    # the people directory: display names seen in a community (one partition each) or in
    # private (one partition); read to know who a query names, never listed or recalled
    DIRECTORY = "directory"


class Tier(StrEnum):
    PUBLIC = "public"  # T1: aggregated, identifier-free
    INTERNAL = "internal"  # T2: encrypted, expiring
    PRIVATE = "private"  # T3: never stored


class OriginKind(StrEnum):
    """Where a fact was learned. `owner` is any owner-private surface."""

    DM = "dm"
    GUILD = "guild"
    GROUP = "group"
    OWNER = "owner"
    DASHBOARD = "dashboard"
    BACKGROUND = "background"


_SPEC_FIELDS: dict[str, frozenset[str]] = {
    "dm": frozenset({"actor", "names", "about_guild"}),
    "guild_text": frozenset({"actor", "guild", "channel", "participants", "names"}),
    "guild_voice": frozenset({"actor", "guild", "channel", "participants", "names"}),
    "group_dm": frozenset({"actor", "chat", "participants", "names"}),
    "background": frozenset({"task"}),
}
MAX_NAMES = 64  # display names one context may carry
MAX_NAME_CHARS = 64

Names = tuple[tuple[str, str], ...]


def display_names(names: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> Names:
    """The display names a context carries (`{actor: name}`), checked: each actor is
    `platform:id`, each name one line of 1-64 visible characters. Sorted, so equal names
    make equal contexts."""
    if not names:
        return ()
    pairs = list(names.items()) if isinstance(names, Mapping) else list(names)
    if len(pairs) > MAX_NAMES:
        raise InvalidContext(f"a context carries at most {MAX_NAMES} display names")
    out: dict[str, str] = {}
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise InvalidContext("names map actors (platform:id) to display names")
        actor, name = pair
        if not isinstance(name, str):
            raise InvalidContext("a display name must be a string")
        shown = " ".join(name.split())
        if (
            not shown
            or len(shown) > MAX_NAME_CHARS
            or not _encodable(shown)
            or any(unicodedata.category(c) in ("Cc", "Cf") for c in shown)
        ):
            raise InvalidContext(
                f"a display name is one line of 1-{MAX_NAME_CHARS} visible characters"
            )
        out[normalize_actor(actor)] = shown
    return tuple(sorted(out.items()))


def _need(spec: Mapping[str, Any], name: str) -> str:
    value = spec.get(name)
    if value is None:
        raise InvalidContext(f"this surface needs {name}")
    return value


@dataclass(frozen=True, slots=True)
class Context:
    """Where a conversation happens. Built by the chat adapter from authenticated metadata."""

    surface: Surface
    actor: str | None = None
    community: str | None = None  # guild or group chat, as `platform:id`
    channel: str | None = None
    participants: tuple[str, ...] = ()
    session: str | None = None
    task: str | None = None
    # Display names the platform shows here ({actor: name}), for the people directory: the
    # actor's own, the participants', people mentioned. Never identity: who is who comes
    # from the actor ids alone.
    names: Names = ()
    # An owner-private context tied to a community (`Context.dm(owner, about_guild="g1")`):
    # the owner asking about that guild; its memory joins the owner's recall pool.
    about: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.surface, Surface):
            try:
                object.__setattr__(self, "surface", Surface(self.surface))
            except ValueError:
                raise InvalidContext("unknown surface") from None
        if self.actor is not None:
            object.__setattr__(self, "actor", normalize_actor(self.actor))
        object.__setattr__(
            self, "participants", tuple(normalize_actor(p) for p in self.participants)
        )
        if self.session is not None and not isinstance(self.session, SessionKey):
            raise InvalidContext("a session key comes from model.session_key (or a constructor)")
        object.__setattr__(self, "names", display_names(self.names))
        if self.about is not None and self.surface not in (
            Surface.DM,
            Surface.LOCAL,
            Surface.OWNER_DASHBOARD,
        ):
            raise InvalidContext("only a DM, local or owner dashboard context asks about a guild")

    @property
    def platform(self) -> str | None:
        return parse_actor(self.actor)[0] if self.actor else None

    # Constructors: the only supported way to build each kind of context.
    @classmethod
    def dm(
        cls,
        actor: str,
        *,
        session: str | SessionKey | None = None,
        names: Mapping[str, str] | None = None,
        about_guild: str | None = None,
    ) -> Context:
        """A direct message. `about_guild`: the owner, in their DM, asking about a community
        (a guild id, `group:CHAT` for a group chat); it counts only in owner-private
        contexts."""
        actor = normalize_actor(actor)
        return cls(
            Surface.DM,
            actor,
            session=_named("dm", actor, session) or session_key("dm", actor),
            names=display_names(names),
            about=_about(actor, about_guild),
        )

    @classmethod
    def guild(
        cls,
        actor: str,
        guild: str,
        *,
        channel: str | None = None,
        participants: Iterable[str] = (),
        voice: bool = False,
        session: str | SessionKey | None = None,
        names: Mapping[str, str] | None = None,
    ) -> Context:
        actor = normalize_actor(actor)
        platform, _ = parse_actor(actor)
        community = community_id(platform, _check_id(guild, "guild"))
        if channel is not None:
            channel = _check_id(channel, "channel")
        return cls(
            Surface.GUILD_VOICE if voice else Surface.GUILD_TEXT,
            actor,
            community=community,
            channel=channel,
            participants=tuple(participants),
            session=_named("guild", community, session) or guild_session(community, channel),
            names=display_names(names),
        )

    @classmethod
    def group_dm(
        cls,
        actor: str,
        chat: str,
        *,
        participants: Iterable[str] = (),
        session: str | SessionKey | None = None,
        names: Mapping[str, str] | None = None,
    ) -> Context:
        actor = normalize_actor(actor)
        platform, _ = parse_actor(actor)
        community = community_id(platform, _check_id(chat, "chat"))
        return cls(
            Surface.GROUP_DM,
            actor,
            community=community,
            participants=tuple(participants),
            session=_named("group", community, session) or session_key("group", community),
            names=display_names(names),
        )

    @classmethod
    def owner_dashboard(
        cls,
        actor: str,
        *,
        session: str | SessionKey | None = None,
        about_guild: str | None = None,
    ) -> Context:
        actor = normalize_actor(actor)
        return cls(
            Surface.OWNER_DASHBOARD,
            actor,
            session=_named("owner_dashboard", actor, session)
            or session_key("owner_dashboard", actor),
            about=_about(actor, about_guild),
        )

    @classmethod
    def dashboard(cls, actor: str | None = None) -> Context:
        return cls(Surface.DASHBOARD, actor)

    @classmethod
    def local(
        cls,
        actor: str,
        *,
        session: str | SessionKey | None = None,
        about_guild: str | None = None,
    ) -> Context:
        actor = normalize_actor(actor)
        return cls(
            Surface.LOCAL,
            actor,
            session=_named("local", actor, session) or session_key("local", actor),
            about=_about(actor, about_guild),
        )

    @classmethod
    def background(cls, task: str) -> Context:
        return cls(Surface.BACKGROUND, task=_check_id(task, "task"))

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> Context:
        """A context from its plain description, as an API body or a pinned agent key holds
        it: `{"surface": "dm", "actor": ...}`, `{"surface": "guild_text", "actor", "guild",
        "channel", "participants"}`, `{"surface": "group_dm", "actor", "chat", "participants"}`,
        `{"surface": "background", "task"}`. Fields that do not belong to the surface are an
        error, never ignored."""
        surface = spec.get("surface")
        fields = _SPEC_FIELDS.get(surface) if isinstance(surface, str) else None
        if fields is None:
            raise InvalidContext("this surface cannot be described by a context object")
        for name in (
            "actor",
            "guild",
            "channel",
            "chat",
            "participants",
            "task",
            "names",
            "about_guild",
        ):
            if name not in fields and spec.get(name):
                raise InvalidContext(f"{name} does not belong to a {surface} context")
        if surface == "background":
            return cls.background(_need(spec, "task"))
        actor = _need(spec, "actor")
        names = spec.get("names") or None
        if names is not None and not isinstance(names, Mapping):
            raise InvalidContext("names must be an object of actor: display name")
        if surface == "dm":
            return cls.dm(actor, names=names, about_guild=spec.get("about_guild"))
        people = tuple(spec.get("participants") or ())
        if surface == "group_dm":
            return cls.group_dm(actor, _need(spec, "chat"), participants=people, names=names)
        return cls.guild(
            actor,
            _need(spec, "guild"),
            channel=spec.get("channel"),
            participants=people,
            voice=surface == "guild_voice",
            names=names,
        )

    def describe(self) -> str:
        """A short label for logs: the surface only, never an id."""
        return self.surface.value


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    scope: Scope
    text: str
    subject: str | None = None  # the person a user-scope fact is about
    community: str | None = None  # guild-scope community, or the origin community
    space: str | None = None  # a shared-scope fact's space (its name)
    origin: str = ""  # dm:<writer> | guild:<community> | group:<community> | owner | ...
    author: str | None = None
    tier: Tier = Tier.INTERNAL
    kind: str = "fact"
    source_skill: str | None = None
    confidence: float = 1.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    expires_at: datetime | None = None
    # the app's own metadata (`remember(..., metadata=)`): a JSON object, sealed with the text
    metadata: Mapping[str, Any] = field(default_factory=dict)
    changes: tuple[str, ...] = ()  # what the privacy guard changed on the way in (not stored)
    # True when remembering found this fact already there (the same text, in the same place,
    # from the same kind of conversation) and refreshed it instead of storing it twice
    refreshed: bool = False

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, datetime):
                value = value.isoformat()
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            d[name] = value
        return d


@dataclass(frozen=True, slots=True)
class Hit:
    fact: Fact
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    # The id of a newer fact, visible here, that states the same thing with another value
    # ("I moved to Berlin" for "I live in Paris"); None when this fact is current.
    superseded_by: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "fact": self.fact.to_dict(),
            "score": self.score,
            "scores": dict(self.scores),
            "superseded_by": self.superseded_by,
        }
