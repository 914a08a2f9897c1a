"""Digits and characters said as words: "four seven one nine", "vier sieben eins neun",
"quatre sept un neuf", "cuatro siete uno nueve", "四七一九", "capital K, i, w, i, seven".

A PIN, a phone number or an id read aloud is still that number. Runs of such words are found
here; the detectors decide what a run is by the cue before it (a PIN word, a phone word, an
id's name).
"""

from __future__ import annotations

import re
from functools import lru_cache

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
DIGIT_RUN = re.compile(
    rf"(?<![\w-])(?:(?:double|triple|doppel|doble)\s+)?(?i:{DIGIT_WORD})"
    rf"(?:{_JOIN}(?:(?:double|triple|doppel|doble)\s+)?(?i:{DIGIT_WORD})){{3,}}(?![\w-])"
    rf"|[{ZH_DIGITS}](?:\s*[{ZH_DIGITS}]){{3,}}"
)
# Four or more spoken characters in a row: single letters or digits, digit words, NATO words
# ("k i w i 7 7", "capital K, i, w, i, seven, seven", "bravo seven x-ray two"). Each unit
# ends where a separator or the run ends, so an ordinary word never counts as one.
CHAR_RUN = re.compile(rf"(?<![\w-])(?i:{_UNIT})(?:{_JOIN}(?i:{_UNIT})){{3,}}(?![\w-])")
_ZH_PAIR = re.compile(f"[{ZH_DIGITS}]{{2}}")
_WORD = re.compile(r"[^\W_]+")
_SEPARATORS = str.maketrans(",.-", "   ")


@lru_cache(maxsize=256)
def hint(text: str) -> bool:
    """Whether ``text`` may hold a spelled run: two digit words side by side, or two Chinese
    digits. Several detectors ask it of the same text, so it is answered once; by splitting
    the text (in C) and looking words up, not by a pattern of fifty words tried everywhere."""
    previous = False
    for word in text.lower().translate(_SEPARATORS).split():
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
