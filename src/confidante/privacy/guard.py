"""The privacy guard: every write path (facts, their metadata, imports, public stats)
passes through here before anything is encrypted or stored.

Tiers: T3 (secrets, contact details, addresses, government ids, account numbers) is refused,
or redacted if the deployment chose `redact`. Text every audience can read (the `global`
scope, the T1 stats) must also be free of identifiers: they are generalised where that is
possible ("6am" -> "early morning") and refused where it is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import IdentifierRefused, PrivateDataRefused
from ..model import Scope
from . import IDENTIFIER_CATEGORIES, T3_CATEGORIES, classify, generalise, redact

Mode = Literal["refuse", "redact"]


@dataclass(frozen=True, slots=True)
class Guarded:
    text: str
    changes: tuple[str, ...] = ()  # e.g. "redacted email", "generalised exact_time"


def t3_categories(text: str) -> list[str]:
    return sorted({f.category for f in classify(text) if f.category in T3_CATEGORIES})


def check_text(text: str, scope: Scope, mode: Mode = "refuse") -> Guarded:
    """Decide what of `text` may be stored in `scope`. Raises PrivateDataRefused."""
    findings = classify(text)
    t3 = [f for f in findings if f.category in T3_CATEGORIES]
    changes: list[str] = []
    if t3:
        if mode != "redact":
            raise PrivateDataRefused([f.category for f in t3])
        text = redact(text, t3)
        changes += [f"redacted {c}" for c in sorted({f.category for f in t3})]
    if scope is Scope.GLOBAL:
        g = generalise(text)
        if g.remaining:
            raise IdentifierRefused([f.category for f in g.remaining])
        text = g.text
        changes += [
            f"generalised {c.category} to '{c.replacement}'"
            if c.replacement
            else f"removed {c.category}"
            for c in g.changes
        ]
    return Guarded(text, tuple(changes))


def check_label(value: str | None, what: str) -> None:
    """Metadata (kind, source skill, pattern triggers) is stored in plaintext, so it must hold
    neither T3 data nor identifiers."""
    if value is None:
        return
    cats = {f.category for f in classify(value)}
    if cats & T3_CATEGORIES:
        raise PrivateDataRefused(sorted(cats & T3_CATEGORIES))
    if cats & IDENTIFIER_CATEGORIES:
        raise IdentifierRefused(sorted(cats & IDENTIFIER_CATEGORIES))


def public_text(value: str) -> str:
    """For the T1 store: generalise what can be, refuse T3 and what cannot."""
    if t3 := t3_categories(value):
        raise PrivateDataRefused(t3)
    g = generalise(value)
    if g.remaining:
        raise IdentifierRefused([f.category for f in g.remaining])
    return g.text
