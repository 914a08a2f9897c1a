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
from collections.abc import Callable, Iterable, Sequence
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


class UnigramPieces:
    """A SentencePiece Unigram model's ids for one word, in Python: what `tokenizers`'
    `Unigram.tokenize` gives (its Viterbi over the pieces, in the same order and with the
    same ties; a character no piece starts with read as unknown, at the lowest score less
    10; neighbouring unknowns fused), from a dict of the pieces (~15 MB for 128,000) rather
    than its trie (~120 MB resident). Words are read once each (`_Words` remembers them), so
    the Python loop is paid for a word the first time it is seen."""

    _UNK_PENALTY = 10.0  # tokenizers' K_UNK_PENALTY

    def __init__(self, pieces: Sequence[str], scores: Sequence[float], unk_id: int) -> None:
        self._ids = dict(zip(pieces, range(len(pieces)), strict=True))  # a repeat: the last
        self._scores = [float(score) for score in scores]
        self._longest = max(map(len, pieces), default=1)
        self._unk = unk_id
        self._unk_score = min(self._scores) - self._UNK_PENALTY

    def crossing(self) -> list[str]:
        """The pieces that hold a word mark after their first character."""
        return [p for p in self._ids if _WORD_MARK in p[1:]]

    def tokenize(self, word: str) -> list[int]:
        n = len(word)
        ids, scores, longest = self._ids, self._scores, self._longest
        best = [0.0] * (n + 1)
        start = [-1] * (n + 1)  # where the best path to each position starts; -1: none yet
        piece = [0] * (n + 1)
        for s in range(n):
            here = best[s]
            single = False
            for e in range(s + 1, min(n, s + longest) + 1):
                i = ids.get(word[s:e])
                if i is None:
                    continue
                score = scores[i] + here
                if start[e] < 0 or score > best[e]:
                    best[e], start[e], piece[e] = score, s, i
                if e == s + 1:
                    single = True
            if not single:  # no piece of this one character: unknown
                score = self._unk_score + here
                if start[s + 1] < 0 or score > best[s + 1]:
                    best[s + 1], start[s + 1], piece[s + 1] = score, s, self._unk
        out: list[int] = []
        unknown_to = -1  # the end of a run of unknowns, read as one piece (fuse_unk)
        e = n
        while e > 0:
            if piece[e] == self._unk:
                if unknown_to < 0:
                    unknown_to = e
            else:
                if unknown_to >= 0:
                    out.append(ids.get(word[e:unknown_to], self._unk))
                    unknown_to = -1
                out.append(piece[e])
            e = start[e]
        if unknown_to >= 0:
            out.append(ids.get(word[:unknown_to], self._unk))
        out.reverse()
        return out


class UnigramIds:
    """A SentencePiece Unigram tokenizer's ids for a text (Metaspace words, no special
    tokens, at most `limit`)."""

    def __init__(
        self,
        tokenizer: Tokenizer,
        limit: int,
        *,
        vocab_checked: bool = False,
        pieces: UnigramPieces | None = None,
    ) -> None:
        """`vocab_checked`: the caller pinned a vocabulary known to keep words apart (the
        shipped model's, by its sha256; `tests/test_pieces.py` reads it), so the 0.2 s read
        of 128,000 pieces at every start is spared. `pieces`: the model read in Python, so
        `tokenizer` needs only its normaliser and pre-tokeniser."""
        from tokenizers import pre_tokenizers

        pre = tokenizer.pre_tokenizer
        if not (
            isinstance(pre, pre_tokenizers.Metaspace)
            and pre.replacement == _WORD_MARK
            and pre.prepend_scheme == "always"
        ):
            raise RuntimeError("not a Metaspace tokenizer that marks every word")
        crossing = []
        if not vocab_checked:
            crossing = crossing_pieces(tokenizer) if pieces is None else pieces.crossing()
        if crossing:  # then a piece could span two words, and words could not be read apart
            raise RuntimeError(f"{len(crossing)} pieces hold a word mark inside them")
        self._model = tokenizer.model
        self._pieces = pieces
        self._normalizer = tokenizer.normalizer
        self._limit = limit
        self._words = _Words()

    def __call__(self, text: str) -> list[int]:
        normal = self._normalizer.normalize_str(text)  # type: ignore[union-attr]
        if not normal:
            return []
        return self._words.ids(normal.split(" "), self._read, self._limit)

    def _read(self, word: str) -> list[int]:
        if self._pieces is not None:
            return self._pieces.tokenize(_WORD_MARK + word)
        return [t.id for t in self._model.tokenize(_WORD_MARK + word)]
