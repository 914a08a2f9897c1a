"""Where a LangGraph namespace points, as seen from one `Context` (`ConfidanteStore`).

A namespace names a place in confidante's words, or in the app's own:
- `("me", ...)`, `("owner", ...)`, `("guild", ...)`, `("session", ...)`, `("global", ...)`
  (and their synonyms), `("user", <person>, ...)`, `("shared", <space>, ...)`;
- `(<label>, <person>, ...)`: the person's own memory under the app's label, the LangGraph
  idiom `("memories", user_id)`;
- `(<label>, ...)` for a label mapped to a place once, when the store is built
  (`namespaces={"household": "shared:home"}`); a label mapped to `me` takes the person
  second, as above.

A person is named by their actor id (`discord:42`) or by a bare id on the store's platform
(the context's own when none was given). Who may use which place is not decided here: the
store asks the policy (and the engine's write rule) with the context. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ConfidanteError, InvalidInput
from ..model import Context, normalize_actor, parse_actor

# confidante's own first labels, and the place each one names
WORDS: dict[str, str] = {
    "me": "user",
    "self": "user",
    "user": "user",
    "owner": "owner",
    "private": "owner",
    "guild": "guild",
    "community": "guild",
    "server": "guild",
    "session": "session",
    "global": "global",
    "notes": "global",
}
_NO_PLACE = (
    "a namespace starts with me, owner, guild, session, global, ('user', <user id>), "
    "('shared', <space>), a label mapped with namespaces={...}, or (<label>, <user id>, ...)"
)


@dataclass(frozen=True, slots=True)
class Place:
    """A namespace resolved: `where` is `user`, `owner`, `guild`, `session`, `global` or
    `shared:<space>`; `subject` the person of a `user` place; `root` the app's own first
    label (None for confidante's words); `folders` the labels after the place; `named`
    when the person was named in the idiom's second position (`(label, person, ...)`)."""

    where: str
    subject: str | None
    root: str | None
    folders: tuple[str, ...]
    named: bool = False

    @property
    def namespace(self) -> str:
        """The confidante namespace a write to this place uses."""
        if self.where == "user":
            return f"user:{self.subject}"
        return self.where


class Namespaces:
    """The app's labels (`{"memories": "me", "household": "shared:home"}`) and the platform
    of bare user ids, fixed when the store is built."""

    def __init__(self, labels: Mapping[str, str] | None = None, platform: str | None = None):
        self.platform = parse_actor(f"{platform}:x")[0] if platform is not None else None
        self.labels: dict[str, str] = {}
        for label, place in (labels or {}).items():
            if not isinstance(label, str) or not label.strip() or label in WORDS:
                raise InvalidInput("a mapped label is a new word, not one of confidante's own")
            if label == "shared":
                raise InvalidInput("a mapped label is a new word, not one of confidante's own")
            self.labels[label] = _place_word(place)

    # -- people ------------------------------------------------------------------------------
    def person(self, label: str, ctx: Context) -> str | None:
        """The actor a namespace label names: `platform:id`, or a bare id on the store's
        platform (else the context's). None when it names nobody."""
        if not isinstance(label, str):
            return None
        try:
            if ":" in label:
                return normalize_actor(label)
            platform = self.platform or ctx.platform
            return normalize_actor(f"{platform}:{label}") if platform else None
        except ConfidanteError:
            return None

    def label_of(self, actor: str, ctx: Context) -> str:
        """How a person is shown in an app's namespace: the bare id on the store's (or the
        context's) platform, else the whole actor id."""
        platform, ident = parse_actor(actor)
        return ident if platform == (self.platform or ctx.platform) else actor

    # -- namespaces --------------------------------------------------------------------------
    def resolve(self, namespace: tuple[str, ...], ctx: Context) -> Place:
        """The place `namespace` names from `ctx`. InvalidInput when it names none."""
        ns = tuple(namespace)
        if not ns or not all(isinstance(p, str) and p for p in ns):
            raise InvalidInput("a namespace is a non-empty tuple of non-empty labels")
        head = ns[0]
        if head == "user" and len(ns) > 1:
            return Place("user", self._who(ns[1], ctx), None, ns[2:])
        if head == "shared":
            if len(ns) < 2:
                raise InvalidInput("('shared', <space>, ...) names the space second")
            return Place(_place_word(f"shared:{ns[1]}"), None, None, ns[2:])
        if head in WORDS:
            where = WORDS[head]
            return Place(where, ctx.actor if where == "user" else None, None, ns[1:])
        where = self.labels.get(head)
        if where is not None and where != "user":
            return Place(where, None, head, ns[1:])
        if len(ns) < 2:
            raise InvalidInput(
                "a namespace for someone's own memory names them second: (label, user_id, ...)"
            )
        who = self.person(ns[1], ctx)
        if who is None:
            raise InvalidInput(_NO_PLACE)
        return Place("user", who, head, ns[2:], named=True)

    def _who(self, label: str, ctx: Context) -> str:
        who = self.person(label, ctx)
        if who is None:
            raise InvalidInput("('user', <user id>, ...) names a person second")
        return who

    def shown(
        self, place: Place, community: str | None, ctx: Context, *, owner: bool
    ) -> tuple[str, ...] | None:
        """`place` as this context names it (a fact's place, or a request's), or None when
        it cannot: another community's, and, under an app's label, another person's unless
        `owner` (the owner, in private)."""
        folders = place.folders
        if place.where == "user":
            assert place.subject is not None
            if place.root is None:
                if place.subject == ctx.actor:
                    return ("me", *folders)
                return ("user", place.subject, *folders)
            if place.subject != ctx.actor and not owner:
                return None
            return (place.root, self.label_of(place.subject, ctx), *folders)
        if place.where == "guild" and community != ctx.community:
            return None
        if place.root is not None:
            return (place.root, *folders)
        if place.where.startswith("shared:"):
            return ("shared", place.where[len("shared:") :], *folders)
        return (place.where, *folders)


def _place_word(place: object) -> str:
    """A place an app's label may be mapped to: confidante's words, or `shared:<space>`.
    Never a person: who is speaking comes from the context alone."""
    if not isinstance(place, str):
        raise InvalidInput("a label maps to a place: me, owner, guild, session, global, shared:x")
    word = place.strip()
    if word.lower() in WORDS:
        return WORDS[word.lower()]
    if word.lower().startswith("shared:") and word[len("shared:") :].strip():
        name = word[len("shared:") :]
        if any(c.isspace() for c in name):
            raise InvalidInput("a shared space's name has no spaces")
        return f"shared:{name}"
    raise InvalidInput(
        "a label maps to a place: me, owner, guild, session, global or shared:<space> "
        "(never a person: identity comes from the context)"
    )


__all__ = ["WORDS", "Namespaces", "Place"]
