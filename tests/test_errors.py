"""Bad input gets a ConfidanteError subclass with a stable code; nothing stored is harmed."""

from __future__ import annotations

from datetime import timedelta

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


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
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
        {"ttl": timedelta(seconds=-1)},
        {"ttl": 5},
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


def test_codes_are_stable() -> None:
    assert NotFound("x").code == "not_found"
    assert AccessDenied("not_author").code == "not_author"
    assert AccessDenied("not_author").message
