"""Property-based tests of the read and write rules (issue 11, item 7), on both engines.

Hypothesis drives random contexts, namespaces and operations (remember, recall, list, get,
update, forget, forget_subject, prompt_context) against the real memory and against a small
reference model written here, directly from the design's tables (design.md, "Read rules" and
"Write rules"), with raw ids and none of the policy module's code. Any difference fails.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from confidante import AccessDenied, Context, Memory, NotFound, Surface
from confidante.config import Settings
from confidante.vault.crypto import new_key

from conftest import PG_DSN

OWNER = "discord:1"
PEOPLE = [OWNER, "discord:42", "discord:43", "discord:44"]
GUILDS = ["g1", "g2"]
CHATS = ["c1"]
NAMESPACES = [
    None, "owner", "private", "me", "self", "user", "guild", "community", "server",
    "session", "global", "notes", "bogus",
    *(f"user:{p}" for p in PEOPLE),
]  # fmt: skip

# --- contexts, as the model sees them ---------------------------------------------------------


@dataclass(frozen=True)
class Ctx:
    surface: str  # dm, guild_text, group_dm, local, owner_dashboard, dashboard, background
    actor: str | None = None
    place: str | None = None  # guild or group chat id (raw, without platform)
    participants: tuple[str, ...] = ()

    def build(self) -> Context:
        s = self.surface
        if s == "dm":
            return Context.dm(self.actor)
        if s == "guild_text":
            return Context.guild(self.actor, self.place, participants=self.participants)
        if s == "group_dm":
            return Context.group_dm(self.actor, self.place, participants=self.participants)
        if s == "local":
            return Context.local(self.actor)
        if s == "owner_dashboard":
            return Context.owner_dashboard(self.actor)
        if s == "dashboard":
            return Context.dashboard(self.actor)
        return Context.background("digest")

    @property
    def owner_private(self) -> bool:
        return self.actor == OWNER and self.surface in ("dm", "owner_dashboard", "local")

    @property
    def community(self) -> tuple[str, str] | None:
        """(kind, "discord:<id>"): guilds and group chats are different communities."""
        if self.surface == "guild_text":
            return ("guild", f"discord:{self.place}")
        if self.surface == "group_dm":
            return ("group", f"discord:{self.place}")
        return None

    @property
    def session(self) -> str | None:
        s = self.surface
        if s in ("dashboard", "background"):
            return None
        if s == "guild_text":
            return f"guild:discord:{self.place}:-"
        if s == "group_dm":
            return f"group:discord:{self.place}"
        return f"{s}:{self.actor}"

    def origin(self) -> tuple[str, str | None]:
        if self.owner_private:
            return ("owner", None)
        if self.surface in ("dm", "local"):
            return ("dm", self.actor)
        if self.community:
            return self.community
        if self.surface == "background":
            return ("background", None)
        return ("dashboard", None)


people = st.sampled_from(PEOPLE)
contexts = st.one_of(
    st.builds(Ctx, st.just("dm"), people),
    st.builds(
        Ctx,
        st.just("guild_text"),
        people,
        st.sampled_from(GUILDS),
        st.lists(people, max_size=2, unique=True).map(tuple),
    ),
    st.builds(Ctx, st.just("group_dm"), people, st.sampled_from(CHATS + GUILDS)),
    st.builds(Ctx, st.just("local"), people),
    st.builds(Ctx, st.just("owner_dashboard"), people),
    st.builds(Ctx, st.just("dashboard"), st.sampled_from([None, OWNER])),
    st.just(Ctx("background")),
)
owner_contexts = st.one_of(
    st.builds(Ctx, st.sampled_from(["dm", "local", "owner_dashboard"]), st.just(OWNER)),
    st.builds(Ctx, st.just("guild_text"), st.just(OWNER), st.sampled_from(GUILDS)),
)


# --- the reference model: the design's tables ----------------------------------------------------


@dataclass
class MFact:
    id: str
    token: str
    scope: str  # owner user guild session global
    subject: str | None
    community: tuple[str, str] | None  # guild scope: (kind, id)
    session: str | None
    origin: tuple[str, str | None]
    author: str | None


def model_write(c: Ctx, ns: str | None) -> dict | str:
    """The write table: the target, or the denial code."""
    nobody = c.surface == "owner_dashboard" and not c.owner_private
    if ns is None:
        if c.owner_private or c.surface in ("dm", "local"):
            ns = "me"
        elif c.community:
            ns = "guild"
        else:
            return "namespace_required"
    if ns in ("owner", "private"):
        if c.actor != OWNER:
            return "owner_required"
        return {"scope": "owner"} if c.owner_private else "owner_private_context_required"
    if ns in ("me", "self", "user"):
        if c.actor is None or nobody:
            return "forbidden_subject"
        return {"scope": "user", "subject": c.actor}
    if ns.startswith("user:"):
        who = ns[len("user:") :]
        if (who == c.actor and not nobody) or c.owner_private:
            return {"scope": "user", "subject": who}
        return "forbidden_subject"
    if ns in ("guild", "community", "server"):
        if c.community is None:
            return "guild_context_required"
        return {"scope": "guild", "community": c.community}
    if ns == "session":
        if c.session is None or nobody:
            return "namespace_required"
        return {"scope": "session", "session": c.session}
    if ns in ("global", "notes"):
        return {"scope": "global"} if c.actor == OWNER else "owner_required"
    return "unknown_namespace"


def model_visible(c: Ctx, f: MFact) -> bool:
    """The read table."""
    if f.scope == "global":
        return True
    if f.scope == "session":
        return c.session is not None and c.session == f.session
    if c.owner_private:
        return True
    if c.surface in ("dm", "local") and c.actor:
        if f.scope != "user":
            return False
        if f.origin == ("dm", c.actor):  # what their own DM wrote
            return True
        return f.subject == c.actor and f.origin[0] in ("guild", "group")
    if c.community:
        if f.scope == "guild":
            return f.community == c.community
        if f.scope == "user":
            relevant = {c.actor, *c.participants}
            return f.subject in relevant and f.origin == c.community
        return False
    if c.surface == "dashboard":
        if f.scope == "user":
            return f.origin[0] != "owner"  # what the owner said in private stays private
        return f.scope == "guild"
    return False


def model_recall_pool(c: Ctx, f: MFact) -> bool:
    """Owner-private contexts recall from a narrow default pool (not widened here)."""
    if not c.owner_private:
        return True
    return f.scope in ("owner", "global", "session") or (f.scope == "user" and f.subject == OWNER)


def model_may_change(c: Ctx, f: MFact) -> bool:
    return c.owner_private or (c.actor is not None and c.actor in (f.author, f.subject))


def model_rewrite_ok(c: Ctx, f: MFact) -> bool:
    return c.origin() == f.origin or (c.surface == "owner_dashboard" and c.owner_private)


# --- the machine ---------------------------------------------------------------------------------


@settings(
    max_examples=80,
    stateful_step_count=50,
    deadline=None,
    database=None,  # no .hypothesis/ directory in the repository
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
class PolicyMachine(RuleBasedStateMachine):
    # set by the test: a fresh empty database for each run (a path or a URL), and its removal
    new_database: Callable[[], tuple[str, Callable[[], None]]]

    @initialize()
    def start(self) -> None:
        target, self.drop = PolicyMachine.new_database()
        self.mem = Memory.open(
            target,
            owner_ids=[OWNER],
            master_key=new_key(),
            settings=Settings(embedder="none"),
        )
        self.facts: dict[str, MFact] = {}
        self.n = 0

    def teardown(self) -> None:
        if hasattr(self, "mem"):
            self.mem.close()
            self.drop()

    def _pick(self, data: st.DataObject) -> MFact:
        """A stored fact, chosen by position (ids are random; positions replay)."""
        ids = list(self.facts)
        return self.facts[ids[data.draw(st.integers(0, len(ids) - 1))]]

    def _token(self) -> str:
        self.n += 1
        return f"zephyr{self.n}"

    @rule(c=contexts, ns=st.sampled_from(NAMESPACES))
    def remember(self, c: Ctx, ns: str | None) -> None:
        expected = model_write(c, ns)
        token = self._token()
        try:
            fact = self.mem.remember(c.build(), f"a remembered line {token}", ns)
        except AccessDenied as e:
            assert e.code == expected, (c, ns, e.code, expected)
            return
        assert isinstance(expected, dict), (c, ns, expected)
        assert fact.scope.value == expected["scope"]
        self.facts[fact.id] = MFact(
            fact.id,
            token,
            expected["scope"],
            expected.get("subject"),
            expected.get("community"),
            expected.get("session"),
            c.origin(),
            c.actor,
        )

    @rule(c=owner_contexts, ns=st.sampled_from(NAMESPACES))
    def owner_remembers(self, c: Ctx, ns: str | None) -> None:
        self.remember(c, ns)  # the owner writes more kinds of facts: more of them, then

    @rule(c=contexts)
    def list_everything(self, c: Ctx) -> None:
        seen = {f.id for f in self.mem.list(c.build())}
        want = {fid for fid, f in self.facts.items() if model_visible(c, f)}
        assert seen == want, (c, seen ^ want)

    @precondition(lambda self: self.facts)
    @rule(c=contexts, data=st.data())
    def recall(self, c: Ctx, data: st.DataObject) -> None:
        target = self._pick(data)
        hits = [h.fact.id for h in self.mem.recall(c.build(), target.token, k=50)]
        for fid in hits:
            f = self.facts[fid]
            assert model_visible(c, f) and model_recall_pool(c, f), (c, f)
        expected = model_visible(c, target) and model_recall_pool(c, target)
        assert (target.id in hits) == expected, (c, target)

    @precondition(lambda self: self.facts)
    @rule(c=contexts, data=st.data())
    def get(self, c: Ctx, data: st.DataObject) -> None:
        f = self._pick(data)
        try:
            got = self.mem.get(c.build(), f.id)
            assert model_visible(c, f), (c, f)
            assert f.token in got.text
        except NotFound:
            assert not model_visible(c, f), (c, f)

    def _change(self, c: Ctx, f: MFact) -> str | None:
        if not model_visible(c, f):
            return "not_found"
        if not model_may_change(c, f):
            return "not_author"
        return None

    @precondition(lambda self: self.facts)
    @rule(c=contexts, data=st.data())
    def update(self, c: Ctx, data: st.DataObject) -> None:
        f = self._pick(data)
        expected = self._change(c, f) or (None if model_rewrite_ok(c, f) else "origin_mismatch")
        token = self._token()
        try:
            self.mem.update(c.build(), f.id, f"a rewritten line {token}")
        except NotFound:
            assert expected == "not_found", (c, f, expected)
            return
        except AccessDenied as e:
            assert e.code == expected, (c, f, e.code, expected)
            return
        assert expected is None, (c, f, expected)
        f.token = token

    @precondition(lambda self: self.facts)
    @rule(c=contexts, data=st.data())
    def forget(self, c: Ctx, data: st.DataObject) -> None:
        f = self._pick(data)
        expected = self._change(c, f)
        try:
            self.mem.forget(c.build(), f.id)
        except NotFound:
            assert expected == "not_found", (c, f, expected)
            return
        except AccessDenied as e:
            assert e.code == expected, (c, f, e.code, expected)
            return
        assert expected is None, (c, f, expected)
        del self.facts[f.id]

    @rule(c=contexts, who=people)
    def forget_subject(self, c: Ctx, who: str) -> None:
        if c.owner_private or (c.surface == "dm" and c.actor == who):
            expected = None
        else:
            expected = (
                "owner_private_context_required" if c.actor == OWNER else ("forbidden_subject")
            )
        try:
            self.mem.forget_subject(c.build(), who)
        except AccessDenied as e:
            assert e.code == expected, (c, who, e.code, expected)
            return
        assert expected is None, (c, who)
        # Their silo, the DM sessions they wrote in and their default private sessions go;
        # what they wrote elsewhere stays, without its author.
        sessions = {
            f.session for f in self.facts.values()
            if f.scope == "session" and f.author == who and f.origin[0] == "dm"
        } | {f"{s}:{who}" for s in ("dm", "local", "owner_dashboard")}  # fmt: skip
        for fid, f in list(self.facts.items()):
            if (f.scope == "user" and f.subject == who) or (
                f.scope == "session" and f.session in sessions
            ):
                del self.facts[fid]
            elif f.author == who:
                f.author = None

    @rule(c=contexts)
    def prompt_context(self, c: Ctx) -> None:
        block = self.mem.prompt_context(c.build(), "remembered rewritten line", max_tokens=4000)
        for f in self.facts.values():
            if not model_visible(c, f):
                assert f.token not in block.split(), (c, f)

    @invariant()
    def nothing_lost(self) -> None:
        if hasattr(self, "mem"):
            assert self.mem.store.count_facts() == len(self.facts)


_RUNS = itertools.count()


def test_policy_matches_the_reference_model(tmp_path) -> None:
    PolicyMachine.new_database = lambda: (str(tmp_path / f"m{next(_RUNS)}.db"), lambda: None)
    run_state_machine_as_test(PolicyMachine)


def test_policy_matches_the_reference_model_on_postgres(pg_url: str) -> None:
    """The same machine on PostgreSQL, shorter (each run gets a fresh schema)."""
    import psycopg

    admin = psycopg.connect(PG_DSN, autocommit=True)

    def new_database() -> tuple[str, Callable[[], None]]:
        schema = f"confidante_model_{uuid.uuid4().hex[:12]}"
        admin.execute(f"CREATE SCHEMA {schema}")
        sep = "&" if "?" in PG_DSN else "?"
        url = f"{PG_DSN}{sep}options={quote(f'-csearch_path={schema}')}"
        return url, lambda: admin.execute(f"DROP SCHEMA {schema} CASCADE")

    PolicyMachine.new_database = new_database
    try:
        run_state_machine_as_test(
            PolicyMachine,
            settings=settings(
                max_examples=25,
                stateful_step_count=40,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow],
            ),
        )
    finally:
        admin.close()


@pytest.mark.parametrize(
    ("ctx", "ns"),
    [
        (Ctx("guild_text", "discord:42", "g1"), "me"),
        (Ctx("group_dm", "discord:42", "g1"), "guild"),
        (Ctx("owner_dashboard", "discord:42"), "session"),
        (Ctx("dashboard", OWNER), "global"),
    ],
)
def test_model_spot_checks(ctx: Ctx, ns: str) -> None:
    """The model itself, on a few rows of the tables (so a wrong model is seen too)."""
    assert ctx.build().surface is Surface(ctx.surface)
    expected = {
        ("guild_text", "me"): {"scope": "user", "subject": "discord:42"},
        ("group_dm", "guild"): {"scope": "guild", "community": ("group", "discord:g1")},
        ("owner_dashboard", "session"): "namespace_required",
        ("dashboard", "global"): {"scope": "global"},
    }[(ctx.surface, ns)]
    assert model_write(ctx, ns) == expected
