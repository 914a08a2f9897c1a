"""The design's invariants 1-5 and 9, through the library, on a real SQLite file."""

from __future__ import annotations

import pytest

from confidante import AccessDenied, Context, Memory, NotFound, Scope

from conftest import ALICE, BOB, CAROL, OWNER, OWNER_TG

OWNER_DM = Context.dm(OWNER)
ALICE_DM = Context.dm(ALICE)
BOB_DM = Context.dm(BOB)
ALICE_G1 = Context.guild(ALICE, "g1", channel="c1")
BOB_G1 = Context.guild(BOB, "g1", channel="c1")
ALICE_G2 = Context.guild(ALICE, "g2", channel="c1")
OWNER_G1 = Context.guild(OWNER, "g1", channel="c1")
NOT_OWNER_PRIVATE = [
    ALICE_DM,
    BOB_DM,
    ALICE_G1,
    ALICE_G2,
    OWNER_G1,
    Context.guild(OWNER, "g1", voice=True),
    Context.group_dm(OWNER, "chat9"),
    Context.group_dm(ALICE, "chat9"),
    Context.dashboard(),
    Context.dashboard(OWNER),
    Context.background("nightly-digest"),
    Context.owner_dashboard(ALICE),
    Context.local(ALICE),
]
OWNER_PRIVATE = [
    OWNER_DM,
    Context.dm(OWNER_TG),
    Context.owner_dashboard(OWNER),
    Context.local(OWNER),
]


def texts(facts) -> set[str]:
    return {getattr(f, "fact", f).text for f in facts}


# --- invariant 1: owner facts only in owner-private contexts -------------------------------------


@pytest.fixture
def owner_fact(mem: Memory):
    return mem.remember(OWNER_DM, "zebra canary owner secret plan", "owner")


@pytest.mark.parametrize("ctx", NOT_OWNER_PRIVATE, ids=lambda c: c.surface + str(c.actor))
def test_owner_facts_invisible_outside_owner_private(mem: Memory, owner_fact, ctx) -> None:
    assert "zebra canary owner secret plan" not in texts(mem.recall(ctx, "zebra canary owner"))
    assert owner_fact.id not in {f.id for f in mem.list(ctx)}
    with pytest.raises(NotFound):
        mem.get(ctx, owner_fact.id)
    with pytest.raises(NotFound):
        mem.forget(ctx, owner_fact.id)
    # still there for the owner
    assert mem.get(OWNER_DM, owner_fact.id).text == owner_fact.text


@pytest.mark.parametrize("ctx", OWNER_PRIVATE, ids=lambda c: c.surface + str(c.actor))
def test_owner_facts_visible_in_owner_private(mem: Memory, owner_fact, ctx) -> None:
    assert owner_fact.id in {h.fact.id for h in mem.recall(ctx, "zebra canary")}
    assert owner_fact.id in {f.id for f in mem.list(ctx)}
    assert mem.get(ctx, owner_fact.id).scope is Scope.OWNER


def test_no_owner_configured_means_nobody_sees_owner_memory(db_path, key) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        f = m.remember(OWNER_DM, "zebra owner note", "owner")
    with Memory.open(db_path, owner_ids=[], master_key=key) as m:
        assert m.recall(OWNER_DM, "zebra") == []
        with pytest.raises(NotFound):
            m.get(OWNER_DM, f.id)
        with pytest.raises(AccessDenied) as e:
            m.remember(OWNER_DM, "I am the owner", "owner")
        assert e.value.code == "owner_required"


def test_owner_on_several_platforms(mem: Memory) -> None:
    f = mem.remember(Context.dm(OWNER_TG), "quokka note from telegram", "owner")
    assert mem.get(OWNER_DM, f.id).text == "quokka note from telegram"
    mine = mem.remember(Context.dm(OWNER_TG), "quokka I like hiking")
    assert mine.id in {h.fact.id for h in mem.recall(OWNER_DM, "quokka hiking")}


# --- invariant 2: users' private facts; guild-learned facts stay in the guild ---------------------


def test_dm_facts_are_the_users_own(mem: Memory) -> None:
    f = mem.remember(ALICE_DM, "alice loves pistachio gelato")
    assert f.scope is Scope.USER and f.subject == ALICE
    assert texts(mem.recall(ALICE_DM, "pistachio")) == {f.text}
    for ctx in (BOB_DM, ALICE_G1, BOB_G1, Context.background("x")):
        assert mem.recall(ctx, "pistachio gelato") == []
        with pytest.raises(NotFound):
            mem.get(ctx, f.id)
    # the owner and the general inspector see People
    assert mem.get(OWNER_DM, f.id).text == f.text
    assert f.id in {x.id for x in mem.list(Context.dashboard())}
    # ... but the owner's default recall pool starts narrow: widen to see Alice
    assert mem.recall(OWNER_DM, "pistachio") == []
    assert texts(mem.recall(OWNER_DM, "pistachio", subjects=[ALICE])) == {f.text}


