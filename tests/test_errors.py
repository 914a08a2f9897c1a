"""Bad input gets a ConfidanteError subclass with a stable code; nothing stored is harmed."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

from confidante import (
    AccessDenied,
    ConfidanteError,
    Context,
    EmptyText,
    InvalidActor,
    InvalidContext,
    InvalidInput,
    Memory,
    NotFound,
)
from surfaces_helpers import live_server

from conftest import ALICE, OWNER


@pytest.mark.parametrize(
    "actor", ["", "1234", "discord:", ":1234", "discord 1234", "Discord:12 34", None, 42, "a:b c"]
)
def test_bad_actor(actor: object) -> None:
    with pytest.raises(InvalidActor) as e:
        Context.dm(actor)  # type: ignore[arg-type]
    assert e.value.code == "invalid_actor"
    assert isinstance(e.value, ConfidanteError) and not isinstance(e.value, ValueError)


def test_error_does_not_echo_the_actor() -> None:
    with pytest.raises(InvalidActor) as e:
        Context.dm("not an actor sk-secret-value")
    assert "sk-secret-value" not in str(e.value) and "sk-secret-value" not in repr(e.value)


def test_bad_context_parts() -> None:
    with pytest.raises(InvalidContext):
        Context.guild(ALICE, "")
    with pytest.raises(InvalidContext):
        Context.guild(ALICE, "g 1")
    with pytest.raises(InvalidContext):
        Context.background("")
    with pytest.raises(InvalidContext):
        Context("moon_base", ALICE)  # type: ignore[arg-type]
    with pytest.raises(InvalidActor):
        Context.guild(ALICE, "g1", participants=["bogus"])
    with pytest.raises(InvalidContext):  # a Telegram actor cannot speak in a Discord guild
        Context.guild("telegram:5", "discord:g1")
    assert Context.guild(ALICE, "discord:g1").community == "discord:g1"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\n\t", "\u200b", "\u200b\u200c\u2060\ufeff", " \u3164 \u2800", "\x01\u200e"],
)
def test_empty_text(mem: Memory, text: str) -> None:
    with pytest.raises(EmptyText) as e:
        mem.remember(Context.dm(ALICE), text)
    assert e.value.code == "empty_text"
    assert mem.store.count_facts() == 0


@pytest.mark.parametrize("text", [None, 12, b"bytes", ["a"]])
def test_non_string_text(mem: Memory, text: object) -> None:
    with pytest.raises(InvalidInput):
        mem.remember(Context.dm(ALICE), text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"confidence": 2.0},
        {"confidence": "high"},
        {"kind": ""},
        {"kind": "\x00"},
        {"kind": "fact\x00"},
        {"kind": "\u200b"},
        {"source_skill": "skill\u202e"},
        {"ttl": timedelta(seconds=-1)},
        {"ttl": 5},
        {"ttl": timedelta(days=10**8)},  # past the year 9999: refused, not an OverflowError
        {"ttl": timedelta(days=36_526)},  # over a hundred years
        {"source_skill": 7},
    ],
)
def test_bad_metadata(mem: Memory, kwargs: dict) -> None:
    with pytest.raises(InvalidInput):
        mem.remember(Context.dm(ALICE), "fine text", **kwargs)


@pytest.mark.parametrize("k", [0, -1, 1001, "3", 2.5, True])
def test_bad_k(mem: Memory, k: object) -> None:
    with pytest.raises(InvalidInput):
        mem.recall(Context.dm(ALICE), "x", k=k)  # type: ignore[arg-type]


def test_context_must_be_a_context(mem: Memory) -> None:
    with pytest.raises(InvalidContext):
        mem.recall({"actor": OWNER, "surface": "dm"}, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidContext):
        mem.remember(None, "x")  # type: ignore[arg-type]


def test_bad_widening_names(mem: Memory) -> None:
    with pytest.raises(InvalidActor):
        mem.recall(Context.dm(OWNER), "x", subjects=["not-an-actor"])


def test_failed_write_leaves_store_intact(mem: Memory) -> None:
    kept = mem.remember(Context.dm(ALICE), "kept fact")
    with pytest.raises(EmptyText):
        mem.remember_many(Context.dm(ALICE), ["good one", ""])
    with pytest.raises(AccessDenied):
        mem.remember(Context.dm(ALICE), "x", "owner")
    assert mem.store.count_facts() == 1
    assert mem.get(Context.dm(ALICE), kept.id).text == "kept fact"


def test_dates_outside_history_are_refused_and_nothing_is_stored(mem: Memory) -> None:
    owner = Context.local(OWNER)
    year_one = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))  # no UTC time exists
    for when in (year_one, datetime(1969, 12, 31, 23, 59, tzinfo=UTC)):
        with pytest.raises(InvalidInput):
            mem.remember_many(Context.dm(ALICE), ["I like tea"], created_at=when, authority=owner)
    assert mem.store.count_facts() == 0 and mem.store.count_archive() == 0
    fact = mem.remember_many(
        Context.dm(ALICE),
        ["I like tea"],
        created_at=datetime(1970, 1, 1, tzinfo=UTC),
        authority=owner,
        ttl=timedelta(days=36_525),
    )[0]
    assert fact.expires_at == datetime(2070, 1, 1, tzinfo=UTC)


def test_a_stored_time_out_of_range_never_breaks_reading(tmp_path: Path, key: bytes) -> None:
    """A row an earlier version let in with a time no datetime holds (year 1 at +05:00 is
    year 0 in UTC): the partition stays readable, by list, recall, get and the API."""
    db = tmp_path / "m.db"
    with Memory.open(db, owner_ids=[OWNER], master_key=key) as mem:
        odd = mem.remember(Context.dm(ALICE), "I like green tea")
        mem.remember(Context.dm(ALICE), "I keep bees")
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE memory_facts SET created_at = ?, updated_at = ? WHERE id = ?",
            (-62135614800000, -62135614800000, odd.id),
        )
    con.close()
    with Memory.open(db, owner_ids=[OWNER], master_key=key) as mem:
        alice = Context.dm(ALICE)
        assert {f.text for f in mem.list(alice)} == {"I like green tea", "I keep bees"}
        assert [h.fact.text for h in mem.recall(alice, "green tea")][:1] == ["I like green tea"]
        assert mem.get(alice, odd.id).created_at == datetime.min.replace(tzinfo=UTC)
        with live_server(mem) as server:
            r = httpx.post(
                f"{server.url}/v1/memories/list",
                json={"context": {"surface": "dm", "actor": ALICE}},
                headers={"Authorization": f"Bearer {server.token('t')}"},
            )
            assert r.status_code == 200 and len(r.json()["facts"]) == 2


def test_codes_are_stable() -> None:
    assert NotFound("x").code == "not_found"
    assert AccessDenied("not_author").code == "not_author"
    assert AccessDenied("not_author").message
