"""The ``static`` embedder: a distilled token table, averaged.

Built by ``scripts/distil_static_model.py`` (model2vec) from all-MiniLM-L6-v2; see
``data/NOTICE``. A text's vector is the mean of its WordPiece tokens' rows (no special tokens,
unknown tokens dropped, at most 512 tokens), L2-normalised: what model2vec's
``StaticModel.encode`` computes, with NumPy and ``tokenizers`` only.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence

import numpy as np

from confidante.recall.embedding import LATIN_LANGUAGES
from confidante.recall.embedding._resources import (
    check_sha256,
    data_bytes,
    l2_normalise,
    once_per_process,
)
from confidante.recall.embedding.pieces import WordPieceIds

MAX_TOKENS = 512


@once_per_process
def _model() -> tuple[np.ndarray, WordPieceIds, int | None]:
    """The table, the tokenizer's ids and its unknown token's id. Once per process: opening
    a Memory re-read and re-checked 15 MB of table and the tokenizer (80-130 ms) before its
    first write or recall."""
    from tokenizers import Tokenizer

    meta = json.loads(data_bytes("static", "meta.json"))
    raw_table = data_bytes("static", "embeddings.npy")
    raw_tokenizer = data_bytes("static", "tokenizer.json")
    check_sha256(raw_table, meta["embeddings_sha256"], "static embeddings")
    check_sha256(raw_tokenizer, meta["tokenizer_sha256"], "static tokenizer")
    table = np.load(io.BytesIO(raw_table), allow_pickle=False)
    if table.shape != (meta["vocab_size"], meta["dim"]):
        raise RuntimeError(f"static embeddings have shape {table.shape}")
    tokenizer = Tokenizer.from_str(raw_tokenizer.decode("utf-8"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    unk = getattr(tokenizer.model, "unk_token", None)
    table.setflags(write=False)
    # one text at a time, word by word (`pieces`): encode_batch hands texts to a thread
    # pool, which on a small shared box waits for its threads
    return table, WordPieceIds(tokenizer, MAX_TOKENS), tokenizer.token_to_id(unk) if unk else None


@once_per_process
def _basis() -> np.ndarray:
    """The principal axes of the token table (most energy first): texts are means of its
    rows, so their vectors keep most of their size in the leading axes. It depends on the
    model alone, never on what a partition holds (see `semantic._Rows`)."""
    table = _model()[0].astype(np.float32)
    _, vectors = np.linalg.eigh((table.T @ table).astype(np.float64))
    basis = np.ascontiguousarray(vectors[:, ::-1], dtype=np.float32)
    basis.setflags(write=False)
    return basis


class StaticEmbedder:
    """Mean of distilled token vectors; ~0.1 ms a sentence on one core."""

    name = "static"
    languages = LATIN_LANGUAGES

    def __init__(self) -> None:
        self.dim: int = int(json.loads(data_bytes("static", "meta.json"))["dim"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        table, tokenizer, unk = _model()
        ids_per_text = [np.asarray(tokenizer(t), dtype=np.int64) for t in texts]
        if unk is not None:
            ids_per_text = [ids[ids != unk] for ids in ids_per_text]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, ids in enumerate(ids_per_text):
            # a sum per text, not np.add.reduceat: reduceat along rows is ~7x slower here
            if len(ids):
                out[i] = table[ids].sum(axis=0, dtype=np.float32) / len(ids)
        return l2_normalise(out)

    def coarse_basis(self) -> np.ndarray:
        """Orthonormal axes of this model's space, most energy first (for a coarse pass)."""
        return _basis()

    def __repr__(self) -> str:
        return f"StaticEmbedder(dim={self.dim})"
