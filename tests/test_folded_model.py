"""The ``static-multilingual`` model as confidante reads it (``folded.npz``, written by
``scripts/fold_multilingual_static.py``: the head's linear first layer folded, the pieces read
in Python instead of by `tokenizers`' trie) gives the vectors of the model as distilled
(``model.npz`` and ``tokenizer.json``, unfolded), to float32 rounding, one text at a time and
in a batch; and it is the file its sha256 pins."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from confidante.recall.embedding import multilingual
from confidante.recall.embedding._resources import data_bytes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from fold_multilingual_static import reference, shipped_texts  # noqa: E402


@pytest.fixture(scope="module")
def distilled() -> tuple[dict[str, np.ndarray], object]:
    from tokenizers import Tokenizer

    with np.load(io.BytesIO(data_bytes("static-multilingual", "model.npz"))) as z:
        w = {k: z[k] for k in z.files}
    tok = Tokenizer.from_str(data_bytes("static-multilingual", "tokenizer.json").decode())
    tok.no_padding()
    return w, tok


def test_the_folded_file_is_pinned() -> None:
    meta = json.loads(data_bytes("static-multilingual", "meta.json"))
    blob = data_bytes("static-multilingual", "folded.npz")
    assert hashlib.sha256(blob).hexdigest() == meta["folded_sha256"]


def test_folded_vectors_are_the_distilled_models(distilled: tuple) -> None:
    w, tok = distilled
    texts = shipped_texts()
    assert len(texts) > 1000
    texts += ["", "🙂🙂", "x" * 300, "中" * 700, "Caroline: I went to the LGBTQ support group."]
    e = multilingual.MultilingualStaticEmbedder()
    batch = e.embed(texts)
    for i, text in enumerate(texts):
        ids = tok.encode(text, add_special_tokens=False).ids[: multilingual.MAX_TOKENS]
        want = reference(w, ids)
        assert np.allclose(batch[i], want, atol=1e-5), text
        if i % 7 == 0:  # one text alone takes another path (`_head_one`)
            assert np.allclose(e.embed([text])[0], want, atol=1e-5), text
