"""MCP server: memory tools for agents, over stdio or streamable HTTP (official `mcp` SDK).

Who a tool acts as is fixed outside the tools: over stdio by the process (the local owner,
or an identity pinned by flags), over HTTP by the verified bearer token's pinned context.
No tool takes an actor or a context argument, so an agent talked into claiming to be
someone else has no way to say so.

Run `python -m confidante.surfaces.mcp [--as ACTOR --dm ...]` or `confidante mcp`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, cast

from mcp.server.mcpserver import Context as MCPContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from .._version import __version__
from ..errors import ConfidanteError, describe_validation
from ..memory import Memory
from ..model import Context, Surface

IdentityFn = Callable[[MCPContext], Context]

HTTP_CONTEXT_SCOPE = "confidante.context"
"""ASGI scope key under which the server's gate leaves the verified key's pinned Context."""

Metadata = Annotated[
    dict[str, Any] | None,
    Field(
        description="Your app's own JSON object, kept with the fact and returned with it "
        '(e.g. {"category": "food"}); checked like the text, at most 4 KiB.'
    ),
]
Filters = Annotated[
    dict[str, Any] | None,
    Field(
        description="Keep only facts that match, among those you may see: equality on "
        "kind, source_skill or a metadata key, $in/$nin/$ne, created_at/updated_at ranges "
        '({"$gte": "2026-01-01T00:00:00Z"}), $and/$or. E.g. {"category": "food"}.'
    ),
]
SpaceName = Annotated[str, Field(max_length=64, description="The space's name, e.g. home.")]
Member = Annotated[str, Field(max_length=240, description="The member, as platform:id.")]
Members = Annotated[
    list[str] | None, Field(max_length=256, description="Who may read and write it.")
]

INSTRUCTIONS = (
    "Long-term memory that is private by design. You act as one fixed identity; what you "
    "may read and write depends on where the conversation happens, and is decided by the "
    "memory, not by you. Refusals carry a stable code (e.g. owner_required, not_found). "
    "Never store secrets, contact details or ids: they are refused."
)


class _WithholdArguments(logging.Filter):
    """The SDK logs a failed call with the tool name and error text the client sent (an
    unknown tool's name, say); those values are withheld, the event is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple("<withheld>" for _ in record.args)
        return True


for _name in ("mcp.server.mcpserver.server", "mcp.server.lowlevel.server"):
    _sdk_log = logging.getLogger(_name)
    if not any(isinstance(f, _WithholdArguments) for f in _sdk_log.filters):
        _sdk_log.addFilter(_WithholdArguments())


@contextmanager
def _tool_errors() -> Iterator[None]:
    """Core errors become tool errors whose text starts with the stable code."""
    try:
        yield
    except ConfidanteError as e:
        raise ToolError(f"{e.code}: {e.message}") from None


def http_identity(mctx: MCPContext) -> Context:
    """The Context the HTTP gate verified for this very request."""
    request = mctx.request_context.request
    ctx = getattr(request, "scope", {}).get(HTTP_CONTEXT_SCOPE)
    if not isinstance(ctx, Context):
        raise ToolError("unauthenticated: this request carries no verified identity")
    return ctx


def fixed_identity(ctx: Context) -> IdentityFn:
    return lambda _mctx: ctx


class _Server(MCPServer):
    """The SDK's server, with argument errors that never carry what was sent: pydantic's
    message quotes the rejected value (`input_value=...`), which may be a secret."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: MCPContext | None = None
    ) -> Any:
        if self._tool_manager.get_tool(name) is None:
            raise ToolError("unknown_tool: no tool has that name")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if isinstance(e.__cause__, ValidationError):
                errors = e.__cause__.errors(include_input=False, include_url=False)
                raise ToolError(f"invalid_input: {describe_validation(list(errors))}") from None
            raise


def build_server(mem: Memory, identity: IdentityFn, *, owner_tools: bool = False) -> MCPServer:
    """The memory tools, acting as `identity(request)`; with `owner_tools`, also the shared
    space tools (only for the owner's own local identity over stdio: `run_stdio`)."""
    server: MCPServer = _Server(
        name="confidante",
        title="confidante memory",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(
        title="Remember",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    def memory_write(
        text: Annotated[str, Field(description="One fact, in plain words.")],
        ctx: MCPContext,
        namespace: Annotated[
            str | None,
            Field(
                description="Where it goes: me (default in a DM), guild (default in a "
                "server), owner, session, global, or user:<actor>. The memory decides "
                "whether you may."
            ),
        ] = None,
        metadata: Metadata = None,
    ) -> dict[str, Any]:
        """Remember one fact in the namespace this conversation may write. Saying the same
        sentence again returns the fact already there (`refreshed`: true)."""
        with _tool_errors():
            return mem.remember(identity(ctx), text, namespace, metadata=metadata).to_dict()

    @server.tool(title="Search memory", annotations=read_only)
    def memory_search(
        query: Annotated[str, Field(description="What to look for.")],
        ctx: MCPContext,
        k: Annotated[int, Field(ge=1, le=100, description="How many hits.")] = 10,
        filters: Filters = None,
    ) -> dict[str, Any]:
        """Recall what this conversation may see, best first."""
        with _tool_errors():
            hits = mem.recall(identity(ctx), query, k, filters=filters)
        return {
            "hits": [
                {
                    "id": h.fact.id,
                    "text": h.fact.text,
                    "scope": h.fact.scope.value,
                    "score": h.score,
                    "superseded_by": h.superseded_by,
                }
                for h in hits
            ]
        }

    @server.tool(title="List memories", annotations=read_only)
    def memory_list(
        ctx: MCPContext,
        filters: Filters = None,
        limit: Annotated[int, Field(ge=1, le=100, description="Facts per page.")] = 20,
        cursor: Annotated[
            str | None,
            Field(max_length=400, description="next_cursor of the previous page."),
        ] = None,
    ) -> dict[str, Any]:
        """What this conversation may see, newest first, a page at a time."""
        with _tool_errors():
            page = mem.list_page(identity(ctx), limit=limit, cursor=cursor, filters=filters)
        return {
            "facts": [f.to_dict() for f in page.facts],
            "total": page.total,
            "next_cursor": page.next_cursor,
        }

    @server.tool(title="A memory's history", annotations=read_only)
    def memory_history(
        id: Annotated[str, Field(description="A fact id from memory_search or memory_list.")],
        ctx: MCPContext,
    ) -> dict[str, Any]:
        """The texts a fact went through, oldest first (its updates, and the facts it
        superseded that this conversation may see)."""
        with _tool_errors():
            return {"versions": [v.to_dict() for v in mem.history(identity(ctx), id)]}

    @server.tool(title="Get a memory", annotations=read_only)
    def memory_get(
        id: Annotated[str, Field(description="A fact id from memory_search.")],
        ctx: MCPContext,
    ) -> dict[str, Any]:
        """One fact by id, if this conversation may see it (else not_found)."""
        with _tool_errors():
            return mem.get(identity(ctx), id).to_dict()

    @server.tool(
        title="Forget a memory",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def memory_forget(
        id: Annotated[str, Field(description="A fact id from memory_search.")],
        ctx: MCPContext,
    ) -> dict[str, Any]:
        """Forget one fact for good (its writer, its subject, or the owner in private)."""
        with _tool_errors():
            mem.forget(identity(ctx), id)
        return {"forgotten": id}

    @server.tool(title="Memory for the prompt", annotations=read_only)
    def memory_context(
        query: Annotated[str, Field(description="The message being answered.")],
        ctx: MCPContext,
    ) -> str:
        """An identity block and the relevant memories, ready to put in a prompt."""
        with _tool_errors():
            return mem.prompt_context(identity(ctx), query)

    if owner_tools:
        _space_tools(server, mem, identity)
    return server


def _space_tools(server: MCPServer, mem: Memory, identity: IdentityFn) -> None:
    """Shared spaces, managed by the owner in private: the core checks that on every call,
    and these tools are offered only where that holds (the owner's own local stdio server)."""
    change = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    @server.tool(
        title="List shared spaces",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def space_list(ctx: MCPContext) -> dict[str, Any]:
        """Every shared space and its members."""
        with _tool_errors():
            return {"spaces": mem.list_spaces(identity(ctx))}

    @server.tool(title="Create a shared space", annotations=change)
    def space_create(
        name: SpaceName,
        ctx: MCPContext,
        members: Members = None,
    ) -> dict[str, Any]:
        """A space (a household, a team) its members write to with namespace shared:<name>
        and read in their DMs and in group chats of members only."""
        with _tool_errors():
            return mem.create_space(identity(ctx), name, members or [])

    @server.tool(title="Add a member to a shared space", annotations=change)
    def space_add_member(name: SpaceName, member: Member, ctx: MCPContext) -> dict[str, Any]:
        """From the next operation on, they read and write the space."""
        with _tool_errors():
            return mem.add_member(identity(ctx), name, member)

    @server.tool(title="Remove a member from a shared space", annotations=change)
    def space_remove_member(name: SpaceName, member: Member, ctx: MCPContext) -> dict[str, Any]:
        """From the next operation on, they read nothing of the space."""
        with _tool_errors():
            return mem.remove_member(identity(ctx), name, member)

    @server.tool(
        title="Delete a shared space",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    def space_delete(name: SpaceName, ctx: MCPContext) -> dict[str, Any]:
        """Erase a space for good: its facts, its key, its members."""
        with _tool_errors():
            return mem.delete_space(identity(ctx), name)


def streamable_http(
    mem: Memory, *, host: str = "127.0.0.1"
) -> tuple[StreamableHTTPASGIApp, StreamableHTTPSessionManager]:
    """The `/mcp` endpoint for `confidante serve`: an ASGI app and the session manager whose
    `run()` the server's lifespan must enter. Stateless with JSON responses, so any of several
    server processes sharing one database can answer any request; the identity is per request."""
    server = build_server(mem, http_identity)
    server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host
    )
    manager = server.session_manager
    return StreamableHTTPASGIApp(manager), manager


def run_stdio(mem: Memory, ctx: Context) -> None:
    """Serve the tools over stdin/stdout until the client hangs up. The owner's own local
    identity also gets the shared space tools; any other identity never sees them."""
    owner_tools = ctx.surface is Surface.LOCAL and mem.viewer(ctx).owner_private
    build_server(mem, fixed_identity(ctx), owner_tools=owner_tools).run("stdio")


class _Unavailable:
    """Stands in for a memory that could not be opened: every use answers `message`."""

    def __init__(self, message: str) -> None:
        self._message = message

    def __getattr__(self, name: str) -> Any:
        raise ToolError(self._message)


def run_unavailable(message: str) -> None:
    """Serve the same tools over stdio, each answering `message` (what to run to fix the
    set-up). An MCP client that launched us then shows the reason, not "connection closed"."""

    def refuse(_mctx: MCPContext) -> Context:
        raise ToolError(message)

    build_server(cast(Memory, _Unavailable(message)), refuse).run("stdio")
