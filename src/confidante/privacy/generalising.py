"""Make text fit for every audience: coarsen identifiers, or report what could not be.

Exact times become parts of the day, sub-city places their city (or a plain description),
handles "someone", home paths "a home folder". Names cannot be generalised without losing
the fact, and T3 data must be refused, so both are reported in ``remaining``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..lazy_patterns import compile_on_use
from . import actors, places, times
from .detectors import classify, placeholder
from .findings import T3_CATEGORIES, Finding
from .normalise import without_disguise


@dataclass(frozen=True)
class Change:
    """One generalisation made. ``replacement`` is the new text, never the original value."""

    category: str
    replacement: str


@dataclass(frozen=True)
class Generalised:
    """The generalised text, what changed, and findings still in it (spans into ``text``).

    T3 spans are replaced by placeholders and still listed in ``remaining``: the caller
    must refuse such text, not store the placeholder version.
    """

    text: str
    changes: list[Change] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)


_CJK = compile_on_use(r"[\u3040-\u30ff\u4e00-\u9fff]")
_AT_LIKE = compile_on_use(r"\b(?:at|around|about|round)\s+$", re.I)
_OTHER_PREP = compile_on_use(r"\b(?:by|before|after|until|till|since|from|for|to)\s+$", re.I)
_THE = compile_on_use(r"\bthe\s+$", re.I)
_CORNER_OF = compile_on_use(r"\b(?:the\s+)?corner\s+of\s+$", re.I)
# A coarser place right after a neighbourhood: "Brooklyn, New York", "Capitol Hill in Seattle".
_COARSER_AFTER = compile_on_use(r"(?:,\s*|\s+in\s+)(?=[A-Z])")
_TIME_AFTER_AT = {
    "early morning": "early in the morning",
    "morning": "in the morning",
    "midday": "around midday",
    "afternoon": "in the afternoon",
    "evening": "in the evening",
    "night": "at night",
}
_PREP_IN_LANGUAGE = compile_on_use(
    r"(?:(?P<de>\b(?:um|gegen|ab|bis|von))|(?P<fr>(?<!\w)(?:à|vers|dès|avant|après|jusqu['\u2019]à))"
    r"|(?P<es>\b(?:a|hacia|sobre|desde|hasta|antes\s+de|después\s+de)\s+las?))\s+$",
    re.I,
)
_ZH_DAYPART_BEFORE = compile_on_use(rf"(?:{times.ZH_DAYPART})\s*$")
_PARTS = {
    "de": {
        "early morning": "frühmorgens", "morning": "vormittags", "midday": "mittags",
        "afternoon": "nachmittags", "evening": "abends", "night": "nachts",
    },
    "fr": {
        "early morning": "tôt le matin", "morning": "le matin", "midday": "vers midi",
        "afternoon": "l'après-midi", "evening": "le soir", "night": "la nuit",
    },
    "es": {
        "early morning": "temprano por la mañana", "morning": "por la mañana",
        "midday": "al mediodía", "afternoon": "por la tarde", "evening": "por la noche",
        "night": "por la noche",  # 22-5 h: "de madrugada" would be wrong before midnight
    },
    "zh": {
        "early morning": "清晨", "morning": "上午", "midday": "中午", "afternoon": "下午",
        "evening": "晚上", "night": "深夜",
    },
}  # fmt: skip
_TIME_AFTER_PREP = {
    "early morning": "early morning",
    "morning": "the morning",
    "midday": "midday",
    "afternoon": "the afternoon",
    "evening": "the evening",
    "night": "night",
}


def generalise(text: str) -> Generalised:
    """Return ``text`` without identifiers where they can be coarsened.

    Works on the text without invisible characters or look-alike letters
    (``normalise.without_disguise``): text every audience reads carries none."""
    clean = without_disguise(text)
    return generalise_findings(clean, classify(clean))


def generalise_findings(text: str, findings: list[Finding]) -> Generalised:
    """``generalise`` with the findings (every category) of ``text`` known."""
    out: list[str] = []
    changes: list[Change] = []
    remaining: list[Finding] = []
    cursor = 0
    length = 0  # characters already in ``out``

    for i, f in enumerate(findings):
        start, end, replacement = _replacement(text, f, findings[i + 1 :], cursor)
        head = text[cursor:start]
        out.append(head)
        length += len(head)
        if replacement is None:  # kept as it is: a name, or nothing sensible to say
            out.append(text[start:end])
            remaining.append(Finding(f.category, length, length + end - start))
            length += end - start
        else:
            out.append(replacement)
            if f.category in T3_CATEGORIES:
                remaining.append(Finding(f.category, length, length + len(replacement)))
            length += len(replacement)
            changes.append(Change(f.category, replacement))
        cursor = end
    out.append(text[cursor:])
    return Generalised("".join(out), changes, remaining)


def _replacement(
    text: str, f: Finding, later: list[Finding], floor: int
) -> tuple[int, int, str | None]:
    """(start, end, new text) for one finding; the span may widen to take a preposition."""
    if f.category in T3_CATEGORIES:
        return f.start, f.end, placeholder(f.category)
    if f.category == "username":
        return f.start, f.end, "someone"
    if f.category == "actor_id":
        generalisable = actors.generalisable(text[f.start : f.end])
        return f.start, f.end, "someone" if generalisable else None
    if f.category == "home_path":
        return f.start, f.end, "a home folder"
    if f.category == "exact_time":
        return _time(text, f, floor)
    if f.category == "fine_geo":
        return _place(text, f, later, floor)
    return f.start, f.end, None


def _time(text: str, f: Finding, floor: int) -> tuple[int, int, str | None]:
    if _CJK.search(text, max(floor, f.start - 3), min(len(text), f.end + 2)):
        return _time_zh(text, f, floor)
    hour = times.hour_at(text, f.start)
    if hour is None:
        return f.start, f.end, None
    part = times.part_of_day(hour)
    prep = _PREP_IN_LANGUAGE.search(text, floor, f.start)
    if prep:  # "um 5:45" -> "frühmorgens", "à 22h15" -> "le soir", "a las 6:20" -> ...
        language = next(lang for lang in ("de", "fr", "es") if prep.group(lang))
        return prep.start(), f.end, _PARTS[language][part]
    at = _AT_LIKE.search(text, floor, f.start)
    if at:
        return at.start(), f.end, _TIME_AFTER_AT[part]
    if _OTHER_PREP.search(text, floor, f.start):
        return f.start, f.end, _TIME_AFTER_PREP[part]
    return f.start, f.end, part


def _time_zh(text: str, f: Finding, floor: int) -> tuple[int, int, str | None]:
    """ "晚上9:45" -> "晚上", "早上7点20分" -> "早上", "16:30" -> "下午"."""
    daypart = _ZH_DAYPART_BEFORE.search(text, floor, f.start)
    start = daypart.start() if daypart else f.start
    hour = times.zh_hour(text[start : f.end])
    if hour is None:
        return f.start, f.end, None
    return start, f.end, _PARTS["zh"][times.part_of_day(hour % 24)]


def _place(text: str, f: Finding, later: list[Finding], floor: int) -> tuple[int, int, str | None]:
    value = text[f.start : f.end]
    if _CJK.search(value):
        return f.start, f.end, None  # no Chinese wording for the stand-ins: refused
    kind = places.kind_of(value)
    if kind == "unnamed":
        return f.start, f.end, None
    the = _THE.search(text, floor, f.start)
    start = the.start() if the else f.start
    if kind == "neighbourhood":
        # "in Brooklyn, New York" -> "in New York": a coarser place already follows. When
        # that one is fine too ("Williamsburg, Brooklyn") it gets generalised in turn.
        coarser = _COARSER_AFTER.match(text, f.end)
        if coarser:
            return start, coarser.end(), ""
        return start, f.end, places.city_of(value) or "a neighbourhood"
    if kind == "corner":
        corner = _CORNER_OF.search(text, floor, f.start)
        return (corner.start() if corner else f.start), f.end, "a street corner"
    return start if kind in places.WHOLE_NAME_KINDS else f.start, f.end, places.describe(kind)
