"""The word-by-word token ids (`recall.embedding.pieces`) must be exactly what the shipped
tokenizers give, or stored vectors and query vectors would drift apart from the ones
measured: on every text of the shipped dev sets, in six languages, and on random text
mixing scripts, marks, controls and spaces."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from confidante.recall.embedding import multilingual, static
from confidante.recall.embedding.pieces import UnigramIds, WordPieceIds, crossing_pieces

DATA = Path(__file__).resolve().parents[1] / "benchmarks/data"


def _shipped_texts() -> list[str]:
    out: list[str] = []
    for path in sorted(DATA.glob("*/c*.json")):
        conv = json.loads(path.read_text())
        for s in conv["sessions"]:
            out += [text for t in s["turns"] for text in t.values() if isinstance(text, str)]
        out += [text for q in conv["questions"] for text in q.values() if isinstance(text, str)]
    for path in sorted(DATA.glob("*.jsonl")):
        out += [json.loads(line)["text"] for line in path.read_text().splitlines() if line]
    return out


_ALPHABET = (
    [chr(c) for c in range(0x20, 0x250)]  # ASCII, Latin-1, Latin Extended
    + [chr(c) for c in range(0x300, 0x370)]  # combining marks
    + [chr(c) for c in range(0x3040, 0x3100)]  # kana
    + [chr(c) for c in range(0x4E00, 0x4E80)]  # CJK
    + [chr(c) for c in range(0xFF00, 0xFF60)]  # full-width forms
    + list("\t\n\r\x00\x01\x0b\x0c\x7f\u200b\u200d\ufeff\u2028\x85\xa0\u3000\u2581\u2003")
    + ["\U0001f600", "[UNK]", "[PAD]", "  ", "   "]
)


def _random_texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choices(_ALPHABET, k=rnd.randint(0, 40))) for _ in range(n)]


_EDGES = ["", " ", "   ", "  a  b  ", "x" * 150, "word " * 700, "中" * 600, "a\tb\nc\rd"]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    shipped = _shipped_texts()
    assert len(shipped) > 2000  # the dev sets are there and were read
    return shipped + _random_texts(20_000, seed=5) + _EDGES


def test_wordpiece_ids_are_the_tokenizers(texts: list[str]) -> None:
    _, ids, _ = static._model()
    tokenizer = ids._tokenizer
    for text in texts:
        assert ids(text) == tokenizer.encode(text, add_special_tokens=False).ids, repr(text)
    assert len(ids("word " * 700)) == static.MAX_TOKENS


def test_unigram_ids_are_the_tokenizers(texts: list[str]) -> None:
    from tokenizers import Tokenizer

    from confidante.recall.embedding._resources import data_bytes

    _, ids = multilingual._model()
    tokenizer = Tokenizer.from_str(data_bytes("static-multilingual", "tokenizer.json").decode())
    assert crossing_pieces(tokenizer) == []  # what `vocab_checked=True` takes on trust
    tokenizer.no_padding()
    tokenizer.enable_truncation(multilingual.MAX_TOKENS)
    for text in texts:
        assert ids(text) == tokenizer.encode(text, add_special_tokens=False).ids, repr(text)
    assert len(ids("word " * 700)) == multilingual.MAX_TOKENS


def test_a_word_read_twice_gives_the_same_ids_and_texts_are_not_kept() -> None:
    _, ids, _ = static._model()
    first = ids("Caroline adopted a puppy called Biscuit on 12 May, call 555-0142")
    assert ids("Caroline adopted a puppy called Biscuit on 12 May, call 555-0142") == first
    kept = ids._words._ids
    assert "caroline" in kept  # a word is remembered...
    assert not any(any(ch.isdigit() for ch in w) for w in kept)  # ...never a number
    assert "," in kept and "biscuit" in kept
    assert all(len(w) <= 16 for w in kept)
    ids("write to caroline@example.org")
    assert not any("@" in w for w in kept)


def test_tokenizers_the_shortcut_cannot_read_are_refused() -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = [("<unk>", 0.0), ("\u2581a", -1.0), ("b\u2581c", -2.0)]
    crossing = Tokenizer(models.Unigram(vocab, unk_id=0))
    crossing.pre_tokenizer = pre_tokenizers.Metaspace()
    with pytest.raises(RuntimeError, match="word mark"):
        UnigramIds(crossing, 512)
    cased = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    cased.normalizer = normalizers.BertNormalizer(lowercase=False)
    cased.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    with pytest.raises(RuntimeError, match="BERT"):
        WordPieceIds(cased, 512)
