"""Request and response bodies of the `/v1` API.

The context object is what a chat adapter knows from its platform's authenticated metadata.
`to_context` maps it onto the core's `Context.from_spec`; what an agent may assert is
`policy.agent_context_denial`, and who may read or write what is the core's too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ...errors import ERROR_CODES
from ...model import Context, Fact, Hit
from ...policy import AGENT_SURFACES, agent_context_denial
from ...services.paging import iso
from .errors import ApiError


def _valid_unicode(value: str) -> str:
    # Lone surrogates survive JSON decoding but cannot be encoded, stored or echoed.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text") from None
    return value


def _str(max_length: int, min_length: int = 0) -> Any:
    return Annotated[
        str,
        Field(min_length=min_length, max_length=max_length),
        AfterValidator(_valid_unicode),
    ]


Id = _str(200, 1)
ActorStr = _str(240, 1)
DisplayName = _str(200, 1)
Text = _str(40_000)
Query = _str(10_000)
Namespace = _str(300, 1)

Surface = Literal[
    "dm",
    "group_dm",
    "guild_text",
    "guild_voice",
    "background",
    "dashboard",
    "owner_dashboard",
    "local",
]


class ContextIn(BaseModel):
    """Where the conversation happens, as the chat adapter knows it.

    `dm`: actor, optional names and about_guild. `guild_text` / `guild_voice`: actor, guild,
    optional channel, participants and names. `group_dm`: actor, chat, optional
    participants and names. `background`: task.
    """

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"surface": "dm", "actor": "discord:42"},
                {"surface": "guild_text", "actor": "discord:42", "guild": "g1", "channel": "c1"},
                {
                    "surface": "guild_text",
                    "actor": "discord:42",
                    "guild": "g1",
                    "participants": ["discord:43"],
                    "names": {"discord:42": "Alice", "discord:43": "Bob"},
                },
                {"surface": "group_dm", "actor": "telegram:7", "chat": "family"},
                {"surface": "dm", "actor": "discord:1", "about_guild": "g1"},
                {"surface": "background", "task": "digest"},
            ]
        },
    )

    surface: Surface
    actor: ActorStr | None = None
    guild: Id | None = None
    channel: Id | None = None
    chat: Id | None = None
    participants: list[ActorStr] = Field(default_factory=list, max_length=200)
    task: Id | None = None
    names: dict[ActorStr, DisplayName] | None = Field(
        None,
        max_length=64,
        description="The display names the platform shows here, by actor: the speaker's, the "
        "participants', people mentioned. They let a query name someone (\"what is Alice "
        'allergic to?"); they are kept sealed per person, shown only to the owner, and never '
        "change who is speaking. Not for background contexts.",
        examples=[{"discord:42": "Alice", "discord:43": "Bob"}],
    )
    about_guild: Id | None = Field(
        None,
        description="`dm` only: the owner, in their own DM, asking about a community (a guild "
        "id, or `group:CHAT` for a group chat); its memory joins the owner's recall. It counts "
        "only in owner-private contexts and means nothing in anyone else's DM.",
        examples=["g1"],
    )

    def to_context(self) -> Context:
        if self.surface not in AGENT_SURFACES:
            raise ApiError(
                403,
                "surface_not_allowed",
                "agent keys may assert only dm, group_dm, guild_text, guild_voice and "
                "background contexts",
            )
        ctx = Context.from_spec(self.spec())
        if code := agent_context_denial(ctx):
            raise ApiError(403, code, ERROR_CODES[code].example)
        return ctx

    def spec(self) -> dict[str, Any]:
        """The stored form of a pinned identity (sealed; it holds a raw actor id)."""
        return self.model_dump(exclude_defaults=True)


# --- requests --------------------------------------------------------------------------------

ContextField = Annotated[
    ContextIn | None,
    Field(description="The conversation context. May be omitted by a key pinned to one."),
]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    context: ContextField = None


Metadata = Annotated[
    dict[str, Any] | None,
    Field(
        description="The app's own JSON object, sealed with the text and returned with the "
        "fact (at most 4 KiB as JSON, 4 levels deep). Every string in it, keys too, is checked "
        "by the privacy guard like the text.",
        examples=[{"category": "food", "stars": 5}],
    ),
]

Filters = Annotated[
    dict[str, Any] | None,
    Field(
        description="Keep only the facts that match (applied after the read rule: a filter "
        "narrows what this context may see, never widens it). Keys: `kind`, `source_skill`, "
        "`created_at`, `updated_at`, `metadata.<key>` or a bare metadata key. Values: equality, "
        'or `{"$in": [...]}`, `{"$nin": [...]}`, `{"$ne": v}`; times take ranges '
        '(`{"$gte": "2026-01-01T00:00:00Z", "$lt": ...}`); `{"$and": [...]}`, '
        '`{"$or": [...]}` combine. Anything else is `invalid_filter`.',
        examples=[
            {"category": "food"},
            {"metadata.category": {"$in": ["food", "drink"]}, "kind": "fact"},
            {"$or": [{"kind": "habit"}, {"created_at": {"$gte": "2026-01-01T00:00:00Z"}}]},
        ],
    ),
]


class RememberIn(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"context": {"surface": "dm", "actor": "discord:42"}, "text": "I like sushi"},
                {
                    "context": {"surface": "dm", "actor": "discord:42"},
                    "text": "I like sushi",
                    "metadata": {"category": "food"},
                },
                {
                    "context": {"surface": "dm", "actor": "discord:42"},
                    "text": "The bins go out on Tuesday night",
                    "namespace": "shared:home",
                },
            ]
        },
    )

    text: Text
    namespace: Namespace | None = None
    kind: _str(64, 1) = "fact"
    source_skill: _str(128, 1) | None = None
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    ttl_days: float | None = Field(None, gt=0, le=36_500)
    metadata: Metadata = None


CursorStr = Annotated[
    str | None,
    Field(max_length=400, description="The `next_cursor` of the previous page, for the next."),
]


class SearchIn(Body):
    query: Query
    k: int = Field(10, ge=1, le=1000, description="Hits per page.")
    cursor: CursorStr = None
    subjects: list[ActorStr] | None = Field(None, max_length=100)
    guilds: list[Id] | None = Field(None, max_length=100)
    min_score: float | None = Field(None, ge=-1e6, le=1e6)
    detail: bool = Field(
        False,
        description="Also return each hit's whole fact (as `get` returns it) and its score "
        "parts, as the CLI prints them.",
    )
    filters: Filters = None


class ListIn(Body):
    limit: int = Field(100, ge=1, le=1000, description="Facts per page.")
    cursor: CursorStr = None
    scope: Literal["owner", "user", "guild", "session", "shared", "global"] | None = Field(
        None, description="Only this scope (still only what the context may see)."
    )
    filters: Filters = None
    space: Annotated[
        str | None,
        Field(
            max_length=64,
            description="Only this shared space's facts (by name; still only what the "
            "context may see).",
            examples=["home"],
        ),
    ] = None


class UpdateIn(Body):
    text: Text
    metadata: Annotated[
        dict[str, Any] | None,
        Field(
            description="Replace the fact's metadata with this object (checked as on "
            "remember); leave it out to keep the metadata it has.",
            examples=[{"category": "food", "stars": 4}],
        ),
    ] = None


class PromptIn(Body):
    query: Query
    max_tokens: int = Field(800, ge=1, le=32_000)
    history: bool = False  # also facts a newer one superseded, marked as earlier


class ForgetSubjectIn(Body):
    actor: ActorStr | None = Field(
        None, description='The person to erase (default: the one speaking, "forget me").'
    )


class ForgetGuildIn(Body):
    guild: Id


class DenialsIn(Body):
    limit: int = Field(100, ge=1, le=10_000)


class CleanupIn(Body):
    dry_run: bool = False


SpaceName = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
        description="A lowercase label (`home`, `team-x`); members write to it with the "
        "namespace `shared:<name>`.",
        examples=["home"],
    ),
]


class SpaceIn(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "context": {"surface": "dm", "actor": "discord:1"},
                    "name": "home",
                    "members": ["discord:42", "discord:43"],
                }
            ]
        },
    )

    name: SpaceName
    members: list[ActorStr] = Field(
        default_factory=list, max_length=256, description="Who may read and write it."
    )


class MemberIn(Body):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"context": {"surface": "dm", "actor": "discord:1"}, "actor": "discord:44"}
            ]
        },
    )

    actor: ActorStr = Field(description="The member to add or remove (platform:id).")


class AgentTokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    context: ContextIn = Field(description="The one context the token will speak as.")
    ttl_seconds: int = Field(600, ge=1, le=86_400, description="Its lifetime (at most 24 h).")


# --- responses -------------------------------------------------------------------------------


class FactOut(BaseModel):
    """A fact; times are ISO 8601 in UTC."""

    id: str
    scope: str
    text: str
    subject: str | None = None
    community: str | None = None
    origin: str = ""
    author: str | None = None
    tier: str
    kind: str
    source_skill: str | None = None
    confidence: float
    created_at: str | None = None
    updated_at: str | None = None
    expires_at: str | None = None
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="The app's own metadata, sealed with the text."
    )
    space: str | None = Field(None, description="A shared fact's space (its name).")
    changes: list[str] = Field(
        default_factory=list, description="What the privacy guard changed on the way in."
    )
    refreshed: bool = Field(
        False, description="Remembering found this fact already there and refreshed it."
    )

    @classmethod
    def of(cls, fact: Fact) -> FactOut:
        return cls.model_validate(fact.to_dict())


class HitOut(BaseModel):
    id: str
    text: str
    scope: str
    score: float
    superseded_by: str | None = None  # a newer fact here changed what this one says
    fact: FactOut | None = Field(None, description="The whole fact (only with `detail`).")
    scores: dict[str, float] | None = Field(None, description="Score parts (with `detail`).")

    @classmethod
    def of(cls, hit: Hit, *, detail: bool = False) -> HitOut:
        more = {"fact": FactOut.of(hit.fact), "scores": dict(hit.scores)} if detail else {}
        return cls(
            id=hit.fact.id,
            text=hit.fact.text,
            scope=hit.fact.scope.value,
            score=hit.score,
            superseded_by=hit.superseded_by,
            **more,
        )


class SearchOut(BaseModel):
    hits: list[HitOut]
    next_cursor: str | None = Field(None, description="Send as `cursor` for the next page.")


class FactsOut(BaseModel):
    facts: list[FactOut]
    total: int = Field(description="How many facts match, over all pages.")
    next_cursor: str | None = Field(None, description="Send as `cursor` for the next page.")


class ForgottenOut(BaseModel):
    forgotten: str


class VersionOut(BaseModel):
    """One step of a fact's story."""

    fact_id: str = Field(description="The fact this text belonged to (an older one it replaced).")
    event: Literal["add", "update", "supersede"] = Field(
        description="`add`: first said; `update`: its text was replaced; `supersede`: a newer "
        "fact replaced this value."
    )
    text: str
    previous: str | None = Field(None, description="The text this step replaced.")
    at: str | None = Field(None, description="When, ISO 8601 in UTC.")


