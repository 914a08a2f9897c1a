"""A LangGraph `BaseStore` bound to a confidante `Context` (`pip install
'confidante[langgraph]'`).

    store = ConfidanteStore(mem, Context.dm("discord:42"))
    graph = builder.compile(store=store)
    store.put(("me", "preferences"), "food", {"text": "allergic to peanuts"})
    store.search(("me",), query="allergies")

The first label of a namespace names where the item goes, in confidante's words: `me`
(the actor's own silo), `owner`, `guild`, `session`, `global`, or `user` followed by an
actor (`("user", "discord:42", ...)`, the owner's, in private). The bound context and the
policy decide whether that is allowed, exactly as for `remember`; the rest of the
namespace is a folder inside that scope. Reads see what the context may see, nothing
more. `search(query=...)` ranks with confidante's recall; `ttl` (minutes) is the item's
expiry. Items are stored as facts (encrypted, privacy-checked) whose text carries the
namespace, key and value as JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from ..errors import ConfidanteError, InvalidInput
from ..memory import Memory
from ..model import Context, Fact, Scope, normalize_actor

KIND = "langgraph"
_WORDS = {
    "me": "me",
    "self": "me",
    "user": "me",
    "owner": "owner",
    "private": "owner",
    "guild": "guild",
    "community": "guild",
    "server": "guild",
    "session": "session",
    "global": "global",
    "notes": "global",
}
Location = tuple[Scope, str | None, str | None]  # scope, subject (user), community (guild)


def confidante_namespace(namespace: tuple[str, ...]) -> str:
    """The confidante namespace a LangGraph namespace writes to."""
    if not namespace:
        raise InvalidInput("a namespace is required")
    head = namespace[0]
    if head == "user" and len(namespace) > 1:
        return f"user:{namespace[1]}"
    if head not in _WORDS:
        raise InvalidInput(
            "a namespace starts with me, owner, guild, session, global, or user, <actor>"
        )
    return "me" if head == "user" else head


def _split(namespace: tuple[str, ...]) -> tuple[str, str | None, tuple[str, ...]]:
    """(the scope word, in its canonical spelling; the actor of `("user", actor, ...)`;
    the folders after them)."""
    confidante_namespace(namespace)
    if namespace[0] == "user" and len(namespace) > 1:
        return "user", normalize_actor(namespace[1]), tuple(namespace[2:])
    return _WORDS[namespace[0]], None, tuple(namespace[1:])


class ConfidanteStore(BaseStore):
    """LangGraph's store interface over confidante, acting as one `Context`.

    A namespace names a place as seen from the bound context: `("me", ...)` is the actor's
    own silo (Bob's `me` is never Alice's), `("user", actor, ...)` that person's,
    `("guild", ...)` this context's community. Items are matched by that place, so two
    people's `("me", "prefs")` never meet; results show each item's namespace in canonical
    words (`self` reads back as `me`, the caller's own `("user", them)` as `me`)."""

    supports_ttl = True

    def __init__(self, memory: Memory, context: Context) -> None:
        self.memory = memory
        self.context = context

    # -- the one method everything else derives from ---------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise InvalidInput(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- places ------------------------------------------------------------------------------
    def _location(self, namespace: tuple[str, ...]) -> tuple[Location, tuple[str, ...]]:
        """Where a namespace points from this context, and the folders inside it."""
        word, actor, path = _split(tuple(namespace))
        ctx = self.context
        if word == "user" or word == "me":
            return (Scope.USER, actor or ctx.actor, None), path
        if word == "guild":
            return (Scope.GUILD, None, ctx.community), path
        return (Scope(word), None, None), path

    def _shown(self, loc: Location, path: tuple[str, ...]) -> tuple[str, ...] | None:
        """A place as this context names it; None when it cannot name it (another
        community's items, which the owner reads in that community's context)."""
        scope, subject, community = loc
        if scope is Scope.USER:
            if subject == self.context.actor:
                return ("me", *path)
            return ("user", str(subject), *path)
        if scope is Scope.GUILD:
            return ("guild", *path) if community == self.context.community else None
        return (scope.value, *path)

    # -- items as facts ---------------------------------------------------------------------
    def _items(self) -> list[tuple[Fact, tuple[str, ...], str, dict[str, Any]]]:
        out = []
        for f in self.memory.list(self.context):
            parsed = _parse(f)
            if parsed is None:
                continue
            path, key, value = parsed
            loc = (
                f.scope,
                f.subject if f.scope is Scope.USER else None,
                f.community if f.scope is Scope.GUILD else None,
            )
            shown = self._shown(loc, path)
            if shown is not None:
                out.append((f, shown, key, value))
        return out

    def _find(self, namespace: tuple[str, ...], key: str) -> Fact | None:
        shown = self._shown(*self._location(namespace))
        for f, ns, k, _ in self._items():
            if ns == shown and k == key:
                return f
        return None

    def _get(self, op: GetOp) -> Item | None:
        shown = self._shown(*self._location(op.namespace))
        for f, ns, k, value in self._items():
            if ns == shown and k == op.key:
                return _item(f, tuple(op.namespace), k, value)
        return None

    def _put(self, op: PutOp) -> None:
        """Store, or replace, one item. Replacing is allowed only where forgetting the old
        one is (its writer, its subject, the owner in private): that is checked before
        anything is written, so a refused put changes nothing."""
        old = self._find(op.namespace, op.key)
        if old is not None:
            self.memory.check_forget(self.context, old.id)
        if op.value is None:
            if old is not None:
                self.memory.forget(self.context, old.id)
            return
        _, path = self._location(op.namespace)
        text = json.dumps(
            {"path": list(path), "key": op.key, "value": dict(op.value)},
            ensure_ascii=False,
            sort_keys=True,
        )
        ttl = timedelta(minutes=op.ttl) if op.ttl else None
        self.memory.remember(
            self.context, text, confidante_namespace(tuple(op.namespace)), kind=KIND, ttl=ttl
        )
        if old is not None:  # replaced: the new one is stored first, so nothing is lost
            self.memory.forget(self.context, old.id)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        if prefix:
            loc, path = self._location(prefix)
            shown = self._shown(loc, path)
            if shown is None:
                return []
            prefix = shown  # in the words results are shown in
        matches: list[tuple[Fact, tuple[str, ...], str, dict[str, Any], float | None]] = []
        if op.query:
            by_id = {f.id: (f, ns, k, v) for f, ns, k, v in self._items()}
            for hit in self.memory.recall(self.context, op.query, k=1000):
                found = by_id.get(hit.fact.id)
                if found is not None:
                    matches.append((*found, hit.score))
        else:
            matches = [(f, ns, k, v, None) for f, ns, k, v in self._items()]
        chosen = [
            m for m in matches if m[1][: len(prefix)] == prefix and _matches(m[3], op.filter or {})
        ]
        page = chosen[op.offset : op.offset + op.limit]
        return [
            SearchItem(ns, k, v, f.created_at, f.updated_at or f.created_at, score)
            for f, ns, k, v, score in page
        ]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = {ns for _, ns, _, _ in self._items()}
        for cond in op.match_conditions or ():
            spaces = {ns for ns in spaces if _path_matches(ns, cond.path, cond.match_type)}
        if op.max_depth is not None:
            spaces = {ns[: op.max_depth] for ns in spaces}
        ordered = sorted(spaces)
        return ordered[op.offset : op.offset + op.limit]


def _parse(f: Fact) -> tuple[tuple[str, ...], str, dict[str, Any]] | None:
    """(folders, key, value) of an item fact. Items written before places were matched
    kept the whole namespace (`ns`): its scope words are dropped, the fact knows its place."""
    if f.kind != KIND:
        return None
    try:
        d = json.loads(f.text)
    except json.JSONDecodeError:
        return None
    if not isinstance(d, dict) or not isinstance(d.get("value"), dict):
        return None
    if isinstance(d.get("path"), list):
        path = tuple(str(p) for p in d["path"])
    else:
        try:
            path = _split(tuple(str(p) for p in d.get("ns") or ()))[2]
        except ConfidanteError:
            return None
    return path, str(d.get("key")), d["value"]


def _item(f: Fact, ns: tuple[str, ...], key: str, value: dict[str, Any]) -> Item:
    assert f.created_at is not None
    return Item(
        value=value,
        key=key,
        namespace=ns,
        created_at=f.created_at,
        updated_at=f.updated_at or f.created_at,
    )


_OPS = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], flt: dict[str, Any]) -> bool:
    for field, want in flt.items():
        have = value
        for part in field.split("."):
            have = have.get(part) if isinstance(have, dict) else None
        if isinstance(want, dict) and want and all(k in _OPS for k in want):
            try:
                if not all(_OPS[k](have, v) for k, v in want.items()):
                    return False
            except TypeError:
                return False
        elif have != want:
            return False
    return True


def _path_matches(ns: tuple[str, ...], path: tuple[str, ...], kind: str) -> bool:
    if len(path) > len(ns):
        return False
    part = ns[: len(path)] if kind == "prefix" else ns[len(ns) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


__all__ = ["ConfidanteStore", "confidante_namespace"]
