"""Digits and characters said as words: "four seven one nine", "vier sieben eins neun",
"quatre sept un neuf", "cuatro siete uno nueve", "四七一九", "capital K, i, w, i, seven".

A PIN, a phone number or an id read aloud is still that number. Runs of such words are found
here; the detectors decide what a run is by the cue before it (a PIN word, a phone word, an
id's name).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..lazy_patterns import compile_on_use

# Digit words in English, German, French, Spanish ("oh" for zero as people read phone
# numbers); Chinese digits below.
DIGIT_WORDS: dict[str, int] = {
    **dict.fromkeys(("zero", "oh", "null", "zéro", "cero"), 0),
    **dict.fromkeys(("one", "eins", "un", "une", "uno"), 1),
    **dict.fromkeys(("two", "zwei", "zwo", "deux", "dos"), 2),
    **dict.fromkeys(("three", "drei", "trois", "tres"), 3),
    **dict.fromkeys(("four", "vier", "quatre", "cuatro"), 4),
    **dict.fromkeys(("five", "fünf", "fuenf", "cinq", "cinco"), 5),
    **dict.fromkeys(("six", "sechs", "seis"), 6),
    **dict.fromkeys(("seven", "sieben", "sept", "siete"), 7),
    **dict.fromkeys(("eight", "acht", "huit", "ocho"), 8),
    **dict.fromkeys(("nine", "neun", "neuf", "nueve", "niner"), 9),
}
DIGIT_WORD = "|".join(sorted(DIGIT_WORDS, key=len, reverse=True))
ZH_DIGITS = "〇零一二三四五六七八九幺两"
# The NATO alphabet, as a letter is spelled on the phone.
_NATO = (
    "alpha|alfa|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett?|kilo|lima|mike"
    "|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiskey|whisky|x-ray|xray"
    "|yankee|zulu"
)
# One spoken character: a digit word, a NATO word, or a single letter or digit, with its case
# said before it ("capital K", "großes B", "majuscule A", "mayúscula M").
_CASE = (
    r"(?:capital|big|upper(?:\s*case)?|small|lower(?:\s*case)?|gro(?:ß|ss)e?s?|kleine?s?"
    r"|majuscule|minuscule|may[úu]scula|min[úu]scula)\s+"
)
_UNIT = rf"(?:{_CASE})?(?:(?:double|triple|doppel|doble)\s+)?(?:{DIGIT_WORD}|{_NATO}|[^\W_])"
# atomic: a long run of spaces is read one way only
_JOIN = r"(?>\s*[,.-]\s*|\s+)"

# Four or more digit words in a row ("four seven one nine", "null eins fünf ..."), or Chinese
# digits, with or without spaces ("四七一九", "四 七 一 九").
DIGIT_RUN = compile_on_use(
    rf"(?<![\w-])(?:(?:double|triple|doppel|doble)\s+)?(?i:{DIGIT_WORD})"
    rf"(?:{_JOIN}(?:(?:double|triple|doppel|doble)\s+)?(?i:{DIGIT_WORD})){{3,}}(?![\w-])"
    rf"|[{ZH_DIGITS}](?:\s*[{ZH_DIGITS}]){{3,}}"
)
# Four or more spoken characters in a row: single letters or digits, digit words, NATO words
# ("k i w i 7 7", "capital K, i, w, i, seven, seven", "bravo seven x-ray two"). Each unit
# ends where a separator or the run ends, so an ordinary word never counts as one.
CHAR_RUN = compile_on_use(rf"(?<![\w-])(?i:{_UNIT})(?:{_JOIN}(?i:{_UNIT})){{3,}}(?![\w-])")
_ZH_PAIR = compile_on_use(f"[{ZH_DIGITS}]{{2}}")
_WORD = compile_on_use(r"[^\W_]+")
_SEPARATORS = str.maketrans(",.-", "   ")


def forget() -> None:
    """Let go of the texts `words` and `hint` remember: they serve the detectors of one
    `classify` call, which empties them when it ends (no text outlives its check)."""
    words.cache_clear()
    hint.cache_clear()


@lru_cache(maxsize=256)
def words(text: str) -> tuple[str, ...]:
    """The lower-cased words of ``text``, split at spaces, commas, dots and dashes (in C);
    asked by several detectors of the same text, so split once."""
    return tuple(text.lower().translate(_SEPARATORS).split())


@lru_cache(maxsize=256)
def hint(text: str) -> bool:
    """Whether ``text`` may hold a spelled run: two digit words side by side, or two Chinese
    digits. Several detectors ask it of the same text, so it is answered once; by splitting
    the text (in C) and looking words up, not by a pattern of fifty words tried everywhere."""
    previous = False
    for word in words(text):
        digit = word in DIGIT_WORDS
        if digit and previous:
            return True
        previous = digit
    return not text.isascii() and _ZH_PAIR.search(text) is not None


def digit_count(run: str) -> int:
    """How many digits a run of digit words (or Chinese digits) stands for; "double" and
    "triple" repeat the next one."""
    count, repeat = 0, 1
    for word in _WORD.findall(run.lower()):
        if word in ("double", "doppel", "doble"):
            repeat = 2
        elif word == "triple":
            repeat = 3
        elif word in DIGIT_WORDS:
            count += repeat
            repeat = 1
        else:  # Chinese digits come as one "word"
            count += sum(ch in ZH_DIGITS for ch in word)
    return count


# -- numbers from 0 to 99, as phone numbers are read in pairs --------------------------------
# "zéro six, quarante-sept, quatre-vingt-deux", "seis cuarenta y siete ochenta y dos",
# "null sechs, siebenundvierzig", "oh seven, forty-two". Every spelling is generated from the
# grammar of each language (units, teens, tens, and how they join), then matched as one word.
_ACCENTED = {"dos": "dós", "tres": "trés", "seis": "séis"}


def _number_spellings() -> dict[str, int]:
    out: dict[str, int] = {}
    units = {
        "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],
        "de": ["null", "ein", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"],
        "fr": ["zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"],
        "es": ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"],
    }
    teens = {
        "en": "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen",
        "de": "zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn",
        "fr": "dix onze douze treize quatorze quinze seize dix-sept dix-huit dix-neuf",
        "es": "diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve",
    }
    tens = {
        "en": "twenty thirty forty fifty sixty seventy eighty ninety",
        "de": "zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig",
        "fr": "vingt trente quarante cinquante soixante septante huitante nonante",
        "es": "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa",
    }
    for lang in units:
        for n, word in enumerate(teens[lang].split(), start=10):
            out[word] = n
        for n, word in enumerate(tens[lang].split(), start=2):
            out[word] = n * 10
            for u in range(1, 10):
                unit = units[lang][u]
                if lang == "en":
                    out[f"{word} {unit}"] = n * 10 + u
                elif lang == "de":
                    out[f"{unit}und{word}"] = n * 10 + u
                elif lang == "fr":
                    joined = f"{word} et un" if u == 1 else f"{word} {unit}"
                    out[joined] = n * 10 + u
                elif n == 2:  # veintiuno, veintidós ...
                    out["veinti" + _ACCENTED.get(unit, unit)] = 20 + u
                else:
                    out[f"{word} y {unit}"] = n * 10 + u
    # French 70-99 the French way: soixante-dix, soixante et onze, quatre-vingt(s), -dix-neuf
    for i, teen in enumerate(teens["fr"].split()):
        out[("soixante et " if i == 1 else "soixante ") + teen] = 70 + i
        out[f"quatre vingt {teen}"] = 90 + i
    out["quatre vingt"] = out["quatre vingts"] = 80
    for u in range(1, 10):
        out[f"quatre vingt {units['fr'][u]}"] = 80 + u
    out.update({"octante": 80, "veintiún": 21, "veintiuna": 21, "dieciseis": 16, "zwölf": 12})
    out.update({"zwoelf": 12, "dreissig": 30, "fuenfzig": 50, "zero": 0, "zéro": 0, "oh": 0})
    for spelled_units in units.values():
        for u, word in enumerate(spelled_units):
            out.setdefault(word, u)
    out.update({"eins": 1, "une": 1, "zwo": 2, "fuenf": 5})
    return {spelling.replace("-", " "): n for spelling, n in out.items()}


NUMBER_WORDS: dict[str, int] = _number_spellings()
# the words of every spelling, and whether each says two digits at once
_ATOMS = frozenset(w for spelling in NUMBER_WORDS for w in spelling.split())
_JOINERS = frozenset({"y", "et", "and"})
_PAIR_ATOMS = frozenset(
    w for spelling, n in NUMBER_WORDS.items() if n >= 10 for w in spelling.split()
) - set(DIGIT_WORDS)
_LETTERS = compile_on_use(r"[^\W\d_]+")
_NUMBER = "|".join(
    r"[\s-]+".join(re.escape(part) for part in spelling.split())
    for spelling in sorted(NUMBER_WORDS, key=len, reverse=True)
)
# Four or more numbers in a row, one of them said as a pair. Each number and each separator
# is read one way only (atomic, longest spelling first: "quatre vingt deux" is 82), so a long
# run is never tried every way.
PAIR_RUN = compile_on_use(
    rf"(?<![\w-])(?>(?i:{_NUMBER}))(?:(?>\s*[,.;/]\s*|\s*-\s*|\s+)(?>(?i:{_NUMBER}))){{3,}}"
    r"(?![\w-])"
)
_NUMBER_TOKEN = compile_on_use(rf"(?i:{_NUMBER})")
_SPACES = compile_on_use(r"[\s-]+")


def _has_pair_run(split: tuple[str, ...]) -> bool:
    if _PAIR_ATOMS.isdisjoint(split):
        return False  # no tens or teens at all
    run, pairs = 0, False
    for word in split:
        if word in _ATOMS:
            run += 1
            pairs = pairs or word in _PAIR_ATOMS
            if run >= 4 and pairs:
                return True
        elif word not in _JOINERS:
            run, pairs = 0, False
    return False


def pair_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` may hold four or more numbers said in a row, one of them a pair
    ("quarante-sept", "siebenundvierzig"): found by looking words up, so that the pattern
    (hundreds of spellings) is tried only there."""
    if not _has_pair_run(words(text)):
        return []  # most text: told by the split every spelled form shares, and a look-up
    spans: list[tuple[int, int]] = []
    run, pairs, start, end = 0, False, 0, 0
    for m in _LETTERS.finditer(text):
        word = m.group().lower()
        if word in _ATOMS:
            if run == 0:
                start = m.start()
            run, end = run + 1, m.end()
            pairs = pairs or word in _PAIR_ATOMS
        elif word not in _JOINERS:
            if run >= 4 and pairs:
                spans.append((start, end))
            run, pairs = 0, False
    if run >= 4 and pairs:
        spans.append((start, end))
    return spans


def digits_of(run: str) -> str:
    """The digits a run of number words says: "zéro six, quarante-sept" -> "0647"."""
    out = []
    for m in _NUMBER_TOKEN.finditer(run):
        n = NUMBER_WORDS[_SPACES.sub(" ", m.group().lower())]
        out.append(f"{n:02d}" if n >= 10 else str(n))
    return "".join(out)
