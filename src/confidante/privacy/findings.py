"""The values every detector returns: a category and a span, never the text itself."""

from __future__ import annotations

from dataclasses import dataclass

# T3: never stored anywhere (design invariant 6).
T3_CATEGORIES = frozenset(
    {"credential", "email", "phone", "street_address", "gov_id", "financial_account"}
)
# Identifiers: allowed in private scopes, but not in text every audience reads (invariant 7).
IDENTIFIER_CATEGORIES = frozenset(
    {"actor_id", "person_name", "username", "home_path", "exact_time", "fine_geo"}
)
ALL_CATEGORIES = T3_CATEGORIES | IDENTIFIER_CATEGORIES


@dataclass(frozen=True, slots=True)
class Finding:
    """A detected span. Holds offsets only, so its repr can never leak the value."""

    category: str
    start: int
    end: int
