"""Who a query names by a display name: "what is Alice allergic to?", "Alice 对什么过敏",
"¿A qué es alérgica Alice?", "d'Alice", "Alice's".

A display name is matched as a whole word (or words) in the query, case and Unicode width
aside; a name in a script without spaces (Chinese, Japanese) as a run of its characters.
A multi-word name also answers to its first word ("Alice" for "Alice Martin"). A name two
people share names both: each joins the pool as far as the read rule lets them, and ranking
decides. Names shorter than two characters name nobody."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from ..lazy_patterns import compile_on_use

_CJK = r"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
_SPACELESS = compile_on_use(f"[{_CJK}]")
# a name's edge: no letter or digit of a spaced script next to it (a CJK character may be:
# "Alice对什么过敏" names Alice)
_BEFORE = rf"(?<![^\W{_CJK}])"
_AFTER = rf"(?![^\W{_CJK}])"
# a word's possessive or genitive ending: Alice's (either apostrophe), Alices
_ENDING = r"(?:['\u2019]s|s)?"


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


class NameMatcher:
    """The people a set of display names (`(name, actor)`) lets a query name."""

    def __init__(self, entries: Iterable[tuple[str, str]]) -> None:
        by_form: dict[str, set[str]] = defaultdict(set)
        for name, actor in entries:
            for form in _forms(name):
                by_form[form].add(actor)
        self._actors = dict(by_form)
        words = sorted((f for f in by_form if not _SPACELESS.search(f)), key=len, reverse=True)
        runs = sorted((f for f in by_form if _SPACELESS.search(f)), key=len, reverse=True)
        self._words = (
            compile_on_use(_BEFORE + "(" + "|".join(map(re.escape, words)) + ")" + _ENDING + _AFTER)
            if words
            else None
        )
        self._runs = compile_on_use("|".join(map(re.escape, runs))) if runs else None

    def named_in(self, query: str) -> set[str]:
        text = _fold(query)
        found: set[str] = set()
        for pattern in (self._words, self._runs):
            if pattern is None:
                continue
            for m in pattern.finditer(text):
                found |= self._actors.get(m.group(1) if m.groups() else m.group(0), set())
        return found

    def __bool__(self) -> bool:
        return bool(self._actors)


def _forms(name: str) -> list[str]:
    folded = _fold(name)
    if len(folded) < 2:
        return []
    forms = [folded]
    first = folded.split(" ")[0]
    if first != folded and len(first) >= 2:
        forms.append(first)
    return forms


__all__ = ["NameMatcher"]
