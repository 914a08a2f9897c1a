"""Truth tables for the pure policy: the gate, the write table, the read table."""

from __future__ import annotations

import pytest

from confidante import AccessDenied, Context, Scope
from confidante.model import OriginKind
from confidante.policy import (
    PartitionRef,
    actors_named_in,
    agent_context_denial,
    can_read,
    default_namespace,
    grant_for,
    import_denial,
    is_owner_private,
    may_forget,
    recall_pool,
    resolve_write,
    viewer,
    visible_pool,
)

OWNERS = ["discord:1", "telegram:7"]


def key(domain: str, raw: str) -> str:  # readable keys: the policy only compares them
    return f"{domain}={raw}"


# --- is_owner_private ----------------------------------------------------------------------

GATE = [
    (Context.dm("discord:1"), True),
    (Context.dm("telegram:7"), True),
    (Context.dm("discord:42"), False),
    (Context.owner_dashboard("discord:1"), True),
    (Context.owner_dashboard("discord:42"), False),
    (Context.local("discord:1"), True),
    (Context.local("discord:42"), False),
    (Context.guild("discord:1", "g1"), False),
    (Context.guild("discord:1", "g1", voice=True), False),
    (Context.group_dm("discord:1", "chat"), False),
    (Context.dashboard(), False),
    (Context.dashboard("discord:1"), False),
    (Context.background("nightly"), False),
]


@pytest.mark.parametrize(("ctx", "expected"), GATE)
def test_is_owner_private(ctx: Context, expected: bool) -> None:
    assert is_owner_private(ctx, OWNERS) is expected


@pytest.mark.parametrize(("ctx", "_"), GATE)
def test_no_owner_configured_means_nobody_is_owner(ctx: Context, _: bool) -> None:
    assert is_owner_private(ctx, []) is False


def test_same_id_on_another_platform_is_not_the_owner() -> None:
    assert is_owner_private(Context.dm("slack:1"), OWNERS) is False


# --- the write table -------------------------------------------------------------------------

O_DM = Context.dm("discord:1")
O_GUILD = Context.guild("discord:1", "g1")
A_DM = Context.dm("discord:42")
A_GUILD = Context.guild("discord:42", "g1")
A_GROUP = Context.group_dm("discord:42", "chat9")
DASH = Context.dashboard()
BG = Context.background("nightly")
O_LOCAL = Context.local("discord:1")
O_DASH = Context.owner_dashboard("discord:1")
X_ODASH = Context.owner_dashboard("discord:42")

WRITES = [
    # ctx, namespace, expected scope or error code
    (O_DM, "owner", Scope.OWNER),
    (O_DM, "private", Scope.OWNER),
    (O_LOCAL, "owner", Scope.OWNER),
    (O_DASH, "owner", Scope.OWNER),
    (O_GUILD, "owner", "owner_private_context_required"),
    (A_DM, "owner", "owner_required"),
    (A_GUILD, "private", "owner_required"),
    (X_ODASH, "owner", "owner_required"),
    (DASH, "owner", "owner_required"),
    (A_DM, "me", Scope.USER),
    (A_DM, "self", Scope.USER),
    (A_DM, "user", Scope.USER),
    (A_GUILD, "me", Scope.USER),
    (DASH, "me", "forbidden_subject"),
    (BG, "me", "forbidden_subject"),
    (A_DM, "user:discord:42", Scope.USER),
    (A_DM, "user:discord:43", "forbidden_subject"),
    (A_GUILD, "user:discord:43", "forbidden_subject"),
    (O_GUILD, "user:discord:43", "forbidden_subject"),
    (O_DM, "user:discord:43", Scope.USER),
    (X_ODASH, "user:discord:43", "forbidden_subject"),
    (A_GUILD, "guild", Scope.GUILD),
    (A_GUILD, "community", Scope.GUILD),
    (A_GROUP, "server", Scope.GUILD),
    (A_DM, "guild", "guild_context_required"),
    (O_DM, "guild", "guild_context_required"),
    (DASH, "guild", "guild_context_required"),
    (A_DM, "session", Scope.SESSION),
    (A_GUILD, "session", Scope.SESSION),
    (DASH, "session", "namespace_required"),
    (BG, "session", "namespace_required"),
    (O_DM, "global", Scope.GLOBAL),
    (O_GUILD, "notes", Scope.GLOBAL),
    (A_DM, "global", "owner_required"),
    (BG, "global", "owner_required"),
    (A_DM, "everything", "unknown_namespace"),
    (A_DM, "*", "unknown_namespace"),
    (O_DM, "", Scope.USER),  # blank = default
    (DASH, None, "namespace_required"),
    (BG, None, "namespace_required"),
    (X_ODASH, None, "namespace_required"),
    (A_DM, "OWNER", "owner_required"),  # namespaces are case-insensitive
]


