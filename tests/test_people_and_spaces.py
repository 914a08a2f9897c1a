"""Who is who (display names, relevant people in recall) and memory shared on purpose
(shared spaces), each as far as the read table allows and no further."""

from __future__ import annotations

import pytest

from confidante import AccessDenied, Context, Memory, NotFound
from confidante.model import InvalidContext

from conftest import ALICE, BOB, CAROL, OWNER

DAN = "discord:45"


def _texts(hits) -> set[str]:
    return {h.fact.text for h in hits}


def _seed(mem: Memory) -> None:
    """Alice says things in her DM, in guild g1 and in guild g2; the owner notes something
    about her; Bob is in g1 with her."""
    mem.remember(Context.dm(ALICE, names={ALICE: "Alice Martin"}), "I am allergic to peanuts")
    g1 = Context.guild(ALICE, "g1", channel="c", names={ALICE: "Alice", BOB: "Bobby"})
    mem.remember(g1, "I am allergic to cats as well", "me")
    mem.remember(
        Context.guild(ALICE, "g2", channel="c", names={ALICE: "Ally"}),
        "I am allergic to bee stings",
        "me",
    )
    mem.remember(Context.dm(OWNER), "Alice hates surprise parties", f"user:{ALICE}")


def test_the_owner_asks_about_someone_by_name(mem: Memory) -> None:
    _seed(mem)
    owner = Context.dm(OWNER)
    for q in (
        "what is Alice allergic to?",
        "Alice 对什么过敏",
        "Wogegen ist Alice allergisch?",
        "À quoi Alice est-elle allergique ?",
        "¿A qué es alérgica Alice?",
        "what is Ally allergic to?",
    ):
        got = _texts(mem.recall(owner, q, k=20))
        assert {
            "I am allergic to peanuts",
            "I am allergic to cats as well",
            "I am allergic to bee stings",
        } <= got, q
    assert "Alice hates surprise parties" in _texts(mem.recall(owner, "Alice party", k=20))
    assert mem.people(owner) == {ALICE: ["Ally", "Alice", "Alice Martin"], BOB: ["Bobby"]} or (
        set(mem.people(owner)[ALICE]) == {"Ally", "Alice", "Alice Martin"}
    )


def test_a_name_in_a_guild_brings_what_that_person_said_there_only(mem: Memory) -> None:
    _seed(mem)
    carol_g1 = Context.guild(CAROL, "g1", channel="c")
    got = _texts(mem.recall(carol_g1, "what is Alice allergic to?", k=20))
    assert "I am allergic to cats as well" in got
    assert not got & {
        "I am allergic to peanuts",
        "I am allergic to bee stings",
        "Alice hates surprise parties",
    }
    # a name seen only in g2 (or only in her DM) names nobody in g1
    assert not _texts(mem.recall(carol_g1, "what is Ally allergic to?", k=20)) & {
        "I am allergic to cats as well",
        "I am allergic to bee stings",
    }
    assert not _texts(mem.recall(carol_g1, "what is Alice Martin allergic to?", k=20)) & {
        "I am allergic to peanuts"
    }
    # in someone else's DM a name brings nothing
    assert _texts(mem.recall(Context.dm(BOB), "what is Alice allergic to?", k=20)) == set()


def test_names_are_never_listed_and_go_with_the_person(mem: Memory) -> None:
    _seed(mem)
    owner = Context.dm(OWNER)
    everything = {f.text for f in mem.list(Context.local(OWNER))}
    assert not everything & {"Alice", "Alice Martin", "Ally", "Bobby"}
    assert not {f.text for f in mem.list(Context.dashboard())} & {"Alice", "Ally"}
    mem.forget_subject(owner, ALICE)
    assert ALICE not in mem.people(owner)
    assert not _texts(mem.recall(owner, "what is Alice allergic to?", k=20)) & {
        "I am allergic to peanuts",
        "I am allergic to cats as well",
    }
    with pytest.raises(AccessDenied):
        mem.people(Context.dm(ALICE))


