"""Dates a query names, as time windows: "on 3 June, 2023" -> that day, "in July 2023" ->
that month, "in 2022" -> that year. Pure; no clock, no locale, English month names only.

Recall uses the windows to prefer facts remembered inside them ("what did Alice say on
3 June?" means the facts written that day). Relative phrases ("last week") are left to the
keyword and semantic rankers: they name no fixed date without knowing when the fact was said.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = "|".join([*_MONTHS, *(m[:3] for m in _MONTHS if m != "may"), "sept"])
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
# ASCII only: digits and letters from other scripts (or the long s, U+017F, which re.I
# folds to "s") are not dates, and must not reach int() or the month table.
_FLAGS = re.IGNORECASE | re.ASCII
_DAY_MONTH_YEAR = re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\.?,?\s+{_YEAR}\b", _FLAGS)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b", _FLAGS)
_ISO_DAY = re.compile(r"\b((?:19|20)\d\d)[-/](\d\d)[-/](\d\d)(?:\b|(?=T\d))", re.ASCII)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b", _FLAGS)
# A bare year only after a word that makes it one ("in 2022", "during 2021", "early 2023"):
# "I paid 2000 dollars" or "ran 2025 meters" name no year; nor do "555-2023" or "20:23".
_YEAR_ONLY = re.compile(
    rf"\b(?:in|during|of|throughout|year|early|late|mid)[\s-]+{_YEAR}(?![\w\-/:]|\.\d)", _FLAGS
)

Window = tuple[datetime, datetime]  # [start, end), UTC


def _month(name: str) -> int:
    return [m[:3] for m in _MONTHS].index(name.lower()[:3]) + 1  # ASCII: always found


def _day(y: int, m: int, d: int) -> Window | None:
    try:
        start = datetime(y, m, d, tzinfo=UTC)
    except ValueError:  # "31 June": not a date, so no window
        return None
    return start, start + timedelta(days=1)


def windows(query: str) -> list[Window]:
    """Every absolute date the query names, most specific reading first; a day mention is
    not also counted as its month or year."""
    if not any(ch.isdigit() for ch in query):  # every form needs a year: skip the regexes
        return []
    found: list[Window | None] = []
    rest = query
    for pattern, read in (
        (_DAY_MONTH_YEAR, lambda g: _day(int(g[2]), _month(g[1]), int(g[0]))),
        (_MONTH_DAY_YEAR, lambda g: _day(int(g[2]), _month(g[0]), int(g[1]))),
        (_ISO_DAY, lambda g: _day(int(g[0]), int(g[1]), int(g[2]))),
    ):
        found += [read(m.groups()) for m in pattern.finditer(rest)]
        rest = pattern.sub(" ", rest)
    for m in _MONTH_YEAR.finditer(rest):
        y, mo = int(m[2]), _month(m[1])
        start = datetime(y, mo, 1, tzinfo=UTC)
        found.append((start, datetime(y + mo // 12, mo % 12 + 1, 1, tzinfo=UTC)))
    rest = _MONTH_YEAR.sub(" ", rest)
    for m in _YEAR_ONLY.finditer(rest):
        y = int(m[1])
        found.append((datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC)))
    return [w for w in found if w is not None]