@pytest.mark.parametrize(("ctx", "ns", "expected"), WRITES)
def test_write_table(ctx: Context, ns: str | None, expected: object) -> None:
    if isinstance(expected, Scope):
        assert resolve_write(ctx, OWNERS, ns).scope is expected
    else:
        with pytest.raises(AccessDenied) as e:
            resolve_write(ctx, OWNERS, ns)
        assert e.value.code == expected


def test_write_targets_name_the_right_partition() -> None:
    assert resolve_write(A_DM, OWNERS, None).subject == "discord:42"
    assert resolve_write(O_DM, OWNERS, "user:discord:43").subject == "discord:43"
    assert resolve_write(A_GUILD, OWNERS, None).community == "discord:g1"
    assert resolve_write(A_GROUP, OWNERS, None).community == "discord:chat9"
    assert resolve_write(A_DM, OWNERS, "session").session == A_DM.session


def test_with_no_owner_configured_nobody_writes_owner_memory() -> None:
    with pytest.raises(AccessDenied) as e:
        resolve_write(O_DM, [], "owner")
    assert e.value.code == "owner_required"


@pytest.mark.parametrize(
    ("ctx", "ns"),
    [(O_DM, "me"), (A_DM, "me"), (O_LOCAL, "me"), (A_GUILD, "guild"), (A_GROUP, "guild")],
)
def test_default_namespaces(ctx: Context, ns: str) -> None:
    assert default_namespace(ctx, OWNERS) == ns


# --- the read table ----------------------------------------------------------------------------

OWNER_P = PartitionRef(Scope.OWNER)
GLOBAL_P = PartitionRef(Scope.GLOBAL)


def user_p(actor: str) -> PartitionRef:
    return PartitionRef(Scope.USER, key("actor", actor))


def guild_p(community: str) -> PartitionRef:
    return PartitionRef(Scope.GUILD, key("community", community))


def session_p(ctx: Context) -> PartitionRef:
    assert ctx.session
    return PartitionRef(Scope.SESSION, key("session", ctx.session))


DM = (OriginKind.DM, key("actor", "discord:42"))  # learned in Alice's DM
DM_BOB = (OriginKind.DM, key("actor", "discord:43"))
IN_G1 = (OriginKind.GUILD, key("community", "discord:g1"))
IN_CHAT = (OriginKind.GROUP, key("group", "discord:chat9"))
OWNER_ORIGIN = (OriginKind.OWNER, None)

BOB_IN_G1 = Context.guild("discord:43", "g1")
A_G1_WITH_BOB = Context.guild("discord:42", "g1", participants=["discord:43"])
A_G2 = Context.guild("discord:42", "g2")
B_DM = Context.dm("discord:43")

