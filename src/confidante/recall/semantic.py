"""The semantic ranker: cosine similarity over embeddings held in the partition index.

Vectors are made once, when a fact is written, and stored inside the fact's ciphertext
(float16, with the name of the embedder that made them); at load they are decrypted into one
matrix per partition, never written out in the clear. Facts stored before this embedder was
configured (or by another one) are embedded at load time, in memory only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .analysis import language
from .embedding import Embedder
from .embedding.routed import LanguageRoutedEmbedder
from .index import IndexedFact, PartitionIndex
from .ranking import Candidates

_KEY = "vectors"
# Embedders whose vectors were stored without their name, before names were stored; their
# dimensions (256, 384, 512) told them apart. Any other untagged vector is embedded again.
_UNTAGGED = frozenset({"static", "minilm-int8", "use-multilingual"})


# Above this many multiply-adds a BLAS matrix-vector product pays for its threads: at 100k
# rows x 256 it is 2-4x faster than einsum, and still faster with both cores busy (p95 10.8
# vs 16.4 ms with two CPU burners running). Below it, einsum: at 10k rows threaded OpenBLAS
# waits for a busy core (p95 8.0 vs 4.4 ms under the same load).
_BLAS_FROM = 8_000_000
# An English query blends the multilingual model's cosine into the English one's for the
# English facts the English model ranks this high (all of a partition up to this size):
# at 100k facts, reading every multilingual row took recall p95 from 7.9 to 12.0 ms, and a
# fact outside the English model's first 2,000 does not reach the first ten.
_BLEND_TOP = 2_000
# A partition this large is scanned coarse, then exact: a matrix-vector product over 100k
# rows x 256 floats reads 100 MB and is bound by memory (13 ms on a 2-core EPYC here), so
# the rows are turned onto the principal axes of the *model* (its token table's: an
# orthogonal rotation, so every dot product stays exactly what it was), the first
# _COARSE_DIMS of them are read for every row, and the best _EXACT_SHARE of the rows the
# reader may see (at least _EXACT_MIN) are read whole. The axes come from the model, never
# from the partition's rows, and the exact rows are chosen among the visible ones only: what
# a reader may not see moves none of their scores. On LoCoMo's turns the model's 96 leading
# axes keep 99.2% of the exact first ten among the best 4% by the coarse pass (the
# partition's own 64 axes kept 99.0%).
_COARSE_FROM = 20_000
_COARSE_DIMS = 96
_EXACT_SHARE = 0.04
_EXACT_MIN = 2 * _BLEND_TOP


def _cosines(rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    if rows.size >= _BLAS_FROM:
        return rows @ q
    return np.einsum("ij,j->i", rows, q)


@dataclass
class _Rows:
    """One model's float32 rows of a partition, ready for a query: as they are, or (a large
    partition, with a model that has principal axes) on those axes, with a contiguous copy
    of the leading dimensions for a coarse pass."""

    rows: np.ndarray  # (n, dim) float32; rotated when `basis` is set
    basis: np.ndarray | None = None  # (dim, dim) orthonormal columns, most energy first
    lead: np.ndarray | None = None  # (n, _COARSE_DIMS) float32: rows[:, :_COARSE_DIMS]

    @classmethod
    def of(cls, rows: np.ndarray, basis: Callable[[], np.ndarray | None]) -> _Rows:
        """`basis` gives the model's axes; it is asked only for a partition large enough to
        be scanned coarse (a small one never pays for the axes)."""
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        if len(rows) < _COARSE_FROM or rows.shape[1] <= 2 * _COARSE_DIMS:
            return cls(rows)
        axes = basis()
        if axes is None:
            return cls(rows)
        turned = rows @ axes
        return cls(turned, axes, np.ascontiguousarray(turned[:, :_COARSE_DIMS]))

    def appended(self, rows: np.ndarray, basis: Callable[[], np.ndarray | None]) -> _Rows:
        """These rows with `rows` (float32, in the model's own axes) after them."""
        if self.basis is None:
            return _Rows.of(np.concatenate((self.rows, rows)), basis)
        turned = np.asarray(rows, dtype=np.float32) @ self.basis
        return _Rows(
            np.concatenate((self.rows, turned)),
            self.basis,
            np.concatenate((self.lead, turned[:, :_COARSE_DIMS])),  # type: ignore[arg-type]
        )

    @property
    def nbytes(self) -> int:
        extra = 0 if self.lead is None else self.lead.nbytes + self.basis.nbytes  # type: ignore[union-attr]
        return self.rows.nbytes + extra

    def query(self, q: np.ndarray) -> np.ndarray:
        """The query in this holder's axes."""
        return q if self.basis is None else q @ self.basis

    def cosines(self, q: np.ndarray, visible: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Every visible row's cosine with `q` (already in this holder's axes), and the rows
        whose cosine is exact (None: all of them). Rows outside `visible` are never chosen
        for the exact pass, so they cannot push a visible row out of it."""
        if self.lead is None:
            return _cosines(self.rows, q), None
        shown = np.flatnonzero(visible)
        m = max(_EXACT_MIN, int(len(shown) * _EXACT_SHARE))
        if m >= len(shown):  # few visible rows: read them whole, skip the coarse pass
            s = np.zeros(len(self.rows), dtype=np.float32)
            s[shown] = np.take(self.rows, shown, axis=0) @ q
            return s, shown
        s = self.lead @ q[:_COARSE_DIMS]  # BLAS: 1.6x einsum at 100k x 64
        # in row order: gathering 4,000 rows is 2x faster in order than scattered
        exact = np.sort(shown[np.argpartition(s[shown], len(shown) - m)[len(shown) - m :]])
        s[exact] = np.take(self.rows, exact, axis=0) @ q
        return s, exact


@dataclass
class _Routed:
    """A partition's vectors under the `auto` embedder, split by model."""

    english: _Rows  # the English model's rows; zero rows: not English
    # float32 (n, multilingual dim), every row read. Kept as float32 (twice float16's bytes,
    # half the English rows'): casting an English query's 2,000 blended rows from float16
    # cost 0.8-1.5 ms a query, gathering them as float32 0.1-0.2 ms.
    multilingual: np.ndarray
    english_rows: np.ndarray  # bool (n,): rows the English model read
    other: np.ndarray  # rows that are not English (positions of ~english_rows)
    # their multilingual rows, gathered once (not at every query)
    other_rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))

    def __post_init__(self) -> None:
        if len(self.other) and len(self.other_rows) != len(self.other):
            self.other_rows = np.ascontiguousarray(np.take(self.multilingual, self.other, axis=0))

    @property
    def nbytes(self) -> int:  # for the partition cache's budget
        return (
            self.english.nbytes
            + self.multilingual.nbytes
            + self.other.nbytes
            + self.other_rows.nbytes
        )


