"""Privacy: find T3 data and identifiers in text, redact them, generalise for everyone.

The detectors (hundreds of patterns) load on first use: a process that only reads memory
(a CLI `recall`) never compiles them."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .findings import IDENTIFIER_CATEGORIES, T3_CATEGORIES, Finding

if TYPE_CHECKING:
    from .detectors import classify, redact
    from .generalising import Change, Generalised, generalise

_LAZY = {
    "classify": ".detectors",
    "redact": ".detectors",
    "Change": ".generalising",
    "Generalised": ".generalising",
    "generalise": ".generalising",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
