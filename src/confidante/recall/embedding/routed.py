"""The ``auto`` embedder (the default): each text is read by the model made for its language.

English is read by the English static model (``static``: best on English, LoCoMo); every
other language by ``static-multilingual``. A fact keeps its reading in one vector,
``[english | multilingual]``: the English half left at zero when the text is not English, and
the multilingual half left at zero when it is, so which model may compare two texts is
decided from the vectors alone, at no cost per fact:

- an English query and an English fact: the English model's cosine;
- any other pair (a Chinese query, or a German fact): the multilingual model's cosine, mapped
  onto the English model's scale (`calibration`, below) so that one noise floor and one
  ranking serve both, and a Chinese question finds an English fact.

So the vectors of one partition always stay comparable, whatever languages it holds, and
nothing is re-embedded when a partition gains its first Chinese fact.

An English fact's multilingual reading is needed only by a question in another language, so
it is not made when the fact is written (it was half the cost of writing an English fact):
the semantic ranker makes it in memory the first time such a question reads the partition
(`Semantic`), and keeps it while the partition stays loaded. A query is read by both models
when it is English (`embed_query`), so it meets every fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from confidante.recall.analysis import language
from confidante.recall.embedding import Embedder

# A letter outside the Latin script (Cyrillic, Greek, Arabic, Thai, CJK...): not English,
# whatever its function words say.
_NON_LATIN_LETTER = re.compile(r"[^\W\d_A-Za-z\u00c0-\u024f\u1e00-\u1eff]")


def is_english(text: str) -> bool:
    """Whether the English model should read `text`: Latin script, English function words
    (or none that tell another language). Deterministic; no model."""
    if not text.isascii() and _NON_LATIN_LETTER.search(text):
        return False
    return language(text) == "en"


class LanguageRoutedEmbedder:
    """English by `english`, everything else by `multilingual`, in one stored vector."""

    name = "auto"
    languages = None  # every language has a reader

    def __init__(
        self,
        english: Embedder,
        multilingual: Embedder,
        calibration: tuple[float, float] = (1.0, 0.0),
    ) -> None:
        self.english = english
        self.multilingual = multilingual
        self.split = english.dim
        self.dim = english.dim + multilingual.dim
        # cosine_english ~ a * cosine_multilingual + b: the two models' cosines of the same
        # pairs of unrelated chat lines share their median and 99th percentile.
        self.calibration = calibration

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Facts' vectors: each text by its own language's model only."""
        return self._embed(texts, both=False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Queries' vectors: an English query is read by both models, so it meets English
        facts by the English model and every other fact by the multilingual one."""
        return self._embed(texts, both=True)

    def read_multilingual(self, texts: Sequence[str]) -> np.ndarray:
        """The multilingual halves of `texts` (English facts' second reading, made when a
        question in another language first needs it)."""
        return self.multilingual.embed(texts)

    def _embed(self, texts: Sequence[str], *, both: bool) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        english = [is_english(t) for t in texts]
        rows = [i for i, e in enumerate(english) if e]
        if rows:
            out[rows, : self.split] = self.english.embed([texts[i] for i in rows])
        rows = [i for i, e in enumerate(english) if both or not e]
        if rows:
            out[rows, self.split :] = self.multilingual.embed([texts[i] for i in rows])
        return out

    def __repr__(self) -> str:
        return f"LanguageRoutedEmbedder({self.english!r}, {self.multilingual!r})"