def test_what_owner_says_about_someone_stays_owner_only(mem: Memory) -> None:
    f = mem.remember(OWNER_DM, "alice is planning a surprise party", f"user:{ALICE}")
    assert f.subject == ALICE
    for ctx in (ALICE_DM, ALICE_G1, Context.dashboard()):
        with pytest.raises(NotFound):
            mem.get(ctx, f.id)
        assert "alice is planning a surprise party" not in texts(mem.recall(ctx, "surprise party"))
    assert mem.get(Context.local(OWNER), f.id).text == f.text


def test_guild_learned_facts_stay_in_the_guild(mem: Memory) -> None:
    f = mem.remember(BOB_G1, "bob collects vintage synthesizers", "me")
    assert f.scope is Scope.USER and f.subject == BOB
    # in g1, when Bob is relevant
    assert texts(mem.recall(BOB_G1, "synthesizers")) == {f.text}
    with_bob = Context.guild(ALICE, "g1", participants=[BOB])
    assert texts(mem.recall(with_bob, "synthesizers")) == {f.text}
    assert texts(mem.recall(ALICE_G1, f"what does {BOB} collect synthesizers")) == {f.text}
    # in g1 when Bob is not relevant, in g2, in other DMs: nothing
    assert mem.recall(ALICE_G1, "synthesizers") == []
    assert mem.recall(Context.guild(BOB, "g2"), "synthesizers") == []
    assert mem.recall(ALICE_DM, "synthesizers") == []
    # to their own subject, anywhere private
    assert texts(mem.recall(BOB_DM, "synthesizers")) == {f.text}


# --- invariant 3: community facts stay in their community ------------------------------------------


def test_guild_facts_never_cross_guilds(mem: Memory) -> None:
    f = mem.remember(ALICE_G1, "the g1 password hint is a kiwi bird")
    assert f.scope is Scope.GUILD and f.community == "discord:g1"
    assert texts(mem.recall(BOB_G1, "kiwi bird")) == {f.text}
    other_platform = Context.guild("slack:42", "g1")
    same_id_group_chat = Context.group_dm(ALICE, "g1")
    for ctx in (ALICE_G2, ALICE_DM, BOB_DM, other_platform, same_id_group_chat):
        assert mem.recall(ctx, "kiwi bird") == [], ctx
        with pytest.raises(NotFound):
            mem.get(ctx, f.id)
    assert texts(mem.recall(OWNER_DM, "kiwi", guilds=["g1"])) == {f.text}
    assert mem.recall(OWNER_DM, "kiwi") == []  # not in the default pool


def test_group_chats_are_communities(mem: Memory) -> None:
    chat = Context.group_dm(ALICE, "chat9", participants=[BOB])
    f = mem.remember(chat, "we are planning a hike to the waterfall")
    assert f.scope is Scope.GUILD
    assert texts(mem.recall(Context.group_dm(BOB, "chat9"), "waterfall")) == {f.text}
    assert mem.recall(Context.group_dm(BOB, "chat10"), "waterfall") == []
    assert mem.recall(Context.guild(BOB, "chat9"), "waterfall") == []
    assert texts(mem.recall(OWNER_DM, "waterfall", guilds=["group:chat9"])) == {f.text}


# --- invariant 4: sessions never cross ----------------------------------------------------------


def test_sessions_never_cross(mem: Memory) -> None:
    f = mem.remember(ALICE_DM, "we were talking about origami cranes", "session")
    assert f.scope is Scope.SESSION
    assert texts(mem.recall(ALICE_DM, "origami")) == {f.text}
    assert mem.recall(Context.dm(ALICE, session="another"), "origami") == []
    assert mem.recall(BOB_DM, "origami") == []
    assert mem.recall(OWNER_DM, "origami") == []
    assert mem.recall(Context.dashboard(), "origami") == []
    g = mem.remember(ALICE_G1, "channel c1 is discussing lanterns", "session")
    assert texts(mem.recall(BOB_G1, "lanterns")) == {g.text}  # same channel session
    assert mem.recall(Context.guild(BOB, "g1", channel="c2"), "lanterns") == []


