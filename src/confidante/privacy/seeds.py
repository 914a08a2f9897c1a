"""Wallet recovery phrases: 12 to 24 words from a BIP-39 word list.

The word lists come from the ``mnemonic`` package (Trezor's BIP-39 reference, MIT). A run
of twelve or more list words counts when a BIP-39 checksum holds (a real wallet phrase, cue
or not) or when a word like "seed", "recovery", "frase semilla", "Wiederherstellungsphrase"
or "助记词" comes before it in the same sentence. Ordinary prose almost never strings twelve
list words together: the lists hold no articles, pronouns or auxiliaries ("the", "is", "I").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from mnemonic import Mnemonic

from .findings import Finding

CATEGORY = "credential"
LANGUAGES = ("english", "spanish", "french", "italian", "portuguese")
_LENGTHS = frozenset({12, 15, 18, 21, 24})
_MIN_WORDS = 12
# Words, and what may stand between two words of a phrase: spaces, commas, and the numbers
# people put before each word ("1. ripple 2. orchard ...").
_WORD = re.compile(r"[a-zà-öø-ÿ]+")
_JOINER = re.compile(r"[\s,;/-]*(?:\d{1,2}[.):]?\s*)?")
_CUE = re.compile(
    r"(?i:seed|mnemonic|recovery|backup|secret\s+(?:phrase|words)|wallet|metamask|ledger"
    r"|trezor|phantom|semilla|recuperaci[óo]n|cartera|billetera|monedero|wiederherstellung"
    r"|r[ée]cup[ée]ration|portefeuille|phrase\s+secr[èe]te|mots\s+secrets|seme|frase\s+segreta"
    r"|recupero|carteira|recupera[çc][ãa]o|助记词|助記詞|恢复短语|钱包|錢包)"
)
_SENTENCE_END = re.compile(r"[.!?。\n]\s")  # folded text: full-width marks are ASCII


@cache
def _mnemonic(lang: str) -> Mnemonic:
    return Mnemonic(lang)


@cache
def _wordlists() -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((lang, frozenset(_mnemonic(lang).wordlist)) for lang in LANGUAGES)


@cache
def _all_words() -> frozenset[str]:
    return frozenset().union(*(words for _, words in _wordlists()))


def find(text: str) -> Iterator[Finding]:
    """Yield recovery-phrase spans in ``text``."""
    if len(text) < _MIN_WORDS * 3:
        return
    low = text.lower()
    known = _all_words()
    # The cheap test first: twelve list words in a row, ignoring what lies between them.
    flags = "".join("1" if w in known else "0" for w in _WORD.findall(low))
    if "1" * _MIN_WORDS not in flags:
        return
    run: list[re.Match[str]] = []
    for m in _WORD.finditer(low):
        if run and not _JOINER.fullmatch(low, run[-1].end(), m.start()):
            yield from _judge(text, run)
            run = []
        if m.group() in known:
            run.append(m)
        else:
            yield from _judge(text, run)
            run = []
    yield from _judge(text, run)


def _judge(text: str, run: list[re.Match[str]]) -> Iterator[Finding]:
    if len(run) < _MIN_WORDS:
        return
    words = [m.group() for m in run]
    for lang, wordlist in _wordlists():
        if sum(w in wordlist for w in words) < _MIN_WORDS:
            continue
        if _checksummed(lang, words) or _cued(text, run[0].start()):
            yield Finding(CATEGORY, run[0].start(), run[-1].end())
            return


def _checksummed(lang: str, words: list[str]) -> bool:
    if len(words) not in _LENGTHS:
        return False
    try:
        return _mnemonic(lang).check(" ".join(words))
    except (ValueError, LookupError):
        return False


def _cued(text: str, start: int) -> bool:
    before = text[max(0, start - 80) : start]
    ends = list(_SENTENCE_END.finditer(before))
    if ends:
        before = before[ends[-1].end() :]
    return _CUE.search(before) is not None
