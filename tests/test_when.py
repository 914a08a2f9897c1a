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
        # the long s is an old "s": folded first (NFKC), so no crash and a true reading
        ("hiking in \u017feptember 2023", [(d(2023, 9, 1), d(2023, 10, 1))]),
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


def test_a_date_alone_finds_that_day_and_never_widens(cmem: Memory, clock: Clock) -> None:
    clock.now = d(2023, 5, 9)
    peanuts = cmem.remember(Context.dm(ALICE), "Alice is allergic to peanuts").id
    cmem.remember(Context.dm(BOB), "Bob's dentist appointment on 9 May 2023")
    clock.now = d(2023, 5, 20)
    cmem.remember(Context.dm(ALICE), "Alice bought a bike")
    # "what did I say on 9 May?" names nothing but the day: that day's facts, hers only
    hits = cmem.recall(Context.dm(ALICE), "on 9 May 2023")
    assert [h.fact.id for h in hits] == [peanuts]
    assert 0.0 < hits[0].score < 0.5  # a date alone is a weak reason
    hits = cmem.recall(Context.dm(ALICE), "dentist on 9 May 2023")
    assert [h.fact.id for h in hits] == [peanuts]  # Bob's matching words change nothing
    assert cmem.recall(Context.dm(ALICE), "dentist") == []


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


# Asked on Friday 15 March 2024, at noon UTC.
NOW = datetime(2024, 3, 15, 12, tzinfo=UTC)


def day(y: int, m: int, dd: int, n: int = 1) -> tuple[datetime, datetime]:
    return d(y, m, dd), d(y, m, dd) + timedelta(days=n)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Chinese: full dates, dates without a year (the latest one up to now), relative days
        ("我2023年5月6日做了什么", [day(2023, 5, 6)]),
        ("我5月6号做了什么？", [day(2023, 5, 6)]),  # May 2024 is still to come
        ("五月六号去哪儿了", [day(2023, 5, 6)]),
        ("三月二号", [day(2024, 3, 2)]),
        ("十二月二十五日", [day(2023, 12, 25)]),
        ("上周三我做了什么", [day(2024, 3, 6)]),
        ("这周一", [day(2024, 3, 11)]),
        ("周三", [day(2024, 3, 13)]),
        ("星期天", [day(2024, 3, 10)]),
        ("去年十月", [(d(2023, 10, 1), d(2023, 11, 1))]),
        ("今年三月", [(d(2024, 3, 1), d(2024, 4, 1))]),
        ("2023年5月", [(d(2023, 5, 1), d(2023, 6, 1))]),
        ("昨天吃了什么", [day(2024, 3, 14)]),
        ("前天", [day(2024, 3, 13)]),
        ("三天前", [day(2024, 3, 12)]),
        ("上个月", [(d(2024, 2, 1), d(2024, 3, 1))]),
        ("上周", [day(2024, 3, 4, 7)]),
        ("全角２０２３年５月６日", [day(2023, 5, 6)]),  # full-width digits fold
        ("一个月的计划", []),  # a month's plan, not a month
        # English without a year, and relative
        ("on 3 June", [day(2023, 6, 3)]),
        ("June 3rd", [day(2023, 6, 3)]),
        ("on May 5", [day(2023, 5, 5)]),
        ("I may 5 times", []),
        ("in June", [(d(2023, 6, 1), d(2023, 7, 1))]),
        ("what did I do yesterday?", [day(2024, 3, 14)]),
        ("last week", [day(2024, 3, 4, 7)]),
        ("last Wednesday", [day(2024, 3, 13), day(2024, 3, 6)]),  # both readings
        ("2 days ago", [day(2024, 3, 13)]),
        # German, French, Spanish
        ("am 6. Mai 2023", [day(2023, 5, 6)]),
        ("im März 2023", [(d(2023, 3, 1), d(2023, 4, 1))]),
        ("gestern", [day(2024, 3, 14)]),
        ("letzten Mittwoch", [day(2024, 3, 13), day(2024, 3, 6)]),
        ("vor drei Tagen", [day(2024, 3, 12)]),
        ("ich war hier", []),  # German "hier" is "here"
        ("le 1er mai 2023", [day(2023, 5, 1)]),
        ("en juillet 2023", [(d(2023, 7, 1), d(2023, 8, 1))]),
        ("qu'est-ce que j'ai fait hier ?", [day(2024, 3, 14)]),
        ("la semaine dernière", [day(2024, 3, 4, 7)]),
        ("6 de mayo de 2023", [day(2023, 5, 6)]),
        ("el miércoles pasado", [day(2024, 3, 13), day(2024, 3, 6)]),
        ("que s'est-il passé mardi ?", [day(2024, 3, 12)]),
        ("je nage le mardi", []),  # every Tuesday, not a day
        ("hace dos días", [day(2024, 3, 13)]),
    ],
)
def test_windows_relative_and_in_other_languages(query: str, expected: list) -> None:
    assert windows(query, NOW) == expected


def test_relative_forms_need_a_reference_time() -> None:
    assert windows("上周三", None) == [] and windows("yesterday") == []
    assert windows("2023年5月6日") == [day(2023, 5, 6)]  # a full date needs none


def test_recall_reads_a_chinese_relative_day(cmem: Memory, clock: Clock) -> None:
    ctx = Context.dm(ALICE)
    ids = {}
    for dd in (5, 6, 7, 13):  # Tue 5 .. Wed 13 March 2024
        clock.now = d(2024, 3, dd) + timedelta(hours=10)
        ids[dd] = cmem.remember(ctx, f"今天的记录 {dd}").id
    clock.now = NOW
    cmem.remember(Context.dm(BOB), "上周三鲍勃去看了牙医")  # another silo: never
    hits = cmem.recall(ctx, "上周三我做了什么？")
    assert hits[0].fact.id == ids[6]
    assert {h.fact.id for h in hits} <= set(ids.values())
