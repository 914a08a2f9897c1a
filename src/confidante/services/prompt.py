"""Prompt context: an identity block, then what this context may recall, grouped by pool,
never over the token budget. The owner is named only to the owner."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import policy
from ..errors import InvalidInput
from ..model import Context, Scope, Surface

if TYPE_CHECKING:
    from ..engine import Engine

POOLS = [
    (Scope.USER, "People"),
    (Scope.GUILD, "Community"),
    (Scope.OWNER, "Owner Private"),
    (Scope.SHARED, "Shared"),
    (Scope.SESSION, "Conversation"),
    (Scope.GLOBAL, "Notes"),
]


def estimate_tokens(text: str) -> int:
    """About four characters a token for English; never zero for non-empty text."""
    return max(1, (len(text) + 3) // 4) if text else 0


def identity_block(mem: Engine, ctx: Context) -> str:
    if policy.is_owner_private(ctx, mem.owners):
        lines = [
            "## Who you are talking to",
            f"This is your owner ({ctx.actor}), in a private conversation.",
            "You may use the owner's private memory below.",
        ]
        return "\n".join(lines)
    if ctx.surface in (Surface.GUILD_TEXT, Surface.GUILD_VOICE, Surface.GROUP_DM):
        where = "a group chat" if ctx.surface is Surface.GROUP_DM else "a community channel"
        who = f"{ctx.actor}, a member speaking in {where}"
    elif ctx.surface is Surface.DM:
        who = f"{ctx.actor}, in a direct message"
    elif ctx.surface is Surface.BACKGROUND:
        who = f"a background task ({ctx.task})"
    else:
        who = f"a {ctx.surface.value} session"
    return "\n".join(
        [
            "## Who you are talking to",
            f"You are talking with {who}.",
            "Use only the memories below; they are all this conversation may see.",
        ]
    )


def prompt_context(
    mem: Engine, ctx: Context, query: str, *, max_tokens: int = 800, history: bool = False
) -> str:
    """The identity block and the best facts this context may recall, grouped by pool.
    A fact a newer one has superseded ("I live in Paris" after "I moved to Berlin") is left
    out, so the prompt states only what is current; `history=True` keeps it, marked as
    earlier, after the fact that replaced it."""
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise InvalidInput("max_tokens must be a positive integer")
    header = identity_block(mem, ctx)
    if estimate_tokens(header) > max_tokens:
        return _trim(header, max_tokens)
    budget = max_tokens - estimate_tokens(header)
    hits = mem.recall(ctx, query, k=50)
    chosen: dict[Scope, list[str]] = {}
    for hit in hits:  # best first: take facts while they fit, headings included
        if hit.superseded_by is not None and not history:
            continue
        line = f"- {hit.fact.text}" + (" (earlier; since changed)" if hit.superseded_by else "")
        section = not chosen.get(hit.fact.scope)
        cost = estimate_tokens(line + "\n") + (6 if section else 0)
        if cost > budget:
            continue
        budget -= cost
        chosen.setdefault(hit.fact.scope, []).append(line)
    parts = [header]
    for scope, title in POOLS:
        if chosen.get(scope):
            parts.append(f"\n## {title}\n" + "\n".join(chosen[scope]))
    return "\n".join(parts)


def _trim(text: str, max_tokens: int) -> str:
    return text[: max(0, max_tokens * 4 - 1)]
