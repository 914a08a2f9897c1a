"""``classify`` runs the detectors a caller needs; ``redact`` blanks what they found.

Every detector reads the folded text (``normalise.fold``); findings are mapped back to the
original. A scoped partition only needs the T3 detectors (``T3_CATEGORIES``); text every
audience reads needs the identifier detectors too, so callers name the categories they will
act on and only those detectors run.

Pure functions: the only I/O is loading the bundled word lists once, at first use.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass

from . import (
    accounts,
    actors,
    addresses,
    answers,
    codes,
    contact,
    credentials,
    everyday,
    handles,
    keys,
    names,
    places,
    seeds,
    spelled,
    times,
)
from .findings import ALL_CATEGORIES, IDENTIFIER_CATEGORIES, T3_CATEGORIES, Finding
from .normalise import fold

__all__ = [
    "DETECTORS",
    "IDENTIFIER_CATEGORIES",
    "T3_CATEGORIES",
    "Detector",
    "Finding",
    "classify",
    "classify_folded",
    "redact",
]

# When spans overlap, the earlier category wins: a password inside a URL is a credential,
# not an email; a postcode inside a street address is part of the address.
PRIORITY: tuple[str, ...] = (
    "credential",
    "financial_account",
    "gov_id",
    "email",
    "phone",
    "street_address",
    "actor_id",
    "username",
    "home_path",
    "fine_geo",
    "exact_time",
    "person_name",
)
_RANK = {category: rank for rank, category in enumerate(PRIORITY)}


@dataclass(frozen=True, slots=True)
class Detector:
    """One detector: its name (for the cost report), what it finds, and the function."""

    name: str
    category: str
    find: Callable[[str], Iterator[Finding]]


DETECTORS: tuple[Detector, ...] = (
    Detector("credentials", "credential", credentials.find),
    Detector("credentials_intl", "credential", credentials.find_multilingual),
    Detector("pins_and_codes", "credential", credentials.find_pins),
    Detector("security_answers", "credential", answers.find),
    Detector("everyday_secrets", "credential", everyday.find),
    Detector("codes_and_logins", "credential", codes.find),
    Detector("crypto_keys", "credential", keys.find),
    Detector("seed_phrases", "credential", seeds.find),
    Detector("financial_accounts", "financial_account", accounts.find_financial),
    Detector("government_ids", "gov_id", accounts.find_gov_ids),
    Detector("emails", "email", contact.find_emails),
    Detector("phones", "phone", contact.find_phones),
    Detector("street_addresses", "street_address", addresses.find),
    Detector("actor_ids", "actor_id", actors.find),
    Detector("usernames", "username", handles.find_usernames),
    Detector("home_paths", "home_path", handles.find_home_paths),
    Detector("places", "fine_geo", places.find),
    Detector("times", "exact_time", times.find),
    Detector("names", "person_name", names.find),
    Detector("names_zh", "person_name", names.find_chinese),
)
assert {d.category for d in DETECTORS} == ALL_CATEGORIES


def classify(text: str, categories: Collection[str] | None = None) -> list[Finding]:
    """Find T3 data and identifiers in ``text`` (only ``categories``, when given);
    non-overlapping, sorted by start, as spans of ``text`` itself."""
    if not text or not text.strip():
        return []
    folded = fold(text)
    found = classify_folded(folded.text, categories)
    if folded.origin is None:
        return found
    return [Finding(f.category, *folded.span(f.start, f.end)) for f in found]


def classify_folded(text: str, categories: Collection[str] | None = None) -> list[Finding]:
    """``classify`` on text already folded; spans are into that folded text."""
    wanted = ALL_CATEGORIES if categories is None else frozenset(categories)
    try:
        found = [
            f
            for d in DETECTORS
            if d.category in wanted
            for f in d.find(text)
            if f.end > f.start and f.category in wanted
        ]
    finally:
        spelled.forget()  # its memo of this text served these detectors only
    return _resolve(found)


def _merged(found: Iterable[Finding]) -> list[Finding]:
    """Overlapping T3 findings of one category as one: two readings of the same address
    ("Wohnung 5, 1010 Wien" and "1010 Wien, Österreich") are one address, redacted whole."""
    out: list[Finding] = []
    for f in sorted(set(found), key=lambda f: (f.category, f.start, -f.end)):
        last = out[-1] if out else None
        if (
            last is not None
            and last.category == f.category
            and f.category in T3_CATEGORIES
            and f.start < last.end
        ):
            out[-1] = Finding(f.category, last.start, max(last.end, f.end))
        else:
            out.append(f)
    return out


def _resolve(found: Iterable[Finding]) -> list[Finding]:
    kept: list[Finding] = []
    for f in sorted(_merged(found), key=lambda f: (_RANK[f.category], f.start - f.end, f.start)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return sorted(kept, key=lambda f: f.start)


def placeholder(category: str) -> str:
    return f"[{category.upper()}]"


def redact(text: str, findings: list[Finding]) -> str:
    """``text`` with every finding's span replaced by a placeholder such as ``[EMAIL]``."""
    out: list[str] = []
    cursor = 0
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if f.end <= cursor:
            continue  # wholly inside a span already replaced
        out.append(text[cursor : max(cursor, f.start)])
        if f.start >= cursor:
            out.append(placeholder(f.category))
        cursor = max(cursor, f.end)
    out.append(text[cursor:])
    return "".join(out)
