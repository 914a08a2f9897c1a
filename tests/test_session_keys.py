"""One builder for every session key: distinct parts never share a conversation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confidante import Context, InvalidContext, Memory, SessionKey, policy, session_key
from confidante.integrations.mem0 import Mem0Memory
from confidante.model import _SESSION_KINDS, legacy_session_key

from conftest import ALICE, BOB, OWNER

_ID = st.text(alphabet=st.sampled_from([*"ab:%-_.9", "\u00e9", "\u4e2d"]), min_size=1, max_size=8)
_PLATFORM = st.sampled_from(["discord", "slack", "mem0", "matrix"])
_ACTOR = st.builds(lambda p, i: f"{p}:{i}", _PLATFORM, _ID)


def _parts(kind: str) -> st.SearchStrategy[tuple[str | None, ...]]:
    parts = []
    for what in _SESSION_KINDS[kind]:
        parts.append(_ACTOR if what in ("actor", "community") else st.one_of(st.none(), _ID))
    return st.tuples(*parts)


_KEYED = st.sampled_from(sorted(_SESSION_KINDS)).flatmap(
    lambda kind: st.tuples(st.just(kind), _parts(kind))
)


@settings(max_examples=400, deadline=None)
@given(_KEYED, _KEYED)
def test_distinct_parts_never_give_equal_keys(a, b) -> None:
    (kind_a, parts_a), (kind_b, parts_b) = a, b
    if (kind_a, parts_a) != (kind_b, parts_b):
        assert session_key(kind_a, *parts_a) != session_key(kind_b, *parts_b)
    else:
        assert session_key(kind_a, *parts_a) == session_key(kind_b, *parts_b)


def test_colons_in_ids_cannot_join_two_conversations() -> None:
    # user "a:b" in run "c" against user "a" in run "b:c": one string if glued with ":"
    assert session_key("mem0-run", "mem0:a:b", "c") != session_key("mem0-run", "mem0:a", "b:c")
    assert session_key("guild", "discord:a:b", "c") != session_key("guild", "discord:a", "b:c")
    assert session_key("guild", "discord:g", None) != session_key("guild", "discord:g", "-")
    assert session_key("dm-named", "discord:1", "x") != session_key("dm-named", "discord:1:x", "-")


def test_plain_ids_keep_the_keys_stored_before_the_builder() -> None:
    """Sessions written by earlier versions stay readable (and erasable)."""
    assert Context.dm(ALICE).session == f"dm:{ALICE}"
    assert Context.local(OWNER).session == f"local:{OWNER}"
    assert Context.owner_dashboard(OWNER).session == f"owner_dashboard:{OWNER}"
    assert Context.guild(ALICE, "g1", channel="c").session == "guild:discord:g1:c"
    assert Context.guild(ALICE, "g1").session == "guild:discord:g1:-"
    assert Context.group_dm(ALICE, "chat9").session == "group:discord:chat9"
    assert session_key("mem0-run", "mem0:u1", "r1") == "mem0-run:mem0:u1:r1"
    assert legacy_session_key("dm", "matrix:@a:b.org") == "dm:matrix:@a:b.org"


def test_a_context_takes_only_built_keys() -> None:
    with pytest.raises(InvalidContext):
        Context(Context.dm(ALICE).surface, ALICE, session=f"dm:{BOB}")
    with pytest.raises(InvalidContext):
        session_key("nope", ALICE)
    with pytest.raises(InvalidContext):
        session_key("dm", ALICE, "extra")
    assert isinstance(Context.dm(ALICE).session, SessionKey)


def test_a_named_session_belongs_to_its_own_context() -> None:
    """`session="t"` in Alice's DM is Alice's thread, never Bob's thread of the same name,
    nor Bob's default DM session named by its key text."""
    assert Context.dm(ALICE, session="t").session != Context.dm(BOB, session="t").session
    assert Context.dm(ALICE, session=f"dm:{BOB}").session != Context.dm(BOB).session
    g1 = Context.guild(ALICE, "g1", session="t").session
    assert g1 == Context.guild(BOB, "g1", session="t").session  # one thread, its members
    assert g1 != Context.guild(ALICE, "g2", session="t").session


def test_mem0_runs_of_two_users_never_meet(backend: str, key: bytes) -> None:
    """A user id holding ":" used to share a run with another user (user "a:b", run "c" and
    user "a", run "b:c"): each now reads and deletes only their own run's memories."""
    with Memory.open(backend, owner_ids=[OWNER], master_key=key) as mem:
        m = Mem0Memory(mem)
        m.add("I keep my bike in the shed", user_id="a:b", run_id="c")
        m.add("I water the plants on Sunday", user_id="a", run_id="b:c")
        assert [r["memory"] for r in m.get_all(user_id="a", run_id="b:c")["results"]] == [
            "I water the plants on Sunday"
        ]
        assert [r["memory"] for r in m.search("bike", user_id="a", run_id="b:c")["results"]] == []
        m.delete_all(user_id="a", run_id="b:c")
        left = [r["memory"] for r in m.get_all(user_id="a:b", run_id="c")["results"]]
        assert left == ["I keep my bike in the shed"]


def test_forget_subject_erases_a_dm_session_stored_under_the_old_key(db_path, key: bytes) -> None:
    """A Matrix id holds ":"; its DM session was keyed verbatim before the builder."""
    matrix = "matrix:@ann:example.org"
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as mem:
        old = Context(Context.dm(matrix).surface, matrix, session=SessionKey(f"dm:{matrix}"))
        mem.remember(old, "we talked about the garden", "session")
        pid = policy.session_partition(f"dm:{matrix}", mem.keys.key).id
        assert mem.store.get_partitions([pid])[0].wrapped_key is not None
        assert list(mem.store.facts_in(pid))
        mem.forget_subject(Context.dm(OWNER), matrix)
        assert all(p.wrapped_key is None for p in mem.store.get_partitions([pid]))
        assert not list(mem.store.facts_in(pid))