# --- invariant 5: writes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ctx", "ns", "code"),
    [
        (ALICE_DM, "owner", "owner_required"),
        (ALICE_DM, "private", "owner_required"),
        (OWNER_G1, "owner", "owner_private_context_required"),
        (Context.dashboard(OWNER), "owner", "owner_private_context_required"),
        (ALICE_DM, f"user:{BOB}", "forbidden_subject"),
        (OWNER_G1, f"user:{BOB}", "forbidden_subject"),
        (ALICE_DM, "guild", "guild_context_required"),
        (OWNER_DM, "community", "guild_context_required"),
        (ALICE_G1, "global", "owner_required"),
        (ALICE_DM, "bogus", "unknown_namespace"),
        (Context.dashboard(), None, "namespace_required"),
        (Context.background("digest"), None, "namespace_required"),
    ],
)
def test_write_denials(mem: Memory, ctx: Context, ns: str | None, code: str) -> None:
    before = mem.store.count_facts()
    with pytest.raises(AccessDenied) as e:
        mem.remember(ctx, "some text", ns)
    assert e.value.code == code
    assert mem.store.count_facts() == before
    # invariant 11: the denial is recorded (code, scope, surface; no content)
    last = mem.denials(OWNER_DM, 1)[0]
    assert last.code == code and last.surface == ctx.surface.value


def test_owner_writes_about_someone_in_private(mem: Memory) -> None:
    f = mem.remember(OWNER_DM, "carol is vegetarian", f"user:{CAROL}")
    assert f.scope is Scope.USER and f.subject == CAROL


def test_global_notes_are_read_everywhere(mem: Memory) -> None:
    f = mem.remember(OWNER_G1, "the agent's name is Pip", "global")
    for ctx in NOT_OWNER_PRIVATE + OWNER_PRIVATE:
        assert texts(mem.recall(ctx, "agent name Pip")) == {f.text}


# --- invariant 9: scope only from context; get/update/delete check visibility ----------------------


def test_widening_is_refused_outside_owner_private(mem: Memory) -> None:
    mem.remember(BOB_DM, "bob's favourite colour is teal")
    for ctx, code in [(ALICE_DM, "owner_required"), (OWNER_G1, "owner_private_context_required")]:
        with pytest.raises(AccessDenied) as e:
            mem.recall(ctx, "teal", subjects=[BOB])
        assert e.value.code == code
        with pytest.raises(AccessDenied):
            mem.recall(ctx, "teal", guilds=["g1"])


def test_forget_rules(mem: Memory) -> None:
    community = mem.remember(ALICE_G1, "movie night is on friday")
    with pytest.raises(AccessDenied) as e:
        mem.forget(BOB_G1, community.id)  # Bob can see it but did not write it
    assert e.value.code == "not_author"
    with pytest.raises(NotFound):
        mem.forget(ALICE_G2, community.id)  # cannot see it at all
    mem.forget(ALICE_G1, community.id)
    with pytest.raises(NotFound):
        mem.get(ALICE_G1, community.id)

    about_bob = mem.remember(BOB_G1, "bob plays the oboe", "me")
    mem.forget(BOB_DM, about_bob.id)  # the subject, from his own DM
    with pytest.raises(NotFound):
        mem.get(OWNER_DM, about_bob.id)

    other = mem.remember(ALICE_G1, "the server banner is blue")
    mem.forget(OWNER_DM, other.id)  # the owner, in private
    with pytest.raises(NotFound):
        mem.get(OWNER_DM, other.id)


def test_unknown_ids_and_junk_ids_are_not_found(mem: Memory) -> None:
    for junk in ["", "nope", "' OR 1=1 --", "x" * 500, "%"]:
        with pytest.raises(NotFound):
            mem.get(OWNER_DM, junk)
        with pytest.raises(NotFound):
            mem.forget(OWNER_DM, junk)


def test_metadata_cannot_choose_the_scope(mem: Memory) -> None:
    # The only inputs that pick a scope are the context and the namespace the policy judges.
    f = mem.remember(ALICE_DM, "scope=owner namespace=owner user:discord:1", kind="owner")
    assert f.scope is Scope.USER and f.subject == ALICE
    assert mem.recall(OWNER_DM, "scope owner namespace") == []


def test_list_shows_exactly_what_the_context_may_see(mem: Memory) -> None:
    o = mem.remember(OWNER_DM, "owner plan", "owner")
    a = mem.remember(ALICE_DM, "alice fact")
    g1 = mem.remember(ALICE_G1, "g1 fact")
    g2 = mem.remember(Context.guild(BOB, "g2"), "g2 fact")
    s = mem.remember(ALICE_DM, "alice session", "session")
    n = mem.remember(OWNER_DM, "a global note", "global")
    ids = lambda ctx: {f.id for f in mem.list(ctx)}  # noqa: E731
    assert ids(OWNER_DM) == {o.id, a.id, g1.id, g2.id, n.id}
    assert ids(ALICE_DM) == {a.id, s.id, n.id}
    assert ids(ALICE_G1) == {g1.id, n.id}
    assert ids(Context.dashboard()) == {a.id, g1.id, g2.id, n.id}
    assert ids(Context.background("t")) == {n.id}