def test_an_owner_context_tied_to_a_guild_loads_its_memory(mem: Memory) -> None:
    mem.remember(Context.guild(ALICE, "g1"), "Our book club meets on Thursdays")
    mem.remember(Context.guild(ALICE, "g2"), "Our chess club meets on Thursdays")
    plain = _texts(mem.recall(Context.dm(OWNER), "when does the club meet?", k=20))
    assert plain == set()
    tied = _texts(mem.recall(Context.dm(OWNER, about_guild="g1"), "when does the club meet?"))
    assert tied == {"Our book club meets on Thursdays"}
    # the tie means nothing outside owner-private contexts
    alice_tied = Context.dm(ALICE, about_guild="g1")
    assert _texts(mem.recall(alice_tied, "when does the club meet?")) == set()
    with pytest.raises(InvalidContext):
        Context(Context.guild(ALICE, "g1").surface, ALICE, about="discord:g1")


def test_shared_spaces_read_and_write_as_the_table_says(mem: Memory) -> None:
    owner = Context.dm(OWNER)
    mem.create_space(owner, "home", members=[ALICE, BOB])
    alice, bob, carol = Context.dm(ALICE), Context.dm(BOB), Context.dm(CAROL)
    wifi = mem.remember(alice, "The bins go out on Tuesday night", "shared:home")
    assert wifi.scope.value == "shared" and wifi.space == "home"
    assert mem.get(bob, wifi.id).space == "home"
    assert [f.id for f in mem.list_page(owner, space="home").facts] == [wifi.id]
    assert mem.list_page(owner, space="elsewhere").facts == []
    assert "The bins go out on Tuesday night" in _texts(mem.recall(bob, "bins"))
    assert "The bins go out on Tuesday night" in _texts(mem.recall(owner, "bins"))
    assert "The bins go out on Tuesday night" in mem.prompt_context(bob, "bins")
    assert _texts(mem.recall(carol, "bins")) == set()
    assert "bins go out" not in mem.prompt_context(carol, "bins")
    with pytest.raises(AccessDenied) as e:
        mem.remember(carol, "hello", "shared:home")
    assert e.value.code == "not_a_member"
    with pytest.raises(AccessDenied):
        mem.remember(alice, "hello", "shared:nope")
    # a group chat of members only reads it; with anyone else present, nothing
    members_chat = Context.group_dm(ALICE, "chat1", participants=[BOB])
    mixed_chat = Context.group_dm(ALICE, "chat2", participants=[BOB, CAROL])
    assert "The bins go out on Tuesday night" in _texts(mem.recall(members_chat, "bins"))
    assert _texts(mem.recall(mixed_chat, "bins")) == set()
    with pytest.raises(AccessDenied):
        mem.remember(mixed_chat, "hi", "shared:home")
    # never in a guild, never on the general dashboard
    assert _texts(mem.recall(Context.guild(ALICE, "g1", participants=[BOB]), "bins")) == set()
    assert "The bins go out on Tuesday night" not in {f.text for f in mem.list(Context.dashboard())}
    with pytest.raises(NotFound):
        mem.get(carol, wifi.id)
    # removal takes effect at once
    mem.remove_member(owner, "home", BOB)
    assert _texts(mem.recall(bob, "bins")) == set()
    with pytest.raises(NotFound):
        mem.get(bob, wifi.id)
    mem.add_member(owner, "home", BOB)
    assert "The bins go out on Tuesday night" in _texts(mem.recall(bob, "bins"))
    # only the owner, in private, manages spaces
    with pytest.raises(AccessDenied):
        mem.create_space(alice, "mine", members=[ALICE])
    with pytest.raises(AccessDenied):
        mem.add_member(Context.guild(OWNER, "g1"), "home", CAROL)
    # deleting a space erases it; one made again under the name starts empty
    report = mem.delete_space(owner, "home")
    assert report["keys_destroyed"] == 1
    with pytest.raises(NotFound):
        mem.get(owner, wifi.id)
    mem.create_space(owner, "home", members=[ALICE, BOB])
    assert _texts(mem.recall(bob, "bins")) == set()


def test_forgetting_a_member_takes_them_out_of_every_space(mem: Memory) -> None:
    owner = Context.dm(OWNER)
    mem.create_space(owner, "home", members=[ALICE, BOB])
    kept = mem.remember(Context.dm(ALICE), "The spare key is with the neighbour", "shared:home")
    mem.forget_subject(owner, ALICE)
    assert mem.list_spaces(owner) == [
        {"name": "home", "namespace": "shared:home", "members": [BOB]}
    ]
    fact = mem.get(Context.dm(BOB), kept.id)  # the household keeps it, without her name
    assert fact.author is None