READS = [
    # ctx, partition, origin, visible
    # owner partition: owner-private only
    (O_DM, OWNER_P, OWNER_ORIGIN, True),
    (O_LOCAL, OWNER_P, OWNER_ORIGIN, True),
    (O_DASH, OWNER_P, OWNER_ORIGIN, True),
    (O_GUILD, OWNER_P, OWNER_ORIGIN, False),
    (A_DM, OWNER_P, OWNER_ORIGIN, False),
    (A_GUILD, OWNER_P, OWNER_ORIGIN, False),
    (DASH, OWNER_P, OWNER_ORIGIN, False),
    (BG, OWNER_P, OWNER_ORIGIN, False),
    (X_ODASH, OWNER_P, OWNER_ORIGIN, False),
    # user Alice, learned in her DM
    (O_DM, user_p("discord:42"), DM, True),
    (A_DM, user_p("discord:42"), DM, True),
    (B_DM, user_p("discord:42"), DM, False),
    (A_GUILD, user_p("discord:42"), DM, False),
    (DASH, user_p("discord:42"), DM, True),
    (BG, user_p("discord:42"), DM, False),
    # user Alice, what the owner said about her in private
    (O_DM, user_p("discord:42"), OWNER_ORIGIN, True),
    (A_DM, user_p("discord:42"), OWNER_ORIGIN, False),
    (DASH, user_p("discord:42"), OWNER_ORIGIN, False),
    # user Bob, learned in g1
    (O_DM, user_p("discord:43"), IN_G1, True),
    (B_DM, user_p("discord:43"), IN_G1, True),
    (A_DM, user_p("discord:43"), IN_G1, False),
    (BOB_IN_G1, user_p("discord:43"), IN_G1, True),
    (A_GUILD, user_p("discord:43"), IN_G1, False),  # Bob not relevant
    (A_G1_WITH_BOB, user_p("discord:43"), IN_G1, True),  # Bob is a participant
    (A_G2, user_p("discord:43"), IN_G1, False),
    (Context.guild("discord:43", "g2"), user_p("discord:43"), IN_G1, False),
    (DASH, user_p("discord:43"), IN_G1, True),
    (BG, user_p("discord:43"), IN_G1, False),
    # user Bob, learned in his DM, seen from a guild he is in
    (BOB_IN_G1, user_p("discord:43"), DM_BOB, False),
    # guild g1
    (O_DM, guild_p("discord:g1"), IN_G1, True),
    (A_GUILD, guild_p("discord:g1"), IN_G1, True),
    (A_G2, guild_p("discord:g1"), IN_G1, False),
    (A_DM, guild_p("discord:g1"), IN_G1, False),
    (O_GUILD, guild_p("discord:g1"), IN_G1, True),
    (Context.guild("slack:42", "g1"), guild_p("discord:g1"), IN_G1, False),
    (DASH, guild_p("discord:g1"), IN_G1, True),
    (BG, guild_p("discord:g1"), IN_G1, False),
    # a group chat is its own community, apart from a guild with the same id
    (A_GROUP, PartitionRef(Scope.GUILD, key("group", "discord:chat9")), IN_CHAT, True),
    (
        Context.guild("discord:42", "chat9"),
        PartitionRef(Scope.GUILD, key("group", "discord:chat9")),
        IN_CHAT,
        False,
    ),
    (Context.group_dm("discord:42", "g1"), guild_p("discord:g1"), IN_G1, False),
    # sessions never cross keys
    (A_DM, session_p(A_DM), DM, True),
    (B_DM, session_p(A_DM), DM, False),
    (O_DM, session_p(A_DM), DM, False),
    (A_GUILD, session_p(A_GUILD), IN_G1, True),
    (Context.guild("discord:42", "g1", channel="other"), session_p(A_GUILD), IN_G1, False),
    (DASH, session_p(A_DM), DM, False),
    # global: everyone
    (O_DM, GLOBAL_P, OWNER_ORIGIN, True),
    (A_DM, GLOBAL_P, OWNER_ORIGIN, True),
    (A_GUILD, GLOBAL_P, OWNER_ORIGIN, True),
    (DASH, GLOBAL_P, OWNER_ORIGIN, True),
    (BG, GLOBAL_P, OWNER_ORIGIN, True),
]


@pytest.mark.parametrize(("ctx", "part", "origin", "visible"), READS)
def test_read_table(ctx: Context, part: PartitionRef, origin: tuple, visible: bool) -> None:
    v = viewer(ctx, OWNERS, key)
    assert can_read(v, part, origin[0], origin[1]) is visible


def test_no_owner_configured_sees_no_owner_partition() -> None:
    v = viewer(O_DM, [], key)
    assert grant_for(v, OWNER_P) is None


def test_people_named_in_the_query_are_relevant() -> None:
    v = viewer(A_GUILD, OWNERS, key, query="what does discord:43 like?")
    assert can_read(v, user_p("discord:43"), *IN_G1)
    v = viewer(A_GUILD, OWNERS, key, query="what does <@43> like?")
    assert can_read(v, user_p("discord:43"), *IN_G1)
    # naming someone in a DM does not open their partition
    v = viewer(A_DM, OWNERS, key, query="what does discord:43 like?")
    assert not can_read(v, user_p("discord:43"), *IN_G1)


def test_actors_named_in() -> None:
    assert actors_named_in("ask discord:43 and <@44>", "discord") == {
        "discord:43",
        "discord:44",
    }
    assert actors_named_in("see https://example.com", "discord") == set()


