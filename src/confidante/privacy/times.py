"""Exact clock times in someone's own routine ("I wake up at 6am"), and their part of day.

A time alone is not personal ("the cron job runs at 02:00 UTC"); it counts when the sentence
speaks in the first person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._text import FIRST_PERSON
from .findings import Finding

_AMPM = r"(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"
_NUMBER_WORDS = {
    w: i + 1
    for i, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_WORD_HOUR = "|".join(_NUMBER_WORDS)
_TIME = re.compile(
    rf"""(?ix)
    (?P<prep>\b(?:at|around|about|by|until|till|before|after|from|since)\s+)?
    (?:
        (?P<h1>[01]?\d|2[0-3])[:.h](?P<m1>[0-5]\d)(?!\d|\.\d)\s*(?:{_AMPM})?
      | (?P<h2>1[0-2]|0?[1-9])\s*{_AMPM.replace("ampm", "ampm2")}
      | (?P<h3>1[0-2]|0?[1-9]|{_WORD_HOUR})\s*o['’]?\s?clock
      | (?P<frac>half\s+past|quarter\s+past|quarter\s+to)\s+(?P<h4>1[0-2]|0?[1-9]|{_WORD_HOUR})\b
      | (?P<word>noon|midday|midnight)
      | (?<=\bat\s)(?P<h5>1[0-2]|0?[1-9])(?=\s+(?:every|each|in\s+the|on\s+(?:week|mon|tue|wed
            |thu|fri|sat|sun)|sharp|daily|most|at\s+night|tonight|tomorrow))
    )
    (?P<day>\s+(?:in\s+the\s+)?(?:morning|afternoon|evening|at\s+night))?
    """
)
# A clock reading that is not a time: scores, ratios, versions.
_NOT_A_TIME_BEFORE = re.compile(r"(?:score|ratio|aspect|version|v|odds|won|lost|beat)\W*$", re.I)


def find(text: str) -> Iterator[Finding]:
    """Yield exact personal times in ``text``."""
    if not FIRST_PERSON.search(text):
        return
    for m in _TIME.finditer(text):
        if m.group("h1"):
            if _NOT_A_TIME_BEFORE.search(text[: m.start()]):
                continue
            # "3.12" is a version or a price unless "at" or am/pm says it is a time.
            separator = text[m.end("h1")]
            if separator == "." and not (m.group("prep") or m.group("ampm")):
                continue
        # The span is the time itself; the preposition before it stays.
        start = m.end("prep") if m.group("prep") else m.start()
        yield Finding("exact_time", start, m.end())


def hour_of(phrase: str) -> int | None:
    """24-hour hour of a time phrase, guessing am/pm from context words when absent."""
    m = _TIME.search(phrase)
    if not m:
        return None
    if m.group("word"):
        return 0 if m.group("word").lower() == "midnight" else 12
    raw = next(m.group(g) for g in ("h1", "h2", "h3", "h4", "h5") if m.group(g))
    hour = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw.lower()]
    ampm = (m.group("ampm") or m.group("ampm2") or "").lower()
    day = (m.group("day") or "").lower()
    if m.group("h1") and not ampm:
        return hour
    if ampm.startswith("p") or any(w in day for w in ("afternoon", "evening", "night")):
        return hour % 12 + 12
    if ampm.startswith("a") or "morning" in day:
        return hour % 12
    # No marker: people mostly mean 7-11 in the morning and 12-6 in the day.
    return hour if 7 <= hour <= 12 else hour + 12


def part_of_day(hour: int) -> str:
    """Coarse part of day for a 24-hour ``hour``."""
    if 5 <= hour < 8:
        return "early morning"
    if 8 <= hour < 12:
        return "morning"
    if 12 <= hour < 14:
        return "midday"
    if 14 <= hour < 18:
        return "afternoon"
    if 18 <= hour < 22:
        return "evening"
    return "night"
