"""Text analysis for keyword recall: the terms a fact or a query is indexed and searched by.

One pipeline for every language, so a query meets the facts it should whatever they are
written in:

1. **Fold**: Unicode NFKC (full-width letters and digits become ASCII,
   ligatures and compatibility forms their plain letters), case-folded, with
   invisible format characters (zero-width spaces and joiners, soft hyphens) removed, so a
   word disguised with them is still the word.
2. **Split** into runs of CJK script (Han, kana, Hangul) and runs of other letters or digits.
3. **CJK runs** are read as overlapping character bigrams plus their single characters
   (``我搬到柏林`` -> ``我搬 搬到 到柏 柏林 搬 到 柏 林``; particles such as 的 and 我 are left
   out as single characters only). No dictionary and no load time. On the bilingual dev set
   (``benchmarks/multilingual.py``, keyword only, Chinese) this finds an evidence turn in
   the first five for 0.970 of the questions, bigrams alone 0.920, and the jieba word
   segmenter 0.900-0.920 while costing ~0.5 s to load and ~30 us a sentence.
4. **Other words** are stemmed with Snowball in the text's language (English, German, French,
   Spanish, Italian, Portuguese, Dutch; told apart by their function words, English when
   nothing tells), their function words left out, and accents dropped after stemming, so
   ``Café``, ``cafe`` and ``cafés`` meet. English irregular verb forms are read as their
   base form first (``went`` -> ``go``, ``bought`` -> ``buy``; `irregular`), since a question
   asks with the base form and a fact states the past: on LoCoMo turn all@10 +0.6 and +0.3
   points on the two halves, session any@5 -0.5 and +0.4; on the bilingual dev set English
   MRR 0.802 -> 0.813.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache

import snowballstemmer

from ..lazy_patterns import compile_on_use
from .irregular import IRREGULAR
from .stopwords import CJK_STOP_CHARS, STOPWORDS

__all__ = [
    "CJK",
    "asking",
    "fold",
    "forget_words",
    "is_cjk",
    "language",
    "speaker",
    "stem",
    "terms",
]

# Han (with extension A and compatibility ideographs), kana, Hangul syllables and jamo.
CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = compile_on_use(rf"[{CJK}]+|[^\W{CJK}]+")
_CJK_CHAR = compile_on_use(rf"[{CJK}]")
_KANA = compile_on_use(r"[\u3040-\u30ff]")
_HANGUL = compile_on_use(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")

_SNOWBALL = {
    "en": "english",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "it": "italian",
    "pt": "portuguese",
    "nl": "dutch",
}
_STEMMERS = {lang: snowballstemmer.stemmer(name) for lang, name in _SNOWBALL.items()}
for _stemmer in _STEMMERS.values():
    # PyStemmer (the C build snowballstemmer uses when installed) keeps its own cache of
    # words it stemmed, which `forget_words` cannot reach: off, `stem`'s memo is the one.
    if hasattr(_stemmer, "maxCacheSize"):
        _stemmer.maxCacheSize = 0
_STEMMER_LOCK = threading.Lock()  # a Snowball stemmer object keeps state between calls
_LONGEST_STEMMED = 40  # longer "words" (hashes, base64, URLs) are kept as they are
# Which languages each function word belongs to, for telling a text's language.
_VOTES: dict[str, tuple[str, ...]] = {}
for _lang, _words in STOPWORDS.items():
    for _w in _words:
        _VOTES[_w] = (*_VOTES.get(_w, ()), _lang)


# A transcript line: "Caroline: I moved to Boston". One to a few words, then a colon (ASCII
# or full-width) and a space, at the start of the text.
_SPEAKER = compile_on_use(r"^\s*([^\W\d_][\w .'-]{0,30}?)\s*[:\uff1a]\s+")


def speaker(text: str) -> tuple[str, str] | None:
    """(speaker, what they said) when `text` is a transcript line ("Name: text"), else None."""
    m = _SPEAKER.match(text)
    return None if m is None else (m[1], text[m.end() :])


# A sentence: up to and including its end mark (ASCII or full-width), or the text's end.
_SENTENCE = compile_on_use(r"[^.!?\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")
_QUESTION_MARKS = ("?", "\uff1f")


def asking(text: str) -> float:
    """The share of a text (in characters) made of questions: 1.0 for "What did you paint?",
    0.0 for a statement, between for "I painted a lake. Do you paint?"."""
    if "?" not in text and "\uff1f" not in text:
        return 0.0
    total = asked = 0
    for m in _SENTENCE.finditer(text):
        s = m[0].strip()
        total += len(s)
        if s.endswith(_QUESTION_MARKS):
            asked += len(s)
    return asked / total if total else 0.0


def fold(text: str) -> str:
    """NFKC, case-folded, invisible format characters (Unicode category Cf) removed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if not text.isascii():
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return text


