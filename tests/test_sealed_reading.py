"""A fact's reading (its keyword terms, speaker, question share and newest-truth claim) is
made once, when it is sealed, and kept in its ciphertext (`recall.reading`): loading a
partition reads it back instead of reading every text again. The index it builds must be
the one its texts build, rows sealed before (without a reading, or with another version's)
must read as they always did, and a rewritten text must never keep its old reading."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from confidante import Context, Memory
from confidante.recall import analysis, reading
from confidante.recall.index import PartitionIndex

ALICE = Context.dm("discord:42")
LINES = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: That's great! What did you paint last week?",
    "I live in Paris",
    "I moved to Berlin last month",
    "我上个月搬到了柏林",
    "Ich habe einen Hund adoptiert, er heißt Toby.",
    "Caroline: Thanks, Melanie! I'm going to a pride parade this summer.",
    "We adopted a beagle puppy from the shelter. Do you like dogs?",
]


def _index(m: Memory) -> PartitionIndex:
    m.recall(ALICE, "warm")
    (index,) = list(m.cache.indexes())
    return index


def _same_index(a: PartitionIndex, b: PartitionIndex) -> None:
    assert [f.fact.id for f in a.facts] == [f.fact.id for f in b.facts]
    assert np.array_equal(a.lengths, b.lengths) and np.array_equal(a.asks, b.asks)
    assert a.postings.keys() == b.postings.keys()
    for t, (rows, tf) in a.postings.items():
        assert np.array_equal(rows, b.postings[t][0]) and np.array_equal(tf, b.postings[t][1])
    assert a.spoken_by.keys() == b.spoken_by.keys()
    for t, rows in a.spoken_by.items():
        assert np.array_equal(np.sort(rows), np.sort(b.spoken_by[t]))
    assert a._read_claims() == b._read_claims()


def test_every_sealed_fact_carries_its_reading(tmp_path: Path, key: bytes) -> None:
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        one = m.remember(ALICE, LINES[0])
        many = m.remember_many(ALICE, LINES[1:])
        for f in [one, *many]:
            row = m.store.get_fact(f.id)
            assert row is not None
            opened = m.open_row(row)
            assert opened is not None and opened.reading is not None
            assert opened.reading["v"] == reading.VERSION
            r = reading.sealed_reading(opened.reading)
            assert r == reading.read(f.text)  # the same reading its text gives
        moved = reading.sealed_reading(m.open_row(m.store.get_fact(many[2].id)).reading)  # type: ignore[arg-type, union-attr]
        assert moved is not None and moved.claim is not None  # "I moved to Berlin"


def test_the_index_from_readings_is_the_index_from_texts(tmp_path: Path, key: bytes) -> None:
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        m.remember_many(ALICE, LINES)
        m.remember(ALICE, "Caroline: I used to live in Paris, now Berlin.")
        index = _index(m)
        from_texts = PartitionIndex(index.ref, index.version, index.facts, index.key_id)
        _same_index(index, from_texts)
        hits = m.recall(ALICE, "where does Caroline live?")
        assert hits


def test_rows_sealed_without_a_reading_read_as_before(tmp_path: Path, key: bytes) -> None:
    """A row sealed before readings were kept (or by another version of the analysis) is
    read from its text; the index is the same either way."""
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        facts = m.remember_many(ALICE, LINES)
        expected = [h.fact.id for h in m.recall(ALICE, "what did Melanie paint?", k=5)]
        with_readings = _index(m)
        rows = [m.store.get_fact(f.id) for f in facts[:4]]
        old = []
        for row in rows:
            assert row is not None
            opened = m.open_row(row)
            assert opened is not None
            old.append((row, replace(opened, reading=None)))
        # sealed as before: records reads every text it seals, so seal with no reader
        from confidante.vault import records

        saved = list(records._reader)
        try:
            records._reader[:] = [lambda text: {"v": 99, "w": {"nothing": 1}}]
            m.write_sealed(old[2:])  # another version's readings: ignored
            records._reader[:] = []
            m.write_sealed(old[:2])  # no reading at all
        finally:
            records._reader[:] = saved
        for row, _ in old[:2]:
            opened = m.open_row(m.store.get_fact(row.id))  # type: ignore[arg-type]
            assert opened is not None and opened.reading is None
        m.invalidate()
        _same_index(_index(m), with_readings)
        assert [h.fact.id for h in m.recall(ALICE, "what did Melanie paint?", k=5)] == expected


def test_a_rewritten_fact_gets_the_new_texts_reading(tmp_path: Path, key: bytes) -> None:
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        f = m.remember(ALICE, "My favourite colour is green")
        m.update(ALICE, f.id, "My favourite season is autumn")
        opened = m.open_row(m.store.get_fact(f.id))  # type: ignore[arg-type]
        assert opened is not None
        r = reading.sealed_reading(opened.reading)
        assert r == reading.read("My favourite season is autumn")
        m.invalidate()
        assert m.recall(ALICE, "autumn") and not [
            h for h in m.recall(ALICE, "green colour") if "green" in h.fact.text
        ]


def test_catching_up_reads_the_new_rows_readings(tmp_path: Path, key: bytes) -> None:
    """A cached index extended with rows written since (`PartitionIndex.extended`) is the
    index a full load builds."""
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        m.remember_many(ALICE, LINES[:4])
        before = _index(m)
        for line in LINES[4:]:
            m.remember(ALICE, line)
        grown = _index(m)
        assert grown is not before and grown.previous is None
        m.invalidate()
        _same_index(grown, _index(m))


def test_sealing_leaves_no_word_in_the_stem_memo(tmp_path: Path, key: bytes) -> None:
    """The stem memo holds words of decrypted text and is emptied when a partition leaves
    the cache; a text read to be sealed is stemmed without it."""
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        m.invalidate()  # empties the memo
        before = analysis.stem.cache_info().currsize
        m.remember_many(ALICE, ["Zebrafishes swimming elegantly", "Quokkas photographed"])
        assert analysis.stem.cache_info().currsize == before


@pytest.mark.parametrize("text", ["", "   ", "🙂🙂", "?", "Caroline: ?"])
def test_odd_texts_read_and_round_trip(text: str) -> None:
    sealed = reading.read_text(text)
    assert reading.sealed_reading(sealed) == reading.read(text)