def test_recall_pools() -> None:
    v = viewer(O_DM, OWNERS, key)
    pool = recall_pool(O_DM, v, key)
    assert OWNER_P in pool.partitions
    assert user_p("discord:1") in pool.partitions
    assert user_p("telegram:7") in pool.partitions
    assert user_p("discord:42") not in pool.partitions
    # every shared space, and no person's or community's memory unless asked for or named
    assert pool.all_of == {Scope.SHARED}
    named = viewer(O_DM, OWNERS, key, query="what does discord:42 like?")
    assert user_p("discord:42") in recall_pool(O_DM, named, key).partitions
    by_name = viewer(O_DM, OWNERS, key, named=["discord:44"])
    assert user_p("discord:44") in recall_pool(O_DM, by_name, key).partitions
    tied = Context.dm("discord:1", about_guild="g1")
    assert guild_p("discord:g1") in recall_pool(tied, viewer(tied, OWNERS, key), key).partitions
    wide = recall_pool(O_DM, v, key, subjects=["discord:42"], guilds=["g1"])
    assert user_p("discord:42") in wide.partitions
    assert guild_p("discord:g1") in wide.partitions


@pytest.mark.parametrize("ctx", [A_DM, A_GUILD, DASH, BG])
def test_only_owner_private_contexts_may_widen(ctx: Context) -> None:
    v = viewer(ctx, OWNERS, key)
    with pytest.raises(AccessDenied) as e:
        recall_pool(ctx, v, key, subjects=["discord:43"])
    assert e.value.code == "owner_required"
    with pytest.raises(AccessDenied):
        recall_pool(ctx, v, key, guilds=["g2"])


def test_owner_outside_private_cannot_widen() -> None:
    v = viewer(O_GUILD, OWNERS, key)
    with pytest.raises(AccessDenied) as e:
        recall_pool(O_GUILD, v, key, subjects=["discord:43"])
    assert e.value.code == "owner_private_context_required"


def test_visible_pools_never_include_owner_partition_outside_private() -> None:
    for ctx in (A_DM, A_GUILD, DASH, BG, O_GUILD, X_ODASH):
        assert OWNER_P not in visible_pool(viewer(ctx, OWNERS, key)).partitions


FORGETS = [
    # ctx, author, subject, allowed
    (A_DM, "discord:42", "discord:42", True),  # writer and subject
    (A_DM, "discord:43", "discord:42", True),  # subject
    (A_GUILD, "discord:42", None, True),  # writer of a community fact
    (BOB_IN_G1, "discord:42", None, False),  # another member
    (O_DM, "discord:42", None, True),  # owner in private
    (O_GUILD, "discord:42", None, False),  # owner, but in public
    (DASH, "discord:42", "discord:42", False),
]


@pytest.mark.parametrize(("ctx", "author", "subject", "allowed"), FORGETS)
def test_who_may_forget(ctx: Context, author: str, subject: str | None, allowed: bool) -> None:
    v = viewer(ctx, OWNERS, key)
    ak = key("actor", author)
    sk = key("actor", subject) if subject else None
    assert may_forget(v, ak, sk) is allowed


# --- what an agent may assert ----------------------------------------------------------------

AGENT_CONTEXTS = [
    (Context.dm("discord:42"), None),
    (Context.guild("discord:42", "g1", participants=["discord:43"]), None),
    (Context.background("digest"), None),
    (Context.dm("silo:0123456789abcdef"), "reserved_platform"),
    (Context.dm("mem0:alice"), "reserved_platform"),
    (
        Context.guild("discord:42", "g1", participants=["silo:0123456789abcdef"]),
        "reserved_platform",
    ),
    (Context.group_dm("mem0:bob", "chat"), "reserved_platform"),
    (Context.local("discord:1"), "surface_not_allowed"),
    (Context.owner_dashboard("discord:1"), "surface_not_allowed"),
    (Context.dashboard(), "surface_not_allowed"),
]


@pytest.mark.parametrize(("ctx", "code"), AGENT_CONTEXTS)
def test_agent_context_denial(ctx: Context, code: str | None) -> None:
    assert agent_context_denial(ctx) == code


IMPORTS = [
    (Context.dm("discord:42"), False, None),  # plain texts: anyone, where they write
    (Context.dm("discord:42"), True, "owner_required"),
    (Context.guild("discord:1", "g1"), True, "owner_private_context_required"),
    (Context.local("discord:1"), True, None),
    (Context.dm("discord:1"), True, None),
    (Context.background("job"), True, "owner_required"),
]


@pytest.mark.parametrize(("ctx", "places", "code"), IMPORTS)
def test_import_denial(ctx: Context, places: bool, code: str | None) -> None:
    assert import_denial(ctx, OWNERS, places_entries=places) == code
