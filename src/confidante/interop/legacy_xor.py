"""The old tiered layout's "encryption", read once to move the notes out of it.

The old skill derived its key from public inputs, key = the first 8 hex chars of
SHA-256(skill_name + year_month) (its notes also document the same with a hyphen between
the two), XORed each character code with the key's characters in turn, and Base64-encoded
the result as bytes: `bytes([ord(c) ^ ord(key[i % 8]) for i, c in enumerate(text)])`.
So each character became exactly one byte, and text with a character above U+00FF could
not be encoded at all (`bytes()` refuses values over 255). Accented Latin text (U+0080 to
U+00FF) is the case to get right: its bytes are not UTF-8, and must be read one byte per
character. Agents that worked around the limit XORed the UTF-8 bytes instead; that form
is recognised too.

Nothing here authenticates anything, so a wrong key yields text-shaped noise rather than
an error. Every candidate key is tried and the decoding that reads most like text wins;
if none does, the entry is reported as undecryptable, never guessed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
from collections.abc import Iterable

KEY_CHARS = 8
_PLAIN_PUNCT = set(".,;:!?¡¿'\"()-/&%€£$@+*=[]<>_…\u2013\u2014\u2019\u2018\u201c\u201d«»")
_MIN_SCORE = 0.8
_EDGE = "¡¿\"'\u201c\u201d\u2018\u2019«»()[]<>.,;:!?…*_-\u2013\u2014/"
# a word: letters with inner ' - . (don't, e-mail), or a number with a short unit (5pm, 3rd)
_WORD = re.compile("[^\\W\\d_]+(['\u2019\\-.][^\\W\\d_]+)*|\\d+([.,:]\\d+)*[^\\W\\d_]{1,3}")


def derive_key(skill_name: str, year_month: str, *, hyphen: bool = False) -> str:
    raw = f"{skill_name}-{year_month}" if hyphen else skill_name + year_month
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:KEY_CHARS]


def candidate_keys(skills: Iterable[str], months: Iterable[str]) -> list[str]:
    """Both documented key variants for every (skill, month) pair, first ones first."""
    keys: list[str] = []
    months = list(dict.fromkeys(m for m in months if m))
    for skill in dict.fromkeys(s for s in skills if s):
        for month in months:
            for hyphen in (False, True):
                k = derive_key(skill, month, hyphen=hyphen)
                if k not in keys:
                    keys.append(k)
    return keys


def split_key_hint(hint: str) -> tuple[str, str] | None:
    """`<skill-name>-<YYYY-MM>` (or without the hyphen) -> (skill, month)."""
    m = re.fullmatch(r"(.+?)-?(\d{4}-\d{2})", hint.strip())
    return (m.group(1), m.group(2)) if m else None


def encrypt(text: str, key: str) -> str:
    """The old encoder, faithfully (raises ValueError above U+00FF, as it did). Kept for
    tests and for anyone checking a migration by hand."""
    data = bytes([ord(c) ^ ord(key[i % len(key)]) for i, c in enumerate(text)])
    return base64.b64encode(data).decode()


def _xor(data: bytes, key: str) -> bytes:
    kb = key.encode("ascii")
    return bytes(b ^ kb[i % len(kb)] for i, b in enumerate(data))


def decodings(encoded: str, key: str) -> list[str]:
    """What `encoded` can mean under `key`: one byte per character (the old encoder), and
    the XORed UTF-8 bytes of the workaround."""
    try:
        data = base64.b64decode("".join(encoded.split()), validate=True)
    except (binascii.Error, ValueError):
        return []
    plain = _xor(data, key)
    out = [plain.decode("latin-1")]
    try:
        utf8 = plain.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if utf8 != out[0]:
            out.insert(0, utf8)  # multi-byte UTF-8 by chance from Latin-1 text: negligible
    return out


def text_score(text: str) -> float:
    """How much `text` reads like writing: 0 for control characters or mojibake, else the
    share of letters, spaces and common punctuation, less a penalty for words that mix
    letters with stray symbols (what a wrong key makes of a word)."""
    if not any(ch.isalpha() for ch in text):
        return 0.0  # nothing to read: a note with no word in it is not recovered
    for ch in text:
        if ch in "\n\r\t":
            continue
        if unicodedata.category(ch).startswith("C"):
            return 0.0
    plain = sum(ch.isalpha() or ch.isspace() or ch.isdigit() or ch in _PLAIN_PUNCT for ch in text)
    score = plain / len(text)
    words = [w.strip(_EDGE) for w in text.split()]
    odd = sum(1 for w in words if any(c.isalpha() for c in w) and not _WORD.fullmatch(w))
    return max(0.0, score - odd / max(1, len(words)))


def recover(encoded: str, keys: Iterable[str]) -> str | None:
    """The plaintext of an old entry, or None when no candidate key gives text."""
    best, best_score = None, 0.0
    for key in keys:
        for text in decodings(encoded, key):
            s = text_score(text)
            if s > best_score:
                best, best_score = text, s
    return best if best is not None and best_score >= _MIN_SCORE else None
