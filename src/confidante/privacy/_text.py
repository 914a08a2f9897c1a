"""Small text helpers shared by the detectors."""

from __future__ import annotations

import re

from ..lazy_patterns import compile_on_use

FIRST_PERSON = compile_on_use(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|we|we're|our|us)\b", re.I)
# Verbs that tie a value to its noun: "is", "=", ":", and a few other languages' copulas.
COPULA = (
    r"(?:\s*(?:(?:is|was|are|ist|est|es|é|è|lautet)\b|=|:|:=|->|=>|'s\b|\u2019s\b)\s*"
    r"|\s*:\s*|\s+is\s+now\s+)"
)
# Words a "value" slot often holds in ordinary talk ("my password is too long",
# "my login is broken"): never a secret or a handle.
NOT_A_VALUE = frozenset(
    """a an the my your our his her their its this that these those it same different wrong
    incorrect weak strong too so very not no never still now also just only really
    expired saved stored missing empty required needed set reset changed new old long short
    secure safe correct valid invalid working broken locked written case sensitive
    in on at for of to from by with here there below above attached hidden encrypted
    what which where when how why who something somewhere anything nothing everything
    being been be getting going protected managed generated random unique easy hard
    simple complicated forgotten lost known shared public private personal default
    field box page form prompt screen manager link optional good bad fine ok okay great
    awful terrible gone down up dead deleted banned suspended blocked verified linked
    created disabled enabled active inactive open closed full ready done available
    way pretty quite rather super totally kinda sorta extremely insanely ridiculously
    impossible terribly awfully far much more less
    see ask check look use try call same one""".split()
)
_DIGIT = compile_on_use(r"\d")


def substring_test(stems: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern that finds any of `stems` as a substring (what `any(s in text for s in
    stems)` tests, in one pass of C instead of one Python step per stem)."""
    return compile_on_use("|".join(re.escape(s) for s in sorted(stems, key=len, reverse=True)))


def has_digit(text: str) -> bool:
    """`any(ch.isdigit() for ch in text)`; by regex on ASCII text, where `\\d` finds every digit
    `isdigit` does (elsewhere `isdigit` also counts "²" and "①", which `\\d` does not)."""
    if text.isascii():
        return _DIGIT.search(text) is not None
    return any(ch.isdigit() for ch in text)


# A lower-case word shaped like a participle or an adjective says how a secret is ("my
# password is compromised", "mon mot de passe est enregistré", "la contraseña es guardada",
# "das Passwort ist gespeichert"); a secret that is one plain word rarely ends like these.
_PROSE_SHAPED = compile_on_use(
    r"[a-zà-ÿß]{3,}(?:ed|able|ible|ful|less|ous|é|ée|és|ées|ado|ada|ados|adas|ido|ida|idos"
    r"|idas|iert|ierte)"
    r"|ge[a-zäöüß]{3,}(?:t|en)"
)


def prose_shaped(value: str) -> bool:
    """Whether ``value`` (one lower-case word) reads as an ordinary participle or adjective;
    a capital or a digit makes it a candidate secret again."""
    return _PROSE_SHAPED.fullmatch(value.strip(".,!?")) is not None


def enough_digits(text: str, n: int) -> bool:
    """Whether ``text`` holds at least ``n`` digits: the cheap test before a detector whose
    every pattern needs that many (most chat turns have none)."""
    first = _DIGIT.search(text)
    return first is not None and (n <= 1 or len(_DIGIT.findall(text, first.start())) >= n)


TRAILING_PUNCT = ".,;:)]}?\"'\u201d\u2019"


def trim_value(text: str, start: int, end: int) -> int:
    """End offset with trailing sentence punctuation removed (a '!' may be part of a secret)."""
    while end > start and text[end - 1] in TRAILING_PUNCT:
        end -= 1
    return end


def token_end(text: str, pos: int) -> int:
    """Offset of the end of the whitespace-delimited token running through ``pos``."""
    while pos < len(text) and not text[pos].isspace():
        pos += 1
    return pos
