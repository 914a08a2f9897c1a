"""`Memory`: the library's one entry point, the engine plus the work done through it.

The engine (`engine.Engine`) holds every rule-bearing operation: remember, recall, get,
update, forget, list, the logs. The services (`services/`) are built on it: cleanup and
erasure, backup, the privacy audit, the prompt block. This class puts both behind one
object, so the services depend on the engine and never the other way round.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from .engine import Engine
from .model import Context, Scope
from .services import audit, history, lifecycle, paging, prompt, spaces
from .services.history import Version
from .services.paging import HitPage, Page


class Memory(Engine):
    """Scoped, gated, encrypted memory. Open with `Memory.open(path)`."""

    def cleanup(self, now: datetime | None = None, dry_run: bool = False) -> dict[str, Any]:
        """The cleanup protocol: archive expired, purge past grace, re-scan, merge duplicates,
        drop stale public patterns, compact, and log one line."""
        return lifecycle.cleanup(self, now=now, dry_run=dry_run)

    def forget_subject(self, ctx: Context, actor: str) -> dict[str, int]:
        """Erase everything about `actor` and destroy their keys (owner in private, or the
        actor themselves in their own DM)."""
        return lifecycle.forget_subject(self, ctx, actor)

    def forget_guild(self, ctx: Context, guild: str) -> dict[str, int]:
        """Erase a community's memory and destroy its key (the owner, in private)."""
        return lifecycle.forget_guild(self, ctx, guild)

    def complete_erasure(self) -> dict[str, int]:
        """Make what was erased so far unrecoverable from copies of the files with the current
        master key, now. PostgreSQL (which keeps old row versions): re-key every partition
        that had something erased, then rotate the master key (it must come from a key file;
        otherwise the erasure is reported pending). SQLite: truncate the WAL if a reader in
        another process kept old page images in it (pending while one still does)."""
        return lifecycle.finish_erasure(self)

    def erasure_pending(self) -> int:
        """What a copy of the files could still give up with the current master key: on
        PostgreSQL, partitions waiting for `complete_erasure`; on SQLite, erasing writes whose
        old page images a reader kept in the WAL (usually 0: the write truncates it)."""
        return lifecycle.erasure_pending(self)

    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """A consistent online copy of the database, still encrypted (SQLite)."""
        return lifecycle.backup(self, Path(dest))

    def audit(self) -> dict[str, Any]:
        """The privacy checklist over the whole store; `{"ok": bool, "findings": [...]}`."""
        return audit.audit(self)

    def list_page(
        self,
        ctx: Context,
        *,
        limit: int = 50,
        cursor: str | None = None,
        scope: Scope | str | None = None,
        subject: str | None = None,
        community: str | None = None,
        offset: int = 0,
        filters: Mapping[str, Any] | None = None,
        space: str | None = None,
    ) -> Page:
        """A page of what `ctx` may see, newest first, with the true total and a cursor for
        the next page; optionally one scope, one person, one community or one shared space
        (by name), and only the facts `filters` keep (see `recall`)."""
        return paging.list_page(
            self,
            ctx,
            limit=limit,
            cursor=cursor,
            scope=scope,
            subject=subject,
            community=community,
            offset=offset,
            filters=filters,
            space=space,
        )

    def search_page(
        self,
        ctx: Context,
        query: str,
        *,
        limit: int = 10,
        cursor: str | None = None,
        scope: Scope | str | None = None,
        count: bool = False,
        start: int = 0,
        subject: str | None = None,
        community: str | None = None,
        **recall: Any,
    ) -> HitPage:
        """A page of `recall(ctx, query)`, best first, with a cursor for the next page."""
        return paging.search_page(
            self,
            ctx,
            query,
            limit=limit,
            cursor=cursor,
            scope=scope,
            count=count,
            start=start,
            subject=subject,
            community=community,
            **recall,
        )

    def history(self, ctx: Context, fact_id: str) -> list[Version]:
        """The versions a fact went through, oldest first: the facts it superseded that
        `ctx` may see, its first text, and every update (NotFound where `get` is)."""
        return history.history(self, ctx, fact_id)

    # -- shared spaces ---------------------------------------------------------------------
    def create_space(
        self, ctx: Context, name: str, members: Iterable[str] = ()
    ) -> dict[str, object]:
        """A shared space (a household, a team) with these members (the owner, in private).
        Members write to it with namespace `shared:<name>` and read it in their DMs and in
        group chats of members only."""
        return spaces.create_space(self, ctx, name, members)

    def add_member(self, ctx: Context, space: str, actor: str) -> dict[str, object]:
        """Let `actor` into a space (the owner, in private)."""
        return spaces.add_member(self, ctx, space, actor)

    def remove_member(self, ctx: Context, space: str, actor: str) -> dict[str, object]:
        """Take `actor` out of a space: from the next operation on, they read nothing of it."""
        return spaces.remove_member(self, ctx, space, actor)

    def delete_space(self, ctx: Context, space: str) -> dict[str, int]:
        """Erase a space, its facts and its key (the owner, in private)."""
        return spaces.delete_space(self, ctx, space)

    def list_spaces(self, ctx: Context) -> list[dict[str, object]]:
        """Every space and its members (the owner, in private)."""
        return spaces.list_spaces(self, ctx)

    def prompt_context(
        self, ctx: Context, query: str, max_tokens: int = 800, *, history: bool = False
    ) -> str:
        """Identity block plus recalled facts grouped by pool, within `max_tokens`; only the
        current version of a fact that changed, unless `history=True`."""
        return prompt.prompt_context(self, ctx, query, max_tokens=max_tokens, history=history)


__all__ = ["Memory"]
