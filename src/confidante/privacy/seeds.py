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

from ..lazy_patterns import compile_on_use
from ._text import substring_test
from .findings import Finding

CATEGORY = "credential"
LANGUAGES = ("english", "spanish", "french", "italian", "portuguese")
_LENGTHS = frozenset({12, 15, 18, 21, 24})
_MIN_WORDS = 12
# Words, and what may stand between two words of a phrase: spaces, commas, and the numbers
# people put before each word ("1. ripple 2. orchard ...").
_WORD = compile_on_use(r"[a-zà-öø-ÿ]+")
_JOINER = compile_on_use(r"[\s,;/-]*(?:\d{1,2}[.):]?\s*)?")
_CUE = compile_on_use(
    r"(?i:seed|mnemonic|recovery|backup|secret\s+(?:phrase|words)|wallet|metamask|ledger"
    r"|trezor|phantom|semilla|recuperaci[óo]n|cartera|billetera|monedero|wiederherstellung"
    r"|r[ée]cup[ée]ration|portefeuille|phrase\s+secr[èe]te|mots\s+secrets|seme|frase\s+segreta"
    r"|recupero|carteira|recupera[çc][ãa]o|助记词|助記詞|恢复短语|钱包|錢包)"
)
_SENTENCE_END = compile_on_use(r"[.!?。\n]\s")  # folded text: full-width marks are ASCII
# A phrase named as one, then 12 to 24 words of any list or language (German has no BIP-39
# list; a wallet may use its own): "Wiederherstellungsphrase: ozean tiger ...", "seed phrase
# is ...", "助记词 ...", "frase semilla: ...". Lower-case words only, as wallets print them.
_NAMED_PHRASE = compile_on_use(
    r"(?i:seed(?:\s*phrase|\s*words)?|mnemonic(?:\s+phrase)?|recovery\s+(?:phrase|words|seed)"
    r"|backup\s+(?:phrase|words)|secret\s+recovery\s+phrase|wiederherstellungs(?:phrase|sätze?|wörter)"
    r"|seed-?phrase|phrase\s+(?:de\s+r[ée]cup[ée]ration|secr[èe]te|mn[ée]monique)|mots\s+de\s+r[ée]cup[ée]ration"
    r"|frase\s+(?:semilla|de\s+recuperaci[óo]n|mnem[óo]nica|secreta|de\s+respaldo)|palabras\s+semilla"
    r"|助记词|助記詞|恢复短语|恢复词)"
    # "seed phrase for my old wallet is ...": a few words, then a colon or a copula
    r"(?:(?:\s+[\w'\u2019-]+){0,4}?(?:\s*[:=]\s*|\s+(?:is|are|ist|sind|lautet|lauten|est|sont|es|son|são|是|为)\s*:?\s*)"
    # "助记词是: ...", "助记词: ..." (full-width colons fold to these): a copula, a colon, or both
    r"|[\u4e00-\u9fff]{0,6}?\s*(?:是|为)?\s*[:=]?\s*)"
    r"(?P<v>[a-zà-öø-ÿß\u4e00-\u9fff]+(?:[\s,]+(?:\d{1,2}[.):]?\s*)?[a-zà-öø-ÿß\u4e00-\u9fff]+){11,23})"
)


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
    if len(text) < _MIN_WORDS + 2:  # a Chinese phrase: twelve characters after its name
        return
    low = text.lower()
    if _NAMED_TEST.search(low):
        for m in _NAMED_PHRASE.finditer(text):
            yield from _named(text, m)
        for m in _ZH_NAMED.finditer(text):
            yield from _chinese_run(text, m)
    if len(text) < _MIN_WORDS * 3:
        return
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


# Substrings each name of a phrase holds: the cheap test before _NAMED_PHRASE runs.
_NAMED_STEMS = ("seed", "mnemonic", "recovery", "backup", "wiederherstellung", "phrase", "frase",
                "mots de r", "palabras", "助记", "助記", "恢复")  # fmt: skip
_NAMED_TEST = substring_test(_NAMED_STEMS)
# Words no wallet list holds (BIP-39 words have 3 to 8 letters and no grammar words): their
# presence means prose about a phrase ("my seed phrase is in the safe under my bed").
_PROSE_WORDS = frozenset(
    """the and with this that what where when which from into under over your their about
    have has had was were been are not but you they them his her its our out for can will
    der die das und ist ein eine mit nicht ich wir sie auf aus bei unter mein meine dem den
    les des une est pas pour dans avec sur sous mon mes que qui elle nous vous
    los las una con por para que del mis mío bajo sobre""".split()
)
_TOKEN = compile_on_use(r"[^\s,\d.):]+")


_ZH_NAMED = compile_on_use(
    r"(?:助记词|助記詞|恢复短语|恢复词)[^\u4e00-\u9fff\n]{0,3}(?:是|为|為)?\s*(?P<v>[\u4e00-\u9fff]{12,24})"
)


def _chinese_run(text: str, m: re.Match[str]) -> Iterator[Finding]:
    """A Chinese phrase written without spaces ("助记词:姐痕厘径都政剑侵曾几少敌"): each character
    is a word of the Chinese lists, so the checksum must hold, since most common characters
    are on those lists."""
    chars = m.group("v")
    for lang in ("chinese_simplified", "chinese_traditional"):
        for size in sorted(_LENGTHS, reverse=True):
            if size <= len(chars) and _checksummed(lang, list(chars[:size])):
                yield Finding(CATEGORY, m.start("v"), m.start("v") + size)
                return


def _named(text: str, m: re.Match[str]) -> Iterator[Finding]:
    """The words after a phrase's name, when they read as a list and not as a sentence."""
    cue = text[m.start() : m.start("v")].strip().lower()
    if cue.startswith("seed") and ":" not in cue and "=" not in cue and len(cue.split()) < 2:
        return  # "a seed is what we planted": a bare "seed" needs a colon
    words = list(_TOKEN.finditer(text, m.start("v"), m.end("v")))
    if any(len(w.group()) <= 2 and w.group().isascii() for w in words):
        return
    if any(w.group().lower() in _PROSE_WORDS for w in words):
        return
    size = max((n for n in _LENGTHS if n <= len(words)), default=0)
    if size:
        yield Finding(CATEGORY, words[0].start(), words[size - 1].end())


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
    # The cue may end the sentence before ("keep my seed phrase in notes? it's galaxy ..."):
    # twelve list words in a row are no sentence, so one boundary between is allowed.
    before = text[max(0, start - 100) : start]
    ends = list(_SENTENCE_END.finditer(before))
    if len(ends) > 1:
        before = before[ends[-2].end() :]
    return _CUE.search(before) is not None
