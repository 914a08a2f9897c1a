"""A fact's reading: what keyword recall reads out of its text, made once, when it is sealed.

Loading a partition used to read every text again: tell its language, fold and stem its
words, find its speaker and its questions, parse the newest-truth claim it states
(`supersession.claim`). That is most of a cold load's time, and it is the same every time:
it depends on the text alone. So it is made when the fact is sealed (`vault.records` calls
`read_text` for every fact it seals, whoever writes it) and kept inside the ciphertext with
the text; the index reads it back instead of the text (`PartitionIndex`).

A reading is versioned (`VERSION`): when the analysis changes what a text reads as (a new
stop word, another stemmer, a new claim phrasing), the version goes up and older readings
are ignored at load, their texts read as before, until `cleanup` seals them again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..vault import records
from .analysis import asking, speaker, terms
from .supersession import Claim, claim

__all__ = ["VERSION", "Reading", "read", "read_text", "sealed_reading"]

# Raise when `analysis.terms`, `analysis.speaker`, `analysis.asking` or `supersession.claim`
# read a text differently than before.
VERSION = 1


@dataclass(frozen=True, slots=True)
class Reading:
    """What the index needs of one fact's text."""

    terms: Mapping[str, int]  # keyword terms and how often each occurs
    spoken: tuple[str, ...]  # the distinct terms of its speaker's name, for a transcript line
    asks: float  # the share of what is said that is a question (`analysis.asking`)
    claim: Claim | None  # the changing attribute it states (`supersession.claim`)

    @property
    def length(self) -> int:
        return sum(self.terms.values())


def read(text: str, *, memo: bool = True, claims: bool = True) -> Reading:
    """The reading of `text`. `memo=False` stems without the stem memo: a text read to be
    sealed leaves none of its words in process memory (`analysis.forget_words`).
    `claims=False` leaves its claim unread (None)."""
    line = speaker(text)
    spoken = () if line is None else tuple(dict.fromkeys(terms(line[0], memo=memo)))
    return Reading(
        terms=Counter(terms(text, memo=memo)),
        spoken=spoken,
        asks=asking(text if line is None else line[1]),
        claim=claim(text) if claims else None,
    )


def read_text(text: str) -> dict[str, Any]:
    """`text`'s reading as the JSON object sealed with it."""
    r = read(text, memo=False)
    out: dict[str, Any] = {"v": VERSION, "w": dict(r.terms)}
    if r.spoken:
        out["p"] = list(r.spoken)
    if r.asks:
        out["q"] = r.asks
    if r.claim is not None:
        c = r.claim
        out["c"] = [c.holder, c.attribute, c.value, int(c.wildcard), int(c.past)]
    return out


def sealed_reading(sealed: Mapping[str, Any] | None) -> Reading | None:
    """The reading sealed with a fact; None when there is none, or it was made by another
    version of the analysis (then the text is read again)."""
    if not sealed or sealed.get("v") != VERSION:
        return None
    c = sealed.get("c")
    return Reading(
        terms=sealed["w"],
        spoken=tuple(sealed.get("p") or ()),
        asks=float(sealed.get("q") or 0.0),
        claim=None if c is None else Claim(c[0], c[1], c[2], bool(c[3]), bool(c[4])),
    )


records.use_reader(read_text)
