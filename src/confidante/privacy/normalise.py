"""One normalisation before every detector, so a disguise does not hide a value.

Detectors read a folded copy of the text; findings are mapped back to the original, which
is what is stored (or redacted). The folded copy:

- is NFKC (full-width at-signs and digits, ligatures, circled and super-script forms);
- has no invisible characters (format characters such as zero-width spaces, soft hyphens,
  bidi marks and Unicode tags; variation selectors; fillers);
- has every dash and hyphen as ``-``, every space as `` `` and every decimal digit as 0-9;
- has Cyrillic and Greek look-alikes inside otherwise Latin words as Latin letters
  ("password" written with a Cyrillic a and o);
- has a space between CJK characters and Latin letters or digits, so that a number right
  after a Chinese cue word ("卡号6222...") starts a word as the detectors expect;
- has HTML character references read as the characters they stand for ("jane&#64;x.org",
  "jane&commat;x.org", "&#x2e;"), as a page or an e-mail copied into chat carries them.

ASCII text without a character reference is its own folded copy: no work and no offset table.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..lazy_patterns import compile_on_use

# Invisible characters that are not Cf (format) but are default-ignorable all the same.
_IGNORABLE_EXTRA = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2796\ufe58\ufe63\uff0d")
# Look-alikes of Latin letters (Cyrillic, then Greek), applied only inside a word that also
# has Latin letters; written as escapes so that the source shows what they are.
_LOOKALIKES = (
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u04bb"
    "\u04cf\u051b\u051d\u0475\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420"
    "\u0421\u0422\u0425\u0406\u0408\u0405\u050c\u051c"
    "\u03b1\u03bf\u03b9\u03bd\u03c4\u03c5\u03ba\u03c1\u03b5\u03c7\u0391\u0392"
    "\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"
)
_CONFUSABLES = str.maketrans(
    _LOOKALIKES, "aeopcyxijsdhlqwvABEKMHOPCTXIJSGWaoivtukpexABEZHIKMNOPTYX"
)
_CONFUSABLE_CHARS = frozenset(_LOOKALIKES)
_MIXED_WORD = compile_on_use(r"[^\W\d_]+")
_CJK = compile_on_use(
    r"[\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff"
    r"\uac00-\ud7af\uf900-\ufaff\uff01-\uff0f\uff1a-\uff20]"
)
# "&#64;", "&#x40;", "&commat;": a numeric reference, or a named one with its semicolon.
_ENTITY = compile_on_use(r"&(?:#(?:\d{1,7}|[xX][0-9a-fA-F]{1,6});?|[A-Za-z][A-Za-z0-9]{1,31};)")
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+@#$")


@dataclass(frozen=True, slots=True)
class Folded:
    """The folded text and, for each of its characters, the offset it came from."""

    text: str
    origin: tuple[int, ...] | None = None  # None: the text is its own folded copy
    source_length: int = 0

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the folded span ``[start, end)``."""
        if self.origin is None:
            return start, end
        if end <= start:
            o = self.origin[start] if start < len(self.origin) else self.source_length
            return o, o
        first = self.origin[start]
        last = self.origin[end - 1]
        # up to where the next folded character came from: the span takes in the rest of
        # its last character's cluster (combining marks) and any invisible characters after
        nxt = self.origin[end] if end < len(self.origin) else self.source_length
        return first, max(last + 1, nxt)


@lru_cache(maxsize=4096)
def _fold_cluster(cluster: str) -> str:
    out = []
    for ch in unicodedata.normalize("NFKC", cluster):
        if ch in _IGNORABLE_EXTRA or unicodedata.category(ch) == "Cf":
            continue
        if ch in _DASHES:
            out.append("-")
        elif ch.isspace():
            out.append("\n" if ch in "\n\r\u2028\u2029\x85\x0b\x0c" else " ")
        elif ch.isdecimal() and not ch.isascii():
            out.append(str(unicodedata.decimal(ch)))
        else:
            out.append(ch)
    return "".join(out)


def fold(text: str) -> Folded:
    """The text detectors read, with a map back to ``text``."""
    entities = "&" in text and _ENTITY.search(text) is not None
    if text.isascii() and not entities:
        return Folded(text, None, len(text))
    pieces: list[str] = []
    origin: list[int] = []
    previous = ""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        reference = _ENTITY.match(text, i) if entities and text[i] == "&" else None
        if reference is not None:
            j = reference.end()
            piece = _fold_cluster(_character(reference.group()))
        else:
            while j < n and unicodedata.combining(text[j]):
                j += 1
            piece = _fold_cluster(text[i:j])
        if piece:
            # a space between CJK and a Latin word or digit: "卡号6222" -> "卡号 6222"
            if previous and (
                (_CJK.match(previous) and piece[0] in _ASCII_WORD)
                or (previous in _ASCII_WORD and _CJK.match(piece[0]))
            ):
                pieces.append(" ")
                origin.append(i)
            pieces.append(piece)
            origin.extend([i] * len(piece))
            previous = piece[-1]
        i = j
    folded = "".join(pieces)
    if _CONFUSABLE_CHARS.intersection(folded):
        folded = _MIXED_WORD.sub(_latinise, folded)
    return Folded(folded, tuple(origin), n)


def _character(reference: str) -> str:
    """The character an HTML reference stands for; the reference itself when it stands for
    none, or for a control character."""
    char = html.unescape(reference)
    if char == reference or char == "\ufffd" or not char.isprintable():
        return reference
    return char


def _latinise(m: re.Match[str]) -> str:
    word = m.group()
    if any(ch.isascii() for ch in word) and _CONFUSABLE_CHARS.intersection(word):
        return word.translate(_CONFUSABLES)  # one character for one: offsets are kept
    return word


def without_disguise(text: str) -> str:
    """``text`` as public memory stores it: without invisible characters and with Latin
    look-alikes inside Latin words made Latin, but otherwise as written (no NFKC, dash or
    spacing changes), so that nothing can hide in it and nothing visible changes."""
    if text.isascii():
        return text
    kept = "".join(
        ch for ch in text if ch not in _IGNORABLE_EXTRA and unicodedata.category(ch) != "Cf"
    )
    if _CONFUSABLE_CHARS.intersection(kept):
        kept = _MIXED_WORD.sub(_latinise, kept)
    return kept
