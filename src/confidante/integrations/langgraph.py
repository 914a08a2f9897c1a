"""A LangGraph `BaseStore` over confidante (`pip install 'confidante[langgraph]'`).

Built once, at start-up, and compiled into the graph; each call finds who is speaking in
the running graph's config, through an adapter the app writes:

    def context_of(configurable: dict) -> Context:    # from the app's authenticated metadata
        return Context.dm(f"discord:{configurable['user_id']}")

    store = ConfidanteStore(mem, context=context_of, namespaces={"household": "shared:home"})
    graph = builder.compile(store=store)
    graph.invoke(state, config={"configurable": {"user_id": "42"}})

    # inside a node
    store.put(("memories", "42"), "food", {"text": "allergic to peanuts"})
    store.search(("memories", "42"), query="allergies")

`context` is a `Context`, or a callable that receives the graph's `configurable` dict
(`langgraph.config.get_config()`) and returns the `Context` of this call. It is the app's
adapter: it builds the Context from what the app itself put in `configurable` (the platform
user id it authenticated), never from anything a model chose.

A namespace names a place (`graph_places`): `("memories", <user id>, ...)` is that person's
own memory, allowed when the person is the context's actor (naming anyone else is refused,
`forbidden_subject`, unless the context is the owner's, in private); labels mapped with
`namespaces=` name places of their own (`me`, `guild`, `session`, `shared:<space>`...);
confidante's own words work too (`("me", ...)`, `("guild", ...)`, `("user", actor, ...)`).
The policy decides what may be written, reads see only what the context may see, and
replacing or deleting an item someone else wrote is refused (`not_author`) before anything
is written. `search(query=...)` ranks with confidante's recall over the items' text
(`graph_items`); `ttl` (minutes) is the item's expiry."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
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

from .. import policy
from ..engine import same_sentence
from ..errors import AccessDenied, ConfidanteError, InvalidContext, InvalidInput
from ..memory import Memory
from ..model import Context, Fact, Scope, SessionKey, session_key
from .graph_items import KIND, StoredItem, decode, encode, locator
from .graph_places import Namespaces, Place

ContextSource = Context | Callable[[dict[str, Any]], Context]
Shown = tuple[str, ...]


def graph_thread_session(actor: str, configurable: Mapping[str, Any]) -> SessionKey | None:
    """The session of a graph thread (`configurable["thread_id"]`) for one actor, for an
    adapter that gives each thread a conversation of its own:
    `Context.dm(actor, session=graph_thread_session(actor, configurable))`."""
    thread = configurable.get("thread_id")
    if thread is None:
        return None
    return session_key("graph-thread", actor, str(thread))


class ConfidanteStore(BaseStore):
    """LangGraph's store interface over confidante; one store for every conversation."""

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        context: ContextSource,
        *,
        namespaces: Mapping[str, str] | None = None,
        platform: str | None = None,
    ) -> None:
        """`context`: a `Context`, or the app's adapter from the graph's `configurable` to
        the `Context` of each call. `namespaces`: the app's own first labels and the places
        they name (`{"memories": "me", "household": "shared:home"}`). `platform`: the
        platform of bare user ids in namespaces (default: the context actor's)."""
        if not isinstance(context, Context) and not callable(context):
            raise InvalidContext("context is a Context, or a callable returning one")
        self.memory = memory
        self.context = context
        self.places = Namespaces(namespaces, platform)

    def with_context(self, ctx: Context) -> ConfidanteStore:
        """This store, acting as `ctx` (outside a graph: start-up work, scripts, tests)."""
        store = ConfidanteStore(self.memory, ctx)
        store.places = self.places
        return store

    # -- the one method everything else derives from ---------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._batch(list(ops), self._context())

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ctx = self._context()  # read in the caller's task, where the graph's config is
        return await asyncio.to_thread(self._batch, list(ops), ctx)

    def _batch(self, ops: list[Op], ctx: Context) -> list[Result]:
        view = _View(self, ctx)
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(view.get(op))
            elif isinstance(op, PutOp):
                view.put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(view.search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(view.list_namespaces(op))
            else:
                raise InvalidInput(f"unknown store operation {type(op).__name__}")
        return results

    def _context(self) -> Context:
        if isinstance(self.context, Context):
            return self.context
        from langgraph.config import get_config

        try:
            config = get_config()
        except RuntimeError:
            raise InvalidContext(
                "this store finds its context in the running graph's config: call it inside "
                "a graph, or use store.with_context(ctx)"
            ) from None
        configurable = {
            k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__")
        }
        try:
            ctx = self.context(configurable)
        except ConfidanteError:
            raise
        except Exception as e:  # the app's adapter: its own error, under a stable code
            raise InvalidContext(f"the store's context adapter failed ({type(e).__name__})") from e
        if not isinstance(ctx, Context):
            raise InvalidContext("the store's context adapter must return a Context")
        return ctx


class _View:
    """One batch's work, as one context: the items it may see, read once."""

    def __init__(self, store: ConfidanteStore, ctx: Context) -> None:
        self.memory = store.memory
        self.places = store.places
        self.ctx = ctx
        self.owner = policy.is_owner_private(ctx, store.memory.owners)
        self._facts: list[Fact] | None = None

    # -- places ------------------------------------------------------------------------------
    def place(self, namespace: tuple[str, ...]) -> Place:
        """Where `namespace` points; naming another person in the idiom's second position
        is refused (and recorded) unless the context is the owner's, in private."""
        place = self.places.resolve(namespace, self.ctx)
        if place.named and place.subject != self.ctx.actor and not self.owner:
            self.memory.deny(self.ctx, "forbidden_subject", "user")
            raise AccessDenied(
                "forbidden_subject",
                "this namespace names another person: only the owner, in private, may",
                scope="user",
            )
        return place

    def shown(self, place: Place, community: str | None = None) -> Shown | None:
        if place.where == "guild" and community is None:
            community = self.ctx.community  # a request names this context's community
        return self.places.shown(place, community, self.ctx, owner=self.owner)

    # -- items -------------------------------------------------------------------------------
    def facts(self) -> list[Fact]:
        if self._facts is None:
            self._facts = self.memory.list(self.ctx)
        return self._facts

    def items(self) -> list[tuple[StoredItem, Shown]]:
        out = []
        for f in self.facts():
            item = decode(f)
            if item is None:
                continue
            shown = self.shown(item.place, f.community if f.scope is Scope.GUILD else None)
            if shown is not None:
                out.append((item, shown))
        return out

    def find(self, namespace: tuple[str, ...], key: str) -> StoredItem | None:
        shown = self.shown(self.place(namespace))
        for item, ns in self.items():
            if ns == shown and item.key == key:
                return item
        return None

    def get(self, op: GetOp) -> Item | None:
        item = self.find(tuple(op.namespace), op.key)
        if item is None:
            return None
        f = item.fact
        assert f.created_at is not None
        return Item(
            value=item.value,
            key=item.key,
            namespace=tuple(op.namespace),
            created_at=f.created_at,
            updated_at=f.updated_at or f.created_at,
        )

    def put(self, op: PutOp) -> None:
        """Store, or replace, one item. Replacing is allowed only where forgetting the old
        one is (its writer, its subject, the owner in private): that is checked before
        anything is written, so a refused put changes nothing."""
        namespace = tuple(op.namespace)
        place = self.place(namespace)
        old = self.find(namespace, op.key)
        if old is not None:
            self.memory.check_forget(self.ctx, old.fact.id)
        if op.value is None:
            if old is not None:
                self.memory.forget(self.ctx, old.fact.id)
            self._facts = None
            return
        text, meta = encode(place, op.key, op.value, op.index)
        if self._said_here(place, text, old):
            text = f"{text} ({locator(place, op.key)})"
        ttl = timedelta(minutes=op.ttl) if op.ttl else None
        fact = self.memory.remember(
            self.ctx, text, place.namespace, kind=KIND, ttl=ttl, metadata=meta
        )
        if old is not None and fact.id != old.fact.id:  # the new one first: nothing is lost
            self.memory.forget(self.ctx, old.fact.id)
        self._facts = None

    def _said_here(self, place: Place, text: str, old: StoredItem | None) -> bool:
        """Another fact in this place already says these words: remembering them again
        would refresh that fact instead of storing this item."""
        said = same_sentence(text)
        for f in self.facts():
            if old is not None and f.id == old.fact.id:
                continue
            if f.scope.value != place.where.split(":", 1)[0]:
                continue
            if f.scope is Scope.USER and f.subject != place.subject:
                continue
            if same_sentence(f.text) == said:
                return True
        return False

    def search(self, op: SearchOp) -> list[SearchItem]:
        prefix = self._prefix(tuple(op.namespace_prefix))
        items = self.items()
        if op.query:
            by_id = {item.fact.id: (item, ns) for item, ns in items if item.indexed}
            hits = self.memory.recall(self.ctx, op.query, k=1000, filters={"kind": KIND})
            ranked = [(*by_id[h.fact.id], h.score) for h in hits if h.fact.id in by_id]
        else:
            ranked = [(item, ns, None) for item, ns in items]
        chosen = [
            (item, ns, score)
            for item, ns, score in ranked
            if ns[: len(prefix)] == prefix and _matches(item.value, op.filter or {})
        ]
        return [
            SearchItem(
                ns,
                item.key,
                item.value,
                item.fact.created_at,
                item.fact.updated_at or item.fact.created_at,
                score,
            )
            for item, ns, score in chosen[op.offset : op.offset + op.limit]
        ]

    def _prefix(self, prefix: tuple[str, ...]) -> Shown:
        """A search prefix in the words results are shown in. A prefix that names no place
        yet (`()`, `("memories",)`) is matched as it is."""
        if not prefix:
            return ()
        try:
            place = self.place(prefix)
        except InvalidInput:
            return prefix
        shown = self.shown(place)
        return shown if shown is not None else ("\x00",)  # nothing here is shown there

    def list_namespaces(self, op: ListNamespacesOp) -> list[Shown]:
        spaces = {ns for _, ns in self.items()}
        for cond in op.match_conditions or ():
            spaces = {ns for ns in spaces if _path_matches(ns, cond.path, cond.match_type)}
        if op.max_depth is not None:
            spaces = {ns[: op.max_depth] for ns in spaces}
        return sorted(spaces)[op.offset : op.offset + op.limit]


_OPS = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches(value: dict[str, Any], flt: Mapping[str, Any]) -> bool:
    """LangGraph's `filter=` on an item's value (dotted fields, `$eq`...`$lte`)."""
    for field, want in flt.items():
        have: Any = value
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


__all__ = ["ConfidanteStore", "ContextSource", "graph_thread_session"]