class HistoryOut(BaseModel):
    versions: list[VersionOut] = Field(description="Oldest first.")


class SpaceOut(BaseModel):
    name: str
    namespace: str = Field(description="What members write with: `shared:<name>`.")
    members: list[str]


class SpacesOut(BaseModel):
    spaces: list[SpaceOut]


class AgentTokenOut(BaseModel):
    token: str = Field(description="Send as `Authorization: Bearer <token>`; shown only now.")
    expires_at: str = Field(description="When it stops working, ISO 8601 in UTC.")


class PromptOut(BaseModel):
    context: str


class DenialOut(BaseModel):
    at: str = Field(description="When, ISO 8601 in UTC.")
    kind: str = "denial"  # or "owner_read"
    code: str
    scope: str | None = None
    surface: str
    count: int = 1  # identical events within one minute share one entry

    @classmethod
    def of(cls, row: Any) -> DenialOut:
        return cls(
            at=iso(row.at) or "",
            kind=getattr(row, "kind", "denial"),
            code=row.code,
            scope=row.scope,
            surface=row.surface,
            count=getattr(row, "count", 1),
        )


class DenialsOut(BaseModel):
    denials: list[DenialOut]


class CleanupHistoryOut(BaseModel):
    history: list[str]


class OpenObject(BaseModel):
    """A report whose fields the core defines (stats, audit, cleanup)."""

    model_config = ConfigDict(extra="allow")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorDetail
