"""The semantic ranker: cosine similarity over embeddings held in the partition index.

Vectors are made once, when a fact is written, and stored inside the fact's ciphertext
(float16); at load they are decrypted into one matrix per partition, never written out in
the clear. Facts stored before an embedder was configured are embedded at load time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .analysis import language
from .embedding import Embedder
from .index import PartitionIndex
from .ranking import Candidates

_KEY = "vectors"


class Semantic:
    name = "semantic"

    def __init__(self, embedder: Embedder, *, weight: float = 0.5, floor: float = 0.3) -> None:
        # floor: cosine at which a fact counts as relevant on meaning alone; unrelated chat
        # sentences sit below ~0.3 with the shipped embedders.
        self.embedder = embedder
        self.weight = weight
        self.floor = floor

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts)).astype(np.float16)

    def prepare(self, index: PartitionIndex) -> None:
        dim = self.embedder.dim
        mat = np.zeros((len(index.facts), dim), dtype=np.float32)
        missing = []
        for i, f in enumerate(index.facts):
            if f.vector is not None and f.vector.shape == (dim,):
                mat[i] = f.vector
            else:
                missing.append(i)
        if missing:  # written before this embedder was chosen: embed now, in memory only
            mat[missing] = self.embedder.embed([index.facts[i].fact.text for i in missing])
        index.extras[_KEY] = mat

    def _query(self, query: str) -> np.ndarray:
        # Not kept between calls: a query's vector holds its meaning.
        return self.embedder.embed([query])[0].astype(np.float32)

    def covers(self, query: str) -> bool:
        """Whether the embedder was made for the query's language. The shipped English
        models read Chinese as stray characters: on the bilingual dev set their cosine
        pulls Chinese recall down (turn any@5 0.925 with it, 0.970 without), so for such a
        query this ranker abstains and keywords decide alone."""
        langs = getattr(self.embedder, "languages", None)
        return langs is None or language(query) in langs

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        if not self.covers(query):
            return [np.zeros(len(c.index), dtype=np.float32) for c in pool]
        q = self._query(query)
        out = []
        for c in pool:
            mat = c.index.extras.get(_KEY)
            if mat is None:
                self.prepare(c.index)
                mat = c.index.extras[_KEY]
            # einsum, not BLAS: threaded OpenBLAS gemv is ~15x slower on a small shared box.
            s = np.einsum("ij,j->i", mat, q)
            out.append(np.where(c.mask, s, 0.0).astype(np.float32))
        return out
