"""A line of a conversation is read with the line before it (keyword ranking only), and that
context never crosses what the reader may see."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from confidante import Context, Memory
from confidante.config import Settings

from conftest import ALICE, OWNER, Clock

QUESTION = "how was the camping trip with the kids?"
REPLY = "we roasted marshmallows and told stories"
OTHER = "I roasted coffee beans and told stories"
QUERY = "what did they roast on the camping trip? stories"


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2024, 3, 1, 12, tzinfo=UTC))


@pytest.fixture
def cmem(backend: str, key: bytes, clock: Clock) -> Iterator[Memory]:
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock, settings=Settings())
    yield m
    m.close()


def bm25_of(mem: Memory, ctx: Context, query: str, fact_id: str) -> float:
    for h in mem.recall(ctx, query, k=50):
        if h.fact.id == fact_id:
            return h.scores["bm25"]
    return 0.0


def test_a_reply_is_found_by_the_question_before_it(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    _, reply = cmem.remember_many(ctx, [QUESTION, REPLY])
    clock.now += timedelta(days=3)  # a different conversation
    other = cmem.remember(ctx, OTHER)
    # Both match "roast" and "stories" alike; only the reply answers a camping question.
    assert bm25_of(cmem, ctx, QUERY, reply.id) > bm25_of(cmem, ctx, QUERY, other.id)
    assert cmem.recall(ctx, QUERY)[0].fact.id in {reply.id, cmem.list(ctx)[-1].id}


def test_lines_stay_in_order_and_gaps_break_the_conversation(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    texts = [f"line number {i} about gardening" for i in range(40)]
    facts = cmem.remember_many(ctx, texts)
    assert [f.text for f in sorted(cmem.list(ctx), key=lambda f: f.id)] == texts
    assert [f.id for f in facts] == sorted(f.id for f in facts)
    # Written an hour later: not the same conversation, so no context from the question.
    # The same sentence said again refreshes the fact it repeats, so each pair is worded apart
    # by a word the query does not hold (same length, same keywords).
    clock.now += timedelta(hours=1)
    cmem.remember(ctx, QUESTION)
    clock.now += timedelta(hours=1)
    late = cmem.remember(ctx, REPLY + " there")
    clock.now += timedelta(minutes=5)
    cmem.remember(ctx, QUESTION.replace("kids", "children"))
    clock.now += timedelta(minutes=5)
    soon = cmem.remember(ctx, REPLY + " here")
    assert soon.id != late.id
    assert bm25_of(cmem, ctx, QUERY, soon.id) > bm25_of(cmem, ctx, QUERY, late.id)


def test_context_never_makes_a_hit(cmem: Memory) -> None:
    ctx = Context.dm(ALICE)
    _, reply = cmem.remember_many(ctx, [QUESTION, REPLY])
    # The reply shares no keyword with "camping trip kids": context alone must not score it.
    assert bm25_of(cmem, ctx, "camping trip kids", reply.id) == 0.0


def test_an_expired_line_lends_no_context(cmem: Memory, clock: Clock) -> None:
    """Two users say the same reply; for one it answered the camping question, which then
    expires. Once it has, both replies must score exactly alike."""
    first = {}
    for user, before in (("discord:601", QUESTION), ("discord:602", "unrelated words here")):
        ctx = Context.dm(user)
        cmem.remember(ctx, before, ttl=timedelta(minutes=2))
        clock.now += timedelta(seconds=30)
        reply = cmem.remember(ctx, REPLY)
        first[user] = (reply.id, bm25_of(cmem, ctx, QUERY, reply.id))
        clock.now += timedelta(seconds=30)
    assert first["discord:601"][1] > first["discord:602"][1]  # context while it lives
    clock.now += timedelta(minutes=5)
    for user in first:  # the question's words stay in use elsewhere, another day
        cmem.remember(Context.dm(user), "packing list for the camping trip")
    after = {u: bm25_of(cmem, Context.dm(u), QUERY, rid) for u, (rid, _) in first.items()}
    assert after["discord:601"] == after["discord:602"] > 0.0


def test_context_never_crosses_origins(cmem: Memory, clock: Clock) -> None:
    """The owner's private note about a user sits in that user's partition, written between
    the user's question and reply; the user's reply must still be read with the question,
    exactly as for a user the owner wrote nothing about."""
    scores = []
    for user, note in (("discord:501", False), ("discord:502", True)):
        cmem.remember(Context.dm(user), QUESTION)
        clock.now += timedelta(seconds=20)
        if note:
            cmem.remember(
                Context.dm(OWNER), "surprise party, roast dinner", namespace=f"user:{user}"
            )
            clock.now += timedelta(seconds=20)
        line = cmem.remember(Context.dm(user), REPLY)
        clock.now += timedelta(seconds=20)
        cmem.remember(Context.dm(user), "the kids told stories at school")
        scores.append(bm25_of(cmem, Context.dm(user), QUERY, line.id))
        clock.now += timedelta(days=1)
    assert scores[0] == scores[1] > 0.0


def test_an_expired_line_between_is_as_if_it_never_was(cmem: Memory, clock: Clock) -> None:
    """Question, a short-lived aside, reply: once the aside expires, the reply is read with
    the question again, exactly as if the aside had never been said."""
    scores = {}
    for user, aside in (("discord:801", True), ("discord:802", False)):
        ctx = Context.dm(user)
        cmem.remember(ctx, QUESTION)
        clock.now += timedelta(seconds=20)
        if aside:
            cmem.remember(ctx, "brb", ttl=timedelta(minutes=1))
        clock.now += timedelta(seconds=20)
        reply = cmem.remember(ctx, REPLY)
        scores[user] = reply.id
        clock.now += timedelta(days=1)
    after = {u: bm25_of(cmem, Context.dm(u), QUERY, rid) for u, rid in scores.items()}
    assert after["discord:801"] == after["discord:802"] > 0.0


def test_a_forgotten_line_lends_no_context(cmem: Memory, clock: Clock) -> None:
    scores = {}
    for user, asked in (("discord:701", True), ("discord:702", False)):
        ctx = Context.dm(user)
        question = cmem.remember(ctx, QUESTION if asked else "unrelated words here")
        clock.now += timedelta(seconds=30)
        reply = cmem.remember(ctx, REPLY)
        clock.now += timedelta(seconds=30)
        cmem.forget(ctx, question.id)
        cmem.remember(ctx, "packing list for the camping trip")
        scores[user] = bm25_of(cmem, ctx, QUERY, reply.id)
        clock.now += timedelta(days=1)
    assert scores["discord:701"] == scores["discord:702"] > 0.0


PAINTING = [
    "Did you finish the painting for your sister?",
    "Yes, a sunrise over the lake, she loved it.",
]
WALK = "We walked around the lake at sunrise."
PAINTING_QUERY = "which painting shows a lake at sunrise?"


def test_a_line_whose_neighbour_is_relevant_ranks_higher(cmem: Memory, clock: Clock) -> None:
    """Both lines say "lake" and "sunrise"; the one whose question asked about a painting is
    the answer (the fused score of the better neighbouring line counts 0.3)."""
    ctx = Context.dm(ALICE)
    _, answer = cmem.remember_many(ctx, PAINTING)
    clock.now += timedelta(days=3)
    walk = cmem.remember(ctx, WALK)
    hits = {h.fact.id: h.score for h in cmem.recall(ctx, PAINTING_QUERY)}
    assert max(hits, key=hits.__getitem__) == answer.id
    cmem.pipeline.neighbour_weight = 0.0
    cmem.pipeline.session_weight = 0.0  # the conversation's own support, read apart
    alone = {h.fact.id: h.score for h in cmem.recall(ctx, PAINTING_QUERY)}
    # the question's lift is what puts the answer ahead (by meaning alone it is close)
    assert hits[answer.id] - hits[walk.id] > alone[answer.id] - alone[walk.id] + 0.02


def test_a_neighbour_that_expired_lends_nothing(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    cmem.remember(ctx, PAINTING[0], ttl=timedelta(hours=1))
    answer = cmem.remember(ctx, PAINTING[1])
    clock.now += timedelta(days=3)
    walk = cmem.remember(ctx, WALK)
    hits = cmem.recall(ctx, PAINTING_QUERY)
    assert [h.fact.id for h in hits[:2]] == [walk.id, answer.id]