def is_cjk(text: str) -> bool:
    return _CJK_CHAR.search(text) is not None


def language(text: str) -> str:
    """The text's language, as an ISO 639-1 code: ``zh``, ``ja`` or ``ko`` when CJK script
    outweighs other words, else the European language whose function words it uses most
    (``en`` when none, or on a tie with English). Deterministic; no model."""
    folded = fold(text)
    return _language(_RUN.findall(folded), folded)


# English contractions ("let's", "can't", "I'm", "we'll", "'em"): English, and their tails
# are not the French elided "s'"/"t'" nor Portuguese "em", which they would otherwise vote
# for ("Gina: Can't wait too!" read as French; 15 of LoCoMo's 5,882 lines were).
_EN_CONTRACTION = compile_on_use(r"(?<=\w)['\u2019](?:s|t|re|ll|ve|m|d)\b|(?<!\w)['\u2019]em\b")
_CONTRACTION_TAILS = {"s", "t", "re", "ll", "ve", "m", "d", "em"}


def _language(runs: list[str], folded: str = "") -> str:
    cjk = sum(len(r) for r in runs if _CJK_CHAR.match(r))
    if cjk and cjk >= sum(1 for r in runs if not _CJK_CHAR.match(r)):
        joined = "".join(runs)
        if _KANA.search(joined):
            return "ja"
        return "ko" if _HANGUL.search(joined) else "zh"
    votes: dict[str, int] = {}
    contractions = (
        len(_EN_CONTRACTION.findall(folded)) if "'" in folded or "\u2019" in folded else 0
    )
    for r in runs:
        langs = _VOTES.get(r)  # most words vote for nothing: a dict, not Counter.update
        if langs is None or (contractions and r in _CONTRACTION_TAILS):
            continue  # (the tail of a contraction is counted below as English)
        for lang in langs:
            votes[lang] = votes.get(lang, 0) + 1
    if contractions:
        votes["en"] = votes.get("en", 0) + contractions
    if not votes:
        return "en"
    best = max(votes.values())
    return "en" if votes.get("en") == best else min(k for k, v in votes.items() if v == best)


@lru_cache(maxsize=65536)
def stem(word: str, lang: str = "en") -> str:
    """The Snowball stem of a folded word in `lang` (English when there is no stemmer for it),
    accents dropped: "parties" and "party" meet, as do "Wohnungen" and "Wohnung" in German.
    Cached: chat vocabularies are small (PyStemmer's C build is ~0.3 us a word). The memo
    holds words of decrypted text, so it is emptied whenever decrypted text is let go
    (`forget_words`)."""
    stemmer = _STEMMERS.get(lang) or _STEMMERS["en"]
    with _STEMMER_LOCK:
        out = stemmer.stemWord(word)
    return out if out.isascii() else _unaccent(out)


_stem = stem.__wrapped__  # the same, without the memo


def forget_words() -> None:
    """Empty the stem memo: called when decrypted partitions leave memory (evicted, stale,
    forgotten), so no word of theirs outlives them here."""
    stem.cache_clear()


def _unaccent(word: str) -> str:
    bare = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare)


def _cjk_terms(run: str) -> list[str]:
    chars = [c for c in run if c not in CJK_STOP_CHARS]
    if len(run) == 1:
        return chars
    return [run[i : i + 2] for i in range(len(run) - 1)] + chars


def terms(text: str, *, memo: bool = True) -> list[str]:
    """The keyword terms of a text, in order (repeats kept: they are term frequencies).
    `memo=False`: stemmed without the memo (a text read to be sealed, `recall.reading`)."""
    stem_ = stem if memo else _stem
    folded = fold(text)
    runs = _RUN.findall(folded)
    lang = _language(runs, folded)
    stop = STOPWORDS.get(lang, STOPWORDS["en"])
    out: list[str] = []
    for r in runs:
        if _CJK_CHAR.match(r):
            out += _cjk_terms(r)
        elif r in stop:
            continue
        elif len(r) > _LONGEST_STEMMED:  # keep the stem cache small
            out.append(r)
        elif lang == "en" and r in IRREGULAR:  # "went" meets "go", "bought" "buy"
            out.append(stem_(IRREGULAR[r], lang))
        else:
            out.append(stem_(r, lang))
    return out
