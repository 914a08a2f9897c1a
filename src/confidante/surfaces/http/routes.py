"""The `/v1` routes: each parses a body, builds a `Context` and makes one core call.

Every body carries the conversation context (a key pinned to an identity may omit it), so
actions on one fact are `POST /v1/memories/{id}/get|update|forget` rather than GET/DELETE,
which cannot portably carry a body. Handlers are plain functions: FastAPI runs them in its
thread pool, which keeps the blocking store off the event loop.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Depends, Path, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ...errors import ERROR_CODES, InvalidContext, InvalidInput, error_example
from ...memory import Memory
from ...model import Context
from ...services.credentials import (
    AGENT_KEY_SCOPE,
    DELEGATION_MESSAGE,
    AgentKey,
    AgentKeys,
)
from ...services.paging import iso
from .errors import ApiError
from .schemas import (
    AgentTokenIn,
    AgentTokenOut,
    Body,
    CleanupHistoryOut,
    CleanupIn,
    DenialOut,
    DenialsIn,
    DenialsOut,
    ErrorOut,
    FactOut,
    FactsOut,
    ForgetGuildIn,
    ForgetSubjectIn,
    ForgottenOut,
    HistoryOut,
    HitOut,
    ListIn,
    MemberIn,
    OpenObject,
    PromptIn,
    PromptOut,
    RememberIn,
    SearchIn,
    SearchOut,
    SpaceIn,
    SpaceOut,
    SpacesOut,
    UpdateIn,
    VersionOut,
)

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="agentKey",
    description="An agent key from `confidante keys add-agent NAME`.",
)


def agent(
    request: Request,
    _creds: HTTPAuthorizationCredentials | None = Security(_bearer),
) -> AgentKey:
    """The verified agent key. The gate already answered 401 without one; this is the
    declaration OpenAPI shows, and a second line of defence."""
    key = request.scope.get(AGENT_KEY_SCOPE)
    if not isinstance(key, AgentKey):
        raise ApiError(401, "unauthenticated", "a valid agent key is required")
    return key


def _mem(request: Request) -> Memory:
    return request.app.state.memory


def context_for(body: Body, key: AgentKey, mem: Memory) -> Context:
    """The body's context, or the key's pinned one. A pinned key speaks only as itself: the
    body's context must be the pinned one, except for the display names it carries (what
    the platform shows for this message's people: labels, never identity)."""
    pinned = key.pinned_context()
    if body.context is None:
        if pinned is None:
            raise InvalidContext("a context is required")
        return pinned
    try:
        ctx = body.context.to_context()
    except ApiError as e:
        # Invariant 11: log the refusal too (the surface only; no ids, no content).
        mem.record_denial(body.context.surface, e.code)
        raise
    if pinned is not None and replace(ctx, names=pinned.names) != pinned:
        mem.record_denial(ctx.surface.value, "pinned_context_mismatch")
        raise ApiError(
            403, "pinned_context_mismatch", "this agent key is pinned to another context"
        )
    return ctx


