"""The ranking pipeline: keyword and meaning fused, relevance floors, and isolation with the
semantic ranker on (a foreign silo's best match is never returned)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest

from confidante import Context, Memory
from confidante.recall.analysis import asking
from confidante.recall.index import stem, tokenize

from conftest import ALICE, BOB, OWNER, Clock


def test_stem_and_tokenize() -> None:
    # inflections meet at one stem; unrelated words do not
    assert stem("parties") == stem("party") and stem("painted") == stem("painting")
    assert stem("volunteering") == stem("volunteers") == stem("volunteer")
    assert stem("boxes") == "box" and stem("notes") == "note" and stem("glass") == "glass"
    assert stem("news") != stem("new")
    assert tokenize("The parties were painted!") == [stem("party"), stem("paint")]


def test_keyword_recall_across_inflections(mem: Memory) -> None:
    f = mem.remember(Context.dm(ALICE), "I started volunteering at the animal shelter")
    mem.remember(Context.dm(ALICE), "the weather was grey")
    hits = mem.recall(Context.dm(ALICE), "where does she volunteer?")
    assert hits and hits[0].fact.id == f.id and hits[0].scores["bm25"] > 0


def test_semantic_finds_meaning_without_shared_words(mem: Memory) -> None:
    f = mem.remember(Context.dm(ALICE), "I adore my golden retriever puppy")
    mem.remember(Context.dm(ALICE), "the stock market fell today")
    hits = mem.recall(Context.dm(ALICE), "what pet does she have?")
    assert hits and hits[0].fact.id == f.id
    assert hits[0].scores["bm25"] == 0.0 and hits[0].scores["semantic"] > 0.3


def test_nothing_relevant_returns_nothing(mem: Memory) -> None:
    mem.remember(Context.dm(ALICE), "Alice is allergic to peanuts")
    assert mem.recall(Context.dm(ALICE), "dentist appointment on Thursday") == []


def test_min_score(mem: Memory) -> None:
    mem.remember(Context.dm(ALICE), "I play the cello every evening")
    assert mem.recall(Context.dm(ALICE), "cello", min_score=0.5)
    assert mem.recall(Context.dm(ALICE), "cello", min_score=1.5) == []


def test_isolation_holds_with_the_semantic_ranker(mem: Memory) -> None:
    """Bob's silo holds the best match for the query; Alice must not get it, not even as
    a weak semantic neighbour, and owner memory stays owner-only."""
    best = mem.remember(Context.dm(BOB), "Bob's golden retriever puppy is called Biscuit")
    owner = mem.remember(Context.dm(OWNER), "my golden retriever puppy Biscuit is sick", "owner")
    mine = mem.remember(Context.dm(ALICE), "I have a cat named Miso")
    for ctx in (Context.dm(ALICE), Context.guild(ALICE, "g1", participants=[BOB])):
        ids = {h.fact.id for h in mem.recall(ctx, "golden retriever puppy called Biscuit", k=50)}
        assert best.id not in ids and owner.id not in ids
    assert mine.id in {h.fact.id for h in mem.recall(Context.dm(ALICE), "pet cat", k=50)}
    assert best.id in {h.fact.id for h in mem.recall(Context.dm(BOB), "puppy Biscuit")}


def test_vectors_are_never_plaintext_on_disk(db_path, key) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        f = m.remember(Context.dm(ALICE), "a sentence to embed")
        emb = m.pipeline.rankers[1].embed_documents([f.text])[0]
    blob = b"".join(p.read_bytes() for p in db_path.parent.iterdir() if p.is_file())
    for dtype in (np.float16, np.float32):
        assert emb.astype(dtype).tobytes()[:16] not in blob
    assert emb.astype(np.float16).tobytes().hex()[:32].encode() not in blob


TRANSCRIPT = [
    "Melanie: The kids and I made clay bowls.",
    "Caroline: Melanie, your kids must love making things with you!",
    "Caroline: I started learning the piano last month.",
]


def test_a_speaker_the_query_names_is_read_first(mem: Memory) -> None:
    """Transcript lines ("Name: text"): a question naming a speaker prefers what that speaker
    said over lines that only address them."""
    ctx = Context.dm(ALICE)
    own, addressed, _ = mem.remember_many(ctx, TRANSCRIPT)
    hits = mem.recall(ctx, "What did Melanie and the kids make?")
    assert [h.fact.id for h in hits[:2]] == [own.id, addressed.id]
    lead = hits[0].score - hits[1].score
    mem.pipeline.speaker_weight = 0.0  # the same words, read without the speaker
    scores = {h.fact.id: h.score for h in mem.recall(ctx, "What did Melanie and the kids make?")}
    assert lead > scores[own.id] - scores[addressed.id] + 0.02  # the speaker's share of it


def test_a_named_speaker_only_reorders_what_matches(mem: Memory) -> None:
    ctx = Context.dm(ALICE)
    mem.remember_many(ctx, TRANSCRIPT)
    mem.remember(Context.dm(BOB), "Melanie: I made clay bowls with my kids.")  # Bob's silo
    assert mem.recall(ctx, "stock market") == []  # naming nobody, matching nothing
    hits = mem.recall(ctx, "what did Melanie make?", k=10)
    assert hits and {h.fact.text for h in hits} <= set(TRANSCRIPT)  # never Bob's line


def test_asking_is_the_share_of_a_text_that_is_a_question() -> None:
    assert asking("What did you paint?") == 1.0 and asking("你去哪儿了？") == 1.0
    assert asking("I painted a lake.") == 0.0 and asking("no marks at all") == 0.0
    assert 0.3 < asking("I painted a lake. Do you paint?") < 0.6


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2024, 5, 1, 10, tzinfo=UTC))


@pytest.fixture
def cmem(backend: str, key: bytes, clock: Clock) -> Iterator[Memory]:
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock)
    yield m
    m.close()


def test_an_answer_outranks_the_question_that_shares_the_query_words(cmem: Memory) -> None:
    ctx = Context.dm(ALICE)
    question, answer = cmem.remember_many(
        ctx, ["Caroline: What did you paint last week, Melanie?", "Melanie: I painted a lake."]
    )
    query = "What did Melanie paint last week?"
    assert [h.fact.id for h in cmem.recall(ctx, query)] == [answer.id, question.id]
    cmem.pipeline.question_penalty = 0.0  # the question matches more of the query's words
    assert [h.fact.id for h in cmem.recall(ctx, query)] == [question.id, answer.id]


def test_a_conversation_that_keeps_to_the_topic_is_read_first(cmem: Memory, clock: Clock) -> None:
    """A passing mention ("Climbing, maybe.") among unrelated lines matches as well as the
    lines of a conversation about climbing; the conversation's lines come first."""
    ctx = Context.dm(ALICE)
    passing = cmem.remember_many(
        ctx,
        [
            "Sam: The tax forms are due on Friday.",
            "Sam: Climbing, maybe.",
            "Sam: The printer is broken again.",
        ],
    )[1]
    clock.advance(days=1)  # another conversation
    topical = cmem.remember_many(
        ctx,
        [
            "Sam: My sister got a new job.",
            "Sam: I signed up for a climbing course.",
            "Sam: I bought climbing shoes and a chalk bag.",
        ],
    )[1:]

    def lead() -> float:  # how far the best topical line is ahead of the passing mention
        scores = {h.fact.id: h.score for h in cmem.recall(ctx, "Sam climbing")}
        return max(scores[f.id] for f in topical) - scores[passing.id]

    order = [h.fact.id for h in cmem.recall(ctx, "Sam climbing")]
    assert order.index(passing.id) > max(order.index(f.id) for f in topical)
    with_support = lead()
    cmem.pipeline.session_weight = 0.0
    assert lead() < with_support - 0.02
