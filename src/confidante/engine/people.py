"""Shared spaces and the people directory, as every operation sees them: which spaces
a context may use, display names kept, and who a query names."""

from __future__ import annotations

import numpy as np

from .. import policy
from ..errors import (
    ConfidanteError,
)
from ..model import Context, Scope, Surface
from ..policy import Viewer
from ..privacy import guard
from ..recall.names import NameMatcher
from ..vault.records import to_ms
from ..vault.spaces import SPACES_META, read_spaces
from .parts import (
    _NAMES_KEY,
    NAME_KIND,
    NAMES_REFRESH,
)
from .state import State


class People(State):
    def spaces(self) -> dict[str, policy.Space]:
        """Every shared space (name -> id and members), as the registry holds it now: a
        member removed elsewhere reads nothing more from the next operation on."""
        return read_spaces(self.sealed_meta(SPACES_META))

    def spaces_open(self, ctx: Context) -> dict[str, str]:
        """The shared spaces (name -> id) `ctx` may read and write (`policy.spaces_open_to`)."""
        return policy.spaces_open_to(ctx, self.owners, self.spaces())

    def _note_names(self, ctx: Context) -> None:
        """Keep the display names `ctx` carries in the directory: a community's names in
        that community's, every other in the private one (owner-only). Each is a sealed
        fact about that person, forgotten with them; one seen again is refreshed, at most
        once a day. A name the guard refuses (it holds an e-mail, say) is not kept."""
        group = ctx.surface is Surface.GROUP_DM
        community = ctx.community if ctx.surface in policy.GUILD_SURFACES else None
        now = self.now()
        for actor, name in ctx.names:
            seen = (community, actor, name)
            last = self._names_noted.get(seen)
            if last is not None and now - last < NAMES_REFRESH:
                continue
            try:
                guarded = guard.check_text(name, Scope.DIRECTORY)
            except ConfidanteError:
                self._names_noted[seen] = now
                continue
            target = policy.WriteTarget(
                Scope.DIRECTORY, subject=actor, community=community, group=group
            )
            self._write(
                ctx,
                target,
                [guarded],
                [({}, ())],
                kind=NAME_KIND,
                source_skill=None,
                confidence=1.0,
                ttls=[None],
                born=None,
                author=actor,
                embed=False,
            )
            if len(self._names_noted) > 10_000:
                self._names_noted.clear()
            self._names_noted[seen] = now

    def _named_people(self, v: Viewer, ctx: Context, query: str) -> set[str]:
        """The people `query` names by a display name this context may know: those in the
        directories `policy.directory_pool` opens to it, and the names `ctx` carries."""
        pool = policy.directory_pool(v)
        if not pool.partitions and not pool.all_of:
            return set()
        entries = [(name, actor) for actor, name in ctx.names]
        matchers = [NameMatcher(entries)] if entries else []
        for c in self.candidates(v, pool):
            matcher = c.index.extras.get(_NAMES_KEY)
            if not isinstance(matcher, NameMatcher):
                alive = c.index.mask(policy.Grant(c.index.ref), to_ms(self.now()))
                matcher = NameMatcher(
                    (f.fact.text, f.fact.subject)
                    for f, ok in zip(c.index.facts, alive, strict=True)
                    if ok and f.fact.subject
                )
                c.index.extras[_NAMES_KEY] = matcher
            matchers.append(matcher)
        return set().union(*(m.named_in(query) for m in matchers)) if matchers else set()

    def people(self, ctx: Context) -> dict[str, list[str]]:
        """The people directory, for the owner in private: each person (actor) and the
        display names they were seen with, most recent first."""
        v = self.require_owner_private(ctx)
        seen: dict[str, list[tuple[int, str]]] = {}
        for c in self.candidates(v, policy.directory_pool(v)):
            for i in np.flatnonzero(c.mask):
                f = c.index.facts[i]
                if f.fact.subject:
                    seen.setdefault(f.fact.subject, []).append((f.created_ms, f.fact.text))
        return {
            actor: list(dict.fromkeys(name for _, name in sorted(names, reverse=True)))
            for actor, names in sorted(seen.items())
        }
