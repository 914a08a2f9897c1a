"""``classify`` runs every detector; ``redact`` blanks what it found.

Pure functions: the only I/O is loading the bundled word lists once, at first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from . import accounts, addresses, contact, credentials, handles, names, places, times
from .findings import IDENTIFIER_CATEGORIES, T3_CATEGORIES, Finding

__all__ = ["IDENTIFIER_CATEGORIES", "T3_CATEGORIES", "Finding", "classify", "redact"]

# When spans overlap, the earlier category wins: a password inside a URL is a credential,
# not an email; a postcode inside a street address is part of the address.
PRIORITY: tuple[str, ...] = (
    "credential",
    "financial_account",
    "gov_id",
    "email",
    "phone",
    "street_address",
    "username",
    "home_path",
    "fine_geo",
    "exact_time",
    "person_name",
)
_RANK = {category: rank for rank, category in enumerate(PRIORITY)}

_DETECTORS: tuple[Callable[[str], Iterator[Finding]], ...] = (
    credentials.find,
    accounts.find_financial,
    accounts.find_gov_ids,
    contact.find_emails,
    contact.find_phones,
    addresses.find,
    handles.find_usernames,
    handles.find_home_paths,
    places.find,
    times.find,
    names.find,
)


def classify(text: str) -> list[Finding]:
    """Find T3 data and identifiers in ``text``; non-overlapping, sorted by start."""
    if not text or not text.strip():
        return []
    found = [f for detect in _DETECTORS for f in detect(text) if f.end > f.start]
    return _resolve(found)


def _resolve(found: Iterable[Finding]) -> list[Finding]:
    kept: list[Finding] = []
    for f in sorted(set(found), key=lambda f: (_RANK[f.category], f.start - f.end, f.start)):
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
