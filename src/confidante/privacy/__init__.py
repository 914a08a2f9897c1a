"""Privacy: find T3 data and identifiers in text, redact them, generalise for everyone."""

from .detectors import classify, redact
from .findings import IDENTIFIER_CATEGORIES, T3_CATEGORIES, Finding
from .generalise import Change, Generalised, generalise

__all__ = [
    "IDENTIFIER_CATEGORIES",
    "T3_CATEGORIES",
    "Change",
    "Finding",
    "Generalised",
    "classify",
    "generalise",
    "redact",
]
