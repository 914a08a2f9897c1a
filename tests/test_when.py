"""Dates named in a query (pure parsing) and how recall prefers facts remembered then."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.recall.when import windows

from conftest import ALICE, BOB, OWNER, Clock


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What did Alice say on 3 June, 2023?", [(d(2023, 6, 3), d(2023, 6, 4))]),
        ("what happened on June 3rd 2023", [(d(2023, 6, 3), d(2023, 6, 4))]),
        ("plans for 2024-02-29", [(d(2024, 2, 29), d(2024, 3, 1))]),
        ("the 1st of Jan. 2022", [(d(2022, 1, 1), d(2022, 1, 2))]),
        ("in July 2023", [(d(2023, 7, 1), d(2023, 8, 1))]),
        ("in December, 2023", [(d(2023, 12, 1), d(2024, 1, 1))]),
        ("sometime in 2022", [(d(2022, 1, 1), d(2023, 1, 1))]),
        (
            "between 2 May 2023 and August 2023",
            [(d(2023, 5, 2), d(2023, 5, 3)), (d(2023, 8, 1), d(2023, 9, 1))],
        ),
        ("on 31 June 2023", []),  # no such day: no window, no error
        ("what is her favourite colour?", []),
        ("I may 5 times", []),
        ("call 555-2023 extension", []),
        ("I paid 2000 dollars and ran 2025 meters", []),  # numbers, not years
        ("in early 2023", [(d(2023, 1, 1), d(2024, 1, 1))]),
        ("at 2023-06-03T10:00 sharp", [(d(2023, 6, 3), d(2023, 6, 4))]),
        ("on 2023/06/03", [(d(2023, 6, 3), d(2023, 6, 4))]),
        ("hiking in \u017feptember 2023", []),  # long s: re.I folds it to "s"; not a month
        ("in 20\u0662\u0663 or \u0662\u0660\u0662\u0663", []),  # Arabic-Indic digits
        ("on 29 February 2023 or 29 Feb 2024", [(d(2024, 2, 29), d(2024, 3, 1))]),
    ],
)
def test_windows(query: str, expected: list) -> None:
    assert windows(query) == expected


@pytest.fixture
def clock() -> Clock:
    return Clock(d(2023, 5, 1))


@pytest.fixture
def cmem(backend: str, key: bytes, clock: Clock) -> Iterator[Memory]:
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock, settings=Settings())
    yield m
    m.close()


def test_recall_prefers_facts_remembered_on_the_named_day(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    ids = {}
    for day in (2, 9, 16):
        clock.now = d(2023, 5, day) + timedelta(hours=15)
        ids[day] = cmem.remember(ctx, "we went hiking with the dog").id
    # Without a date, equal matches come newest first.
    assert cmem.recall(ctx, "hiking with the dog")[0].fact.id == ids[16]
    # With one, the fact remembered that day leads, and scores stay within 0..1.
    hits = cmem.recall(ctx, "what did we do on 9 May, 2023?  hiking")
    assert hits[0].fact.id == ids[9]
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert cmem.recall(ctx, "hiking in May 2023")[0].fact.id == ids[16]  # all inside: newest


def test_a_date_alone_matches_nothing_and_never_widens(cmem: Memory, clock: Clock) -> None:
    clock.now = d(2023, 5, 9)
    cmem.remember(Context.dm(ALICE), "Alice is allergic to peanuts")
    cmem.remember(Context.dm(BOB), "Bob's dentist appointment")
    assert cmem.recall(Context.dm(ALICE), "on 9 May 2023") == []
    hits = cmem.recall(Context.dm(ALICE), "dentist on 9 May 2023")
    assert all("Bob" not in h.fact.text for h in hits)


def test_dated_recall_on_a_real_file(tmp_path: Path, key: bytes, clock: Clock) -> None:
    settings = Settings(default_ttl_days=3650)  # the March fact must outlive August
    with Memory.open(
        tmp_path / "m.db", owner_ids=[OWNER], master_key=key, clock=clock, settings=settings
    ) as m:
        ctx = Context.dm(ALICE)
        clock.now = d(2023, 3, 14)
        early = m.remember(ctx, "finished the pottery class").id
        clock.now = d(2023, 8, 2)
        m.remember(ctx, "finished the pottery class")  # same words: only the date can tell
        assert m.recall(ctx, "pottery class in March 2023")[0].fact.id == early
