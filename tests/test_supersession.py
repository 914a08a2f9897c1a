"""Newest truth first: update pairs (moved city, new job, changed preference, renamed pet)
in several languages are linked, recalled newest first and marked; facts that can both be
true are never linked; and a fact a reader may not see never marks, hides or reorders one
they can (links are computed per reader, over what they see)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from confidante import Context, Memory
from confidante.recall.supersession import claim

from conftest import ALICE, BOB, OWNER, Clock

# (old, new, query): the new fact changes what the old one said.
UPDATES = [
    ("I live in Paris", "I moved to Berlin last month", "where do I live?"),
    ("I work as a nurse at the hospital", "I now work as a data analyst", "where do I work?"),
    ("My favourite colour is green", "My favourite colour is now blue", "favourite colour"),
    ("My dog is called Biscuit", "We renamed the dog Pepper", "what is my dog called?"),
    ("我住在上海", "我上个月搬到了北京", "我住在哪里？"),
    ("我在银行工作", "我现在在一家面包店工作", "我在哪里工作？"),
    ("我最喜欢的颜色是绿色", "我最喜欢的颜色是蓝色", "我最喜欢什么颜色？"),
    ("我家的狗叫饼干", "我们给它改名叫胡椒了", "我的狗叫什么名字？"),
    ("Ich wohne in Hamburg", "Ich bin nach München gezogen", "Wo wohne ich?"),
    ("J'habite à Lyon", "J'ai déménagé à Paris", "Où est-ce que j'habite ?"),
    ("Mi perro se llama Toby", "Mi perro se llama ahora Max", "¿Cómo se llama mi perro?"),
    # natural phrasings: a new job, a flat in a city, a rename "to", a liking that stopped
    ("I work at a bakery", "I started a new job at the city library", "where do I work?"),
    ("I work at Google", "I quit my job at Google", "do I work at Google?"),
    ("I live in Leeds", "We moved to a new flat in York", "where do I live?"),
    ("Our dog is called Rex", "We renamed the dog to Pepper", "what is the dog called?"),
    ("I love coffee", "I don't like coffee anymore, tea now", "do I like coffee?"),
    ("我喜欢喝咖啡", "我不喝咖啡了，现在喝茶", "我喜欢咖啡吗？"),
    ("Ich mag Kaffee", "Ich trinke keinen Kaffee mehr", "Mag ich Kaffee?"),
    ("J'aime le café", "Je n'aime plus le café", "Est-ce que j'aime le café ?"),
    ("Me gusta el café", "Ya no me gusta el café", "¿Me gusta el café?"),
]

# Pairs that can both be true: never linked.
BOTH_TRUE = [
    ("I like tea", "I like hiking"),
    ("I had lunch with Anna", "I had lunch with Tom"),
    ("My dog is called Rex", "My cat is called Tom"),
    ("My sister lives in Rome", "I live in Milan"),
    ("I live in Paris", "I live in Paris, near the river"),  # the same value again
    ("我喜欢喝茶", "我喜欢爬山"),
    ("I love coffee", "I love tea"),  # two likings, both true
    ("I love coffee", "I love coffee with oat milk"),
    ("I don't drink coffee at night", "I love coffee"),  # a habit, not a liking that stopped
    ("My cousin keeps telling me to move to Berlin", "I live in Lyon"),
]


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2024, 3, 1, 9, tzinfo=UTC))


@pytest.fixture
def cmem(backend: str, key: bytes, clock: Clock) -> Iterator[Memory]:
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock)
    yield m
    m.close()


@pytest.mark.parametrize(("old", "new", "query"), UPDATES)
def test_an_update_is_recalled_first_and_marks_the_old_fact(
    cmem: Memory, clock: Clock, old: str, new: str, query: str
) -> None:
    ctx = Context.dm(ALICE)
    a = cmem.remember(ctx, old).id
    cmem.remember(ctx, "the weather was grey all week")
    clock.advance(days=10)
    b = cmem.remember(ctx, new).id
    hits = cmem.recall(ctx, query)
    ids = [h.fact.id for h in hits]
    assert b in ids and ids.index(b) < ids.index(a) if a in ids else b in ids
    by_id = {h.fact.id: h for h in hits}
    assert by_id[b].superseded_by is None
    if a in by_id:
        assert by_id[a].superseded_by == b
    # the prompt states only what is current, unless history is asked for
    prompt = cmem.prompt_context(ctx, query)
    assert new in prompt and old not in prompt
    if a in by_id:  # recalled: history shows it, marked as earlier
        assert f"- {old} (earlier; since changed)" in cmem.prompt_context(ctx, query, history=True)


def test_the_old_fact_alone_still_brings_the_new_one(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    a = cmem.remember(ctx, "I live in Paris").id
    clock.advance(days=10)
    b = cmem.remember(ctx, "I moved to Berlin").id
    # "live" matches only the old fact by its words; the answer is the new one
    hits = cmem.recall(ctx, "do I still live in Paris?")
    assert [h.fact.id for h in hits[:2]] == [b, a] and hits[1].superseded_by == b


@pytest.mark.parametrize(("first", "second"), BOTH_TRUE)
def test_facts_that_can_both_be_true_are_never_linked(
    cmem: Memory, clock: Clock, first: str, second: str
) -> None:
    ctx = Context.dm(ALICE)
    cmem.remember(ctx, first)
    clock.advance(days=10)
    cmem.remember(ctx, second)
    assert all(h.superseded_by is None for h in cmem.recall(ctx, f"{first} {second}"))
    assert all(h.superseded_by is None for h in cmem.recall(ctx, ""))


def test_other_authors_and_speakers_never_supersede(cmem: Memory, clock: Clock) -> None:
    # The owner's note about Alice sits in Alice's silo but is the owner's claim, not hers.
    cmem.remember(Context.dm(ALICE), "I live in Paris")
    clock.advance(days=1)
    cmem.remember(Context.dm(OWNER), "I live in Rome", namespace=f"user:{ALICE}")
    assert all(
        h.superseded_by is None for h in cmem.recall(Context.dm(OWNER), "live", subjects=[ALICE])
    )
    # Transcript lines: each speaker holds their own claims.
    assert claim("Caroline: I moved to Boston") != claim("Melanie: I moved to Boston")
    assert claim("Caroline: I live in Ohio").holder == "caroline"


def test_a_fact_the_reader_cannot_see_never_marks_one_they_can(cmem: Memory, clock: Clock) -> None:
    # Alice says where she lives in server g1 (kept in her silo, visible in g1), then tells
    # the agent in her DM that she moved (visible to her and the owner only).
    in_guild = Context.guild(ALICE, "g1", channel="c", participants=[BOB])
    old = cmem.remember(in_guild, "I live in Paris", namespace="me").id
    clock.advance(days=10)
    new = cmem.remember(Context.dm(ALICE), "I moved to Berlin").id
    # Alice, in her DM, sees both: the old one is marked, the new one first.
    hits = cmem.recall(Context.dm(ALICE), "where do I live?")
    assert [h.fact.id for h in hits][:2] == [new, old] and hits[1].superseded_by == new
    # Bob, in g1, sees only the old one: unmarked, and nothing of the DM leaks into it.
    bob = Context.guild(BOB, "g1", channel="c", participants=[ALICE])
    seen = cmem.recall(bob, "where does Alice live? live")
    assert [(h.fact.id, h.superseded_by) for h in seen] == [(old, None)]
    assert "Berlin" not in cmem.prompt_context(bob, "where does Alice live? live")
    assert "Paris" in cmem.prompt_context(bob, "where does Alice live? live")


def test_an_expired_update_marks_nothing(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    old = cmem.remember(ctx, "I live in Paris").id
    clock.advance(days=1)
    cmem.remember(ctx, "I moved to Berlin", ttl=timedelta(days=2))
    clock.advance(days=5)  # the move has expired: as if never said
    hits = cmem.recall(ctx, "where do I live?")
    assert [(h.fact.id, h.superseded_by) for h in hits] == [(old, None)]


def test_a_past_statement_never_replaces_the_present_one(cmem: Memory, clock: Clock) -> None:
    """ "I used to live in Paris", said after "I moved to Berlin", is history: the present
    statement stays current whatever their order."""
    ctx = Context.dm(ALICE)
    now = cmem.remember(ctx, "I moved to Berlin").id
    clock.advance(days=10)
    before = cmem.remember(ctx, "I used to live in Paris").id
    hits = cmem.recall(ctx, "where do I live?")
    assert [(h.fact.id, h.superseded_by) for h in hits[:2]] == [(now, None), (before, now)]
    assert claim("My dog was called Rex").past and not claim("My dog is called Rex").past