class Semantic:
    name = "semantic"

    def __init__(self, embedder: Embedder, *, weight: float = 0.5, floor: float = 0.3) -> None:
        # floor: cosine at which a fact counts as relevant on meaning alone; unrelated chat
        # sentences sit below ~0.3 with the shipped embedders.
        self.embedder = embedder
        self.weight = weight
        self.floor = floor

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Facts' vectors, every reading of each, as stored (float16)."""
        return self.embedder.embed(list(texts)).astype(np.float16)

    def _made_here(self, vector: np.ndarray | None, made_by: str | None) -> bool:
        """Whether a stored vector was made by this embedder, whole or in part (an English
        fact's first reading): usable at load, where a missing half is made in a batch."""
        if vector is None or vector.shape != (self.embedder.dim,):
            return False
        name = self.embedder.name
        return made_by == name or (made_by is None and name in _UNTAGGED)

    def is_current(self, vector: np.ndarray | None, made_by: str | None) -> bool:
        """Whether a stored vector is whole and made by this embedder (else `cleanup` embeds
        it again and stores it)."""
        if not self._made_here(vector, made_by):
            return False
        assert vector is not None
        if isinstance(self.embedder, LanguageRoutedEmbedder):
            # an English fact stored with its first reading only: cleanup stores both
            split = self.embedder.split
            return not (vector[:split].any() and not vector[split:].any())
        return True

    def _basis(self) -> np.ndarray | None:
        """The model's principal axes for the coarse pass (None: always read rows whole)."""
        model = self.embedder
        if isinstance(model, LanguageRoutedEmbedder):
            model = model.english
        axes = getattr(model, "coarse_basis", None)
        return None if axes is None else axes()

    def _matrix(self, facts: Sequence[IndexedFact]) -> np.ndarray:
        """The stored vectors of `facts` as float16 rows; a fact stored without one of this
        embedder's is embedded now, in memory only."""
        made = [self._made_here(f.vector, f.embedder) for f in facts]
        if facts and all(made):  # one copy, not a row at a time
            return np.vstack([f.vector for f in facts])  # type: ignore[misc]
        mat = np.zeros((len(facts), self.embedder.dim), dtype=np.float16)
        missing = []
        for i, f in enumerate(facts):
            if made[i]:
                mat[i] = f.vector
            else:
                missing.append(i)
        if missing:  # written before this embedder was chosen: embed now, in memory only
            mat[missing] = self.embed_documents([facts[i].fact.text for i in missing])
        return mat

    def _split(
        self, mat: np.ndarray, facts: Sequence[IndexedFact], previous: PartitionIndex | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(English rows float32, multilingual rows float32, which rows are English) of a
        routed embedder's vectors, the multilingual reading made for English facts stored
        with their first reading only (one batch; kept from `previous` where it made one)."""
        assert isinstance(self.embedder, LanguageRoutedEmbedder)
        split = self.embedder.split
        english = mat[:, :split].astype(np.float32)
        has_english = english.any(axis=1)
        multilingual = np.ascontiguousarray(mat[:, split:])  # ours: filled in below
        unread = np.flatnonzero(has_english & ~multilingual.any(axis=1))
        if len(unread) and previous is not None:
            unread = _keep_readings(multilingual, unread, facts, previous)
        if len(unread):  # English facts stored with their first reading only: one batch
            texts = [facts[i].fact.text for i in unread]
            multilingual[unread] = self.embedder.read_multilingual(texts)
        return english, multilingual.astype(np.float32), has_english

    def prepare(self, index: PartitionIndex) -> None:
        mat = self._matrix(index.facts)
        if isinstance(self.embedder, LanguageRoutedEmbedder):
            english, multilingual, has_english = self._split(mat, index.facts, index.previous)
            index.extras[_KEY] = _Routed(
                _Rows.of(english, self._basis),
                multilingual,
                has_english,
                np.flatnonzero(~has_english),
            )
        else:
            index.extras[_KEY] = _Rows.of(mat, self._basis)

    def extend(self, index: PartitionIndex, previous: PartitionIndex) -> None:
        """`index` is `previous` with rows appended (`PartitionIndex.extended`): only the new
        rows are read; the rows already prepared are kept as they are."""
        before = previous.extras.get(_KEY)
        if before is None:
            self.prepare(index)
            return
        first = len(previous.facts)
        added = index.facts[first:]
        mat = self._matrix(added)
        if isinstance(before, _Routed):
            english, multilingual, has_english = self._split(mat, added, None)
            other = np.flatnonzero(~has_english)
            index.extras[_KEY] = _Routed(
                before.english.appended(english, self._basis),
                np.concatenate((before.multilingual, multilingual)),
                np.concatenate((before.english_rows, has_english)),
                np.concatenate((before.other, first + other)),
                np.concatenate(
                    (before.other_rows.reshape(-1, multilingual.shape[1]), multilingual[other])
                ),
            )
        else:
            assert isinstance(before, _Rows)
            index.extras[_KEY] = before.appended(mat.astype(np.float32), self._basis)

    def _query(self, query: str) -> np.ndarray:
        # Not kept between calls: a query's vector holds its meaning.
        return self.embedder.embed([query])[0].astype(np.float32)

    def covers(self, query: str) -> bool:
        """Whether the embedder was made for the query's language. The English models read
        Chinese as stray characters: on the bilingual dev set their cosine pulls Chinese
        recall down (turn any@5 0.925 with it, 0.970 without), so for such a query this
        ranker abstains and keywords decide alone."""
        langs = getattr(self.embedder, "languages", None)
        return langs is None or language(query) in langs

    def scores(self, query: str, pool: Sequence[Candidates]) -> list[np.ndarray]:
        if not self.covers(query):
            return [np.zeros(len(c.index), dtype=np.float32) for c in pool]
        q = self._query(query)
        out = []
        for c in pool:
            if _KEY not in c.index.extras:
                self.prepare(c.index)
            vectors = c.index.extras[_KEY]
            if isinstance(vectors, _Routed):
                s = self._routed(vectors, q, c.mask)
            else:
                s = vectors.cosines(vectors.query(q), c.mask)[0]
            out.append(s.astype(np.float32, copy=False))  # the pipeline applies the mask
        return out

    def _routed(self, vectors: _Routed, q: np.ndarray, visible: np.ndarray) -> np.ndarray:
        """English pairs by the English model; any other pair by the multilingual one, on the
        English model's scale (`LanguageRoutedEmbedder`)."""
        assert isinstance(self.embedder, LanguageRoutedEmbedder)
        split = self.embedder.split
        a, b = self.embedder.calibration
        q_english, q_multi = q[:split], q[split:]
        # at most 1, as a cosine: the mapping stretches the top of the multilingual scale,
        # where a short line that only shares the query's names would outscore any match
        if not q_english.any():  # not an English query: every fact by the multilingual model
            return np.minimum(a * _cosines(vectors.multilingual, q_multi) + b, 1.0)
        english = vectors.english
        s, exact = english.cosines(english.query(q_english), visible)
        blend = self.embedder.blend
        if blend:  # English pairs: both models, for the best of them by the English one
            n = len(s)
            if n <= _BLEND_TOP:
                multi = np.minimum(a * _cosines(vectors.multilingual, q_multi) + b, 1.0)
                s = np.where(vectors.english_rows, (1.0 - blend) * s + blend * multi, multi)
                return s
            # the best visible English rows by the English model (among the rows read whole,
            # when the coarse pass ran): a row the reader may not see never takes a place
            if exact is None:
                shown = visible & vectors.english_rows
                if int(np.count_nonzero(shown)) > _BLEND_TOP:
                    # one pass over the scores, the hidden and non-English rows at -inf
                    ranked = np.where(shown, s, -np.inf)
                    rows = np.argpartition(ranked, len(s) - _BLEND_TOP)[-_BLEND_TOP:]
                else:
                    rows = np.flatnonzero(shown)
            else:
                shown = exact[vectors.english_rows[exact]]
                if len(shown) > _BLEND_TOP:
                    top = np.argpartition(s[shown], len(shown) - _BLEND_TOP)[-_BLEND_TOP:]
                    rows = shown[top]
                else:
                    rows = shown
            rows = np.sort(rows)  # gathered in row order
            m = np.take(vectors.multilingual, rows, axis=0)
            s[rows] = (1.0 - blend) * s[rows] + blend * np.minimum(
                a * _cosines(m, q_multi) + b, 1.0
            )
        if len(vectors.other):
            s[vectors.other] = np.minimum(a * _cosines(vectors.other_rows, q_multi) + b, 1.0)
        return s


def _keep_readings(
    multilingual: np.ndarray,
    unread: np.ndarray,
    facts: Sequence[IndexedFact],
    previous: PartitionIndex,
) -> np.ndarray:
    """Copy into `multilingual` the readings the index this one replaces made for facts still
    here with the same text (a write must not make every English fact be read again); return
    the rows still to read."""
    before = previous.extras.get(_KEY)
    if not isinstance(before, _Routed):
        return unread
    rows = {f.fact.id: (j, f.fact.text) for j, f in enumerate(previous.facts)}
    kept = []
    for i in unread:
        f = facts[i].fact
        j, text = rows.get(f.id, (-1, None))
        if text == f.text and before.multilingual[j].any():
            multilingual[i] = before.multilingual[j]
            kept.append(i)
    return np.setdiff1d(unread, kept) if kept else unread
