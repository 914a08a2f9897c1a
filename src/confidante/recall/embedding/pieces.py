"""A text's token ids, word by word, with the ids of common words remembered.

`tokenizers` reads a chat line in 130-210 µs, most of it spent normalising, pre-tokenising
and building an `Encoding` (offsets, masks) the static embedders never read; the model's
own step over one word takes a few µs. Both of our tokenizers split text into words first
and read each word on its own, so a text's ids are its words' ids in order, and a word read
once need not be read again: on LoCoMo's turns this takes the English tokenizer from ~125 to
~25 µs a line and the multilingual one from ~180-210 to ~30 (`tests/test_pieces.py` checks,
on every shipped dev text and on random Unicode, that the ids are exactly the tokenizer's).

- WordPiece (``static``): BERT's normaliser and pre-tokeniser on ASCII text are "drop control
  characters, lower-case, split at spaces and around each punctuation mark", which a regex
  does; any other text, or one that could hold a special token ("[UNK]"), goes to the
  tokenizer whole.
- Unigram (``static-multilingual``): the tokenizer's own normaliser, then each space-separated
  chunk on its own. Exact because no piece of the vocabulary holds "▁" (the word mark) after
  its first character, so every piece boundary of the whole text falls at each word mark and
  the best segmentation of the whole is the best of each word (checked at load).

What is remembered is words, never texts: chunks of at most 16 characters without a digit
(so no number, date or code) or an "@", at most 65,536 of them, in process memory only, as
the tokenizer's own caches are.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

_REMEMBERED = 65_536
_LONGEST = 16
# What BERT's normaliser drops (control characters but tab, newline and carriage return,
# which it reads as spaces), and its pre-tokeniser's words on lower-cased ASCII text: runs of
# letters and digits, and each ASCII punctuation mark alone.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BERT_WORD = re.compile(r"[a-z0-9]+|[!-/:-@\[-`{-~]")
_WORD_MARK = "\u2581"
# Never remembered: a word with a digit (a number, a date, a code) or an address's "@".
_NOT_KEPT = re.compile(r"[\d@]")


class _Words:
    """Word -> ids, bounded; a plain dict (its reads are atomic under the GIL, its writes
    are locked so that a clear and a write do not interleave)."""

    def __init__(self) -> None:
        self._ids: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def keep(self, word: str, ids: list[int]) -> None:
        if len(word) > _LONGEST or _NOT_KEPT.search(word):
            return
        with self._lock:
            if len(self._ids) >= _REMEMBERED:
                self._ids.clear()
            self._ids[word] = ids

    def ids(self, words: Iterable[str], read: Callable[[str], list[int]], limit: int) -> list[int]:
        """The ids of `words` in order, at most `limit`: each remembered one's, else `read`'s."""
        out: list[int] = []
        for w in words:
            got = self._ids.get(w)
            if got is None:
                got = read(w)
                self.keep(w, got)
            out.extend(got)
            if len(out) >= limit:
                break
        return out[:limit]


class WordPieceIds:
    """A BERT WordPiece tokenizer's ids for a text (no special tokens, at most `limit`)."""

    def __init__(self, tokenizer: Tokenizer, limit: int) -> None:
        from tokenizers import normalizers, pre_tokenizers

        norm, pre = tokenizer.normalizer, tokenizer.pre_tokenizer
        if not (
            isinstance(norm, normalizers.BertNormalizer)
            and norm.lowercase
            and norm.clean_text
            and isinstance(pre, pre_tokenizers.BertPreTokenizer)
        ):
            raise RuntimeError("not a lower-casing BERT tokenizer")
        self._tokenizer = tokenizer
        self._model = tokenizer.model
        self._limit = limit
        self._words = _Words()

    def __call__(self, text: str) -> list[int]:
        if not text.isascii() or "[" in text:
            return self._tokenizer.encode(text, add_special_tokens=False).ids
        words = _BERT_WORD.findall(_CONTROL.sub("", text).lower())
        return self._words.ids(words, self._read, self._limit)

    def _read(self, word: str) -> list[int]:
        return [t.id for t in self._model.tokenize(word)]


def crossing_pieces(tokenizer: Tokenizer) -> list[str]:
    """The vocabulary's pieces that hold a word mark after their first character."""
    return [p for p in tokenizer.get_vocab() if _WORD_MARK in p[1:]]


class UnigramIds:
    """A SentencePiece Unigram tokenizer's ids for a text (Metaspace words, no special
    tokens, at most `limit`)."""

    def __init__(self, tokenizer: Tokenizer, limit: int, *, vocab_checked: bool = False) -> None:
        """`vocab_checked`: the caller pinned a vocabulary known to keep words apart (the
        shipped model's, by its sha256; `tests/test_pieces.py` reads it), so the 0.2 s read
        of 128,000 pieces at every start is spared."""
        from tokenizers import pre_tokenizers

        pre = tokenizer.pre_tokenizer
        if not (
            isinstance(pre, pre_tokenizers.Metaspace)
            and pre.replacement == _WORD_MARK
            and pre.prepend_scheme == "always"
        ):
            raise RuntimeError("not a Metaspace tokenizer that marks every word")
        crossing = [] if vocab_checked else crossing_pieces(tokenizer)
        if crossing:  # then a piece could span two words, and words could not be read apart
            raise RuntimeError(f"{len(crossing)} pieces hold a word mark inside them")
        self._model = tokenizer.model
        self._normalizer = tokenizer.normalizer
        self._limit = limit
        self._words = _Words()

    def __call__(self, text: str) -> list[int]:
        normal = self._normalizer.normalize_str(text)  # type: ignore[union-attr]
        if not normal:
            return []
        return self._words.ids(normal.split(" "), self._read, self._limit)

    def _read(self, word: str) -> list[int]:
        return [t.id for t in self._model.tokenize(_WORD_MARK + word)]