def _responses(statuses: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """Each error status with an example body for every code it can carry (the catalogue)."""
    out: dict[int | str, dict[str, Any]] = {}
    for status, description in statuses.items():
        codes = [c for c, d in ERROR_CODES.items() if d.status == status and c in API_CODES]
        out[status] = {
            "model": ErrorOut,
            "description": f"{description}. Codes: " + ", ".join(f"`{c}`" for c in codes),
            "content": {
                "application/json": {
                    "examples": {
                        c: {"summary": ERROR_CODES[c].when, "value": error_example(c)}
                        for c in codes
                    }
                }
            },
        }
    return out


# what the API itself can answer (the rest of the catalogue is the CLI's and the library's)
API_CODES = set(ERROR_CODES) - {
    "agent_context_forbids",
    "client_mode_forbids",
    "server_unreachable",
    "config_error",
    "database_missing",
    "database_exists",
    "owner_missing",
    "agent_key_exists",
    "error",
    "access_denied",
    "master_key_error",
}

_ERRORS = _responses(
    {
        400: "Malformed request",
        401: "Missing, unknown or revoked agent key",
        403: "Refused by policy (the code says why)",
        404: "No such fact (or shared space) visible in this context",
        413: "Body too large",
        415: "Not a JSON body",
        422: "Invalid input, or refused by the privacy guard",
        500: "Server-side failure (key, store or integrity)",
    }
)

FactId = Path(
    min_length=1,
    max_length=64,
    pattern=r"^[A-Za-z0-9_-]+$",
    description="A fact id, or a unique prefix of it (at least 4 characters) among the facts "
    "this context may see.",
)

router = APIRouter(prefix="/v1", responses=_ERRORS, tags=["memory"])


def _resolve(request: Request, body: Body, key: AgentKey) -> tuple[Memory, Context]:
    mem = _mem(request)
    return mem, context_for(body, key, mem)


@router.post("/memories", status_code=201, response_model=FactOut, summary="Remember a fact")
def remember(body: RememberIn, request: Request, key: AgentKey = Depends(agent)) -> FactOut:
    mem, ctx = _resolve(request, body, key)
    ttl = timedelta(days=body.ttl_days) if body.ttl_days is not None else None
    fact = mem.remember(
        ctx,
        body.text,
        body.namespace,
        kind=body.kind,
        source_skill=body.source_skill,
        confidence=body.confidence,
        ttl=ttl,
        metadata=body.metadata,
    )
    return FactOut.of(fact)


@router.post(
    "/memories/search",
    response_model=SearchOut,
    response_model_exclude_unset=True,  # a hit's `fact` and `scores` only when asked for
    summary="Recall, best first",
)
def search(body: SearchIn, request: Request, key: AgentKey = Depends(agent)) -> SearchOut:
    mem, ctx = _resolve(request, body, key)
    page = mem.search_page(
        ctx,
        body.query,
        limit=body.k,
        cursor=body.cursor,
        subjects=body.subjects,
        guilds=body.guilds,
        min_score=body.min_score,
        filters=body.filters,
    )
    return SearchOut(
        hits=[HitOut.of(h, detail=body.detail) for h in page.hits], next_cursor=page.next_cursor
    )


@router.post("/memories/list", response_model=FactsOut, summary="Everything visible here")
def list_memories(body: ListIn, request: Request, key: AgentKey = Depends(agent)) -> FactsOut:
    mem, ctx = _resolve(request, body, key)
    page = mem.list_page(
        ctx,
        limit=body.limit,
        cursor=body.cursor,
        scope=body.scope,
        filters=body.filters,
        space=body.space,
    )
    return FactsOut(
        facts=[FactOut.of(f) for f in page.facts], total=page.total, next_cursor=page.next_cursor
    )


@router.post("/memories/{fact_id}/get", response_model=FactOut, summary="One fact by id")
def get(
    body: Body, request: Request, fact_id: str = FactId, key: AgentKey = Depends(agent)
) -> FactOut:
    mem, ctx = _resolve(request, body, key)
    return FactOut.of(mem.get(ctx, fact_id))


@router.post("/memories/{fact_id}/update", response_model=FactOut, summary="Replace its text")
def update(
    body: UpdateIn, request: Request, fact_id: str = FactId, key: AgentKey = Depends(agent)
) -> FactOut:
    """Only where the fact was learned (or in the owner's dashboard), by its writer, its
    subject or the owner in private. Without `metadata` the fact keeps the metadata it has;
    the text it had is kept for `history`."""
    mem, ctx = _resolve(request, body, key)
    return FactOut.of(mem.update(ctx, fact_id, body.text, metadata=body.metadata))


@router.post(
    "/memories/{fact_id}/history", response_model=HistoryOut, summary="The texts it went through"
)
def history(
    body: Body, request: Request, fact_id: str = FactId, key: AgentKey = Depends(agent)
) -> HistoryOut:
    """Oldest first: the facts it superseded that this context may see, its first text, and
    every update since. `not_found` exactly where `get` answers it."""
    mem, ctx = _resolve(request, body, key)
    return HistoryOut(versions=[VersionOut(**v.to_dict()) for v in mem.history(ctx, fact_id)])


@router.post("/memories/{fact_id}/forget", response_model=ForgottenOut, summary="Forget it")
def forget(
    body: Body, request: Request, fact_id: str = FactId, key: AgentKey = Depends(agent)
) -> ForgottenOut:
    mem, ctx = _resolve(request, body, key)
    mem.forget(ctx, fact_id)
    return ForgottenOut(forgotten=fact_id)


@router.post("/prompt-context", response_model=PromptOut, summary="Identity block + memories")
def prompt_context(body: PromptIn, request: Request, key: AgentKey = Depends(agent)) -> PromptOut:
    mem, ctx = _resolve(request, body, key)
    return PromptOut(
        context=mem.prompt_context(ctx, body.query, body.max_tokens, history=body.history)
    )


@router.post("/subjects/forget", summary="Erase everything about one person")
def forget_subject(
    body: ForgetSubjectIn, request: Request, key: AgentKey = Depends(agent)
) -> dict[str, int]:
    mem, ctx = _resolve(request, body, key)
    actor = body.actor or ctx.actor
    if actor is None:
        raise InvalidInput("name the actor to erase (this context has no actor)")
    return mem.forget_subject(ctx, actor)


@router.post("/guilds/forget", summary="Erase a community's memory")
def forget_guild(
    body: ForgetGuildIn, request: Request, key: AgentKey = Depends(agent)
) -> dict[str, int]:
    mem, ctx = _resolve(request, body, key)
    return mem.forget_guild(ctx, body.guild)


@router.get("/stats", response_model=OpenObject, summary="Public (T1) usage statistics")
def stats(request: Request, key: AgentKey = Depends(agent)) -> dict[str, Any]:
    # T1 is identifier-free by construction, so any agent may read it.
    return _mem(request).public_stats()


@router.post("/denials", response_model=DenialsOut, summary="The denial log (owner, private)")
def denials(body: DenialsIn, request: Request, key: AgentKey = Depends(agent)) -> DenialsOut:
    mem, ctx = _resolve(request, body, key)
    return DenialsOut(denials=[DenialOut.of(r) for r in mem.denials(ctx, body.limit)])


@router.post("/audit", response_model=OpenObject, summary="Privacy audit (owner, private)")
def audit(body: Body, request: Request, key: AgentKey = Depends(agent)) -> dict[str, Any]:
    mem, ctx = _resolve(request, body, key)
    mem.require_owner_private(ctx)  # audit() itself takes no context
    return mem.audit()


@router.post("/cleanup", response_model=OpenObject, summary="Run cleanup (owner, private)")
def cleanup(body: CleanupIn, request: Request, key: AgentKey = Depends(agent)) -> dict[str, Any]:
    mem, ctx = _resolve(request, body, key)
    mem.require_owner_private(ctx)  # cleanup() itself takes no context
    return mem.cleanup(dry_run=body.dry_run)


@router.post("/cleanup/history", response_model=CleanupHistoryOut, summary="Cleanup log lines")
def cleanup_history(
    body: Body, request: Request, key: AgentKey = Depends(agent)
) -> CleanupHistoryOut:
    mem, ctx = _resolve(request, body, key)
    return CleanupHistoryOut(history=mem.cleanup_history(ctx))


# -- shared spaces (the owner, in private) ---------------------------------------------------

SpacePath = Path(
    pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
    max_length=64,
    description="The space's name.",
)
_SPACES = ["shared spaces"]


@router.post(
    "/spaces",
    status_code=201,
    response_model=SpaceOut,
    summary="Create a shared space",
    tags=_SPACES,
)
def create_space(body: SpaceIn, request: Request, key: AgentKey = Depends(agent)) -> SpaceOut:
    """A household, a team: memory shared on purpose. The owner, in an owner-private context
    (else `owner_required` / `owner_private_context_required`). Members write with the
    namespace `shared:<name>` and read the space in their DMs and in group chats of members
    only; never in a guild. A taken name is `space_exists`."""
    mem, ctx = _resolve(request, body, key)
    return SpaceOut.model_validate(mem.create_space(ctx, body.name, body.members))


@router.post("/spaces/list", response_model=SpacesOut, summary="Every shared space", tags=_SPACES)
def list_spaces(body: Body, request: Request, key: AgentKey = Depends(agent)) -> SpacesOut:
    """Each space with its members (the owner, in private)."""
    mem, ctx = _resolve(request, body, key)
    return SpacesOut(spaces=[SpaceOut.model_validate(s) for s in mem.list_spaces(ctx)])


@router.post(
    "/spaces/{name}/members/add", response_model=SpaceOut, summary="Add a member", tags=_SPACES
)
def add_member(
    body: MemberIn, request: Request, name: str = SpacePath, key: AgentKey = Depends(agent)
) -> SpaceOut:
    """From the next operation on, they read and write the space (the owner, in private)."""
    mem, ctx = _resolve(request, body, key)
    return SpaceOut.model_validate(mem.add_member(ctx, name, body.actor))


@router.post(
    "/spaces/{name}/members/remove",
    response_model=SpaceOut,
    summary="Remove a member",
    tags=_SPACES,
)
def remove_member(
    body: MemberIn, request: Request, name: str = SpacePath, key: AgentKey = Depends(agent)
) -> SpaceOut:
    """From the next operation on, they read nothing of the space; what they wrote there stays
    the space's (the owner, in private)."""
    mem, ctx = _resolve(request, body, key)
    return SpaceOut.model_validate(mem.remove_member(ctx, name, body.actor))


@router.post("/spaces/{name}/delete", summary="Erase a shared space", tags=_SPACES)
def delete_space(
    body: Body, request: Request, name: str = SpacePath, key: AgentKey = Depends(agent)
) -> dict[str, int]:
    """Its facts and its key are destroyed (crypto-erasure, as for a person), then its name
    and members (the owner, in private)."""
    mem, ctx = _resolve(request, body, key)
    return mem.delete_space(ctx, name)


@router.post(
    "/agent-tokens",
    status_code=201,
    response_model=AgentTokenOut,
    summary="Mint a short-lived token pinned to one context",
    tags=["agent keys"],
)
def agent_token(
    body: AgentTokenIn, request: Request, key: AgentKey = Depends(agent)
) -> AgentTokenOut:
    """For an agent host serving many people: before running the model's tools for a message,
    mint a token that can speak only as that message's context, and give the model that
    token instead of this key. Only a key that is not pinned may mint (a pinned key or a
    delegated token: `delegation_forbidden`). The token expires after `ttl_seconds` (default
    10 minutes, at most 24 hours) and dies with this key's revocation; nothing is stored."""
    mem = _mem(request)
    if key.pinned is not None:
        mem.record_denial("api", "delegation_forbidden")
        raise ApiError(403, "delegation_forbidden", DELEGATION_MESSAGE)
    try:
        body.context.to_context()  # what an agent may assert, checked as every route does
    except ApiError as e:
        mem.record_denial(body.context.surface, e.code)
        raise
    token, expires = AgentKeys(mem).delegate(key.name, body.context.spec(), body.ttl_seconds)
    return AgentTokenOut(token=token, expires_at=iso(expires) or "")
