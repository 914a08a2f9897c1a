"""The privacy guard: every write path (facts, their metadata, imports, public stats)
passes through here before anything is encrypted or stored.

Tiers: T3 (secrets, contact details, addresses, government ids, account numbers) is refused,
or redacted if the deployment chose `redact`. Text every audience can read (the `global`
scope, the T1 stats) must also be free of identifiers: they are generalised where that is
possible ("6am" -> "early morning") and refused where it is not.

Each write classifies its text once, running only the detectors whose findings matter for
its scope: the T3 detectors for a scoped partition, every detector for public text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from ..errors import IdentifierRefused, InvalidInput, PrivateDataRefused
from ..lazy_patterns import compile_on_use
from ..model import Scope
from .findings import IDENTIFIER_CATEGORIES, T3_CATEGORIES
from .normalise import without_disguise

if TYPE_CHECKING:
    from .findings import Finding


def classify(text: str, categories: frozenset[str] | None = None) -> list[Finding]:
    """The detectors' `classify`, loaded when a text is first checked (not at import: a
    process that never writes never compiles them)."""
    from .detectors import classify as run

    return run(text, categories)


Mode = Literal["refuse", "redact"]

LABEL_MAX = 64
# Metadata labels (kind, source skill, T1 skill names): lower-case words, digits and single
# separators. No spaces, colons or at-signs, so no sentence, actor id or address fits.
_LABEL = compile_on_use(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
_SPACES = compile_on_use(r"\s+")


@dataclass(frozen=True, slots=True)
class Guarded:
    text: str
    changes: tuple[str, ...] = ()  # e.g. "redacted email", "generalised exact_time"


def t3_categories(text: str) -> list[str]:
    return sorted({f.category for f in classify(text, T3_CATEGORIES)})


def public_categories(text: str) -> list[str]:
    """Every category (T3 or identifier) found in text every audience reads: the audit's
    re-check of what is already stored there (stored public text was generalised on the
    way in, so whatever today's detectors still find is a finding)."""
    return sorted({f.category for f in classify(text)})


@lru_cache(maxsize=2048)
def public_text_ok(text: str) -> bool:
    """Whether stored public text (a pattern trigger) is still clean by today's detectors."""
    return not public_categories(text)


def public_label_ok(label: str) -> bool:
    """Whether a stored T1 label (a skill name) is still clean by today's detectors."""
    return not label_categories(label, public=True)


def label_categories(value: str | None, *, public: bool) -> list[str]:
    """T3 (and, for a public label, identifier) categories in a metadata label."""
    if value is None:
        return []
    t3, identifiers = _label_findings(value, public)
    return sorted({*t3, *identifiers})


def check_text(text: str, scope: Scope, mode: Mode = "refuse") -> Guarded:
    """Decide what of `text` may be stored in `scope`. Raises PrivateDataRefused (or its
    subclass IdentifierRefused for public text)."""
    if scope is Scope.GLOBAL:
        return _public(text, mode)
    t3 = classify(text, T3_CATEGORIES)
    if not t3:
        return Guarded(text)
    if mode != "redact":
        raise PrivateDataRefused([f.category for f in t3])
    from .detectors import redact

    found = sorted({f.category for f in t3})
    return Guarded(redact(text, t3), tuple(f"redacted {c}" for c in found))


def _public(text: str, mode: Mode) -> Guarded:
    """Text every audience reads: without invisible or look-alike characters, T3 refused
    (or redacted), identifiers generalised or refused."""
    # Detectors read the folded copy (classify maps their findings back onto `clean`).
    clean = without_disguise(text)
    findings = classify(clean)
    t3 = sorted({f.category for f in findings if f.category in T3_CATEGORIES})
    if t3 and mode != "redact":
        raise PrivateDataRefused(t3)
    from .generalising import generalise_findings

    g = generalise_findings(clean, findings)
    if left := [f.category for f in g.remaining if f.category not in T3_CATEGORIES]:
        raise IdentifierRefused(left)
    changes = [f"redacted {c}" for c in t3]
    changes += [
        f"generalised {c.category} to '{c.replacement}'"
        if c.replacement
        else f"removed {c.category}"
        for c in g.changes
        if c.category not in T3_CATEGORIES
    ]
    if clean != text and not changes:
        changes.append("removed invisible or look-alike characters")
    return Guarded(g.text, tuple(changes))


def public_text(value: str) -> str:
    """For the T1 store: generalise what can be, refuse T3 and what cannot."""
    return _public(value, "refuse").text


def check_label(value: str, what: str, *, public: bool = True) -> str:
    """A metadata label (kind, source skill, T1 skill name) must be a slug and hold no T3
    data; a label every audience reads (`public`) holds no identifiers either. Returns the
    label in its slug form (lower case, spaces as hyphens: "Web Search" -> "web-search");
    raises PrivateDataRefused, IdentifierRefused or InvalidInput (never echoing it)."""
    t3, identifiers = _label_findings(value, public)
    if t3:
        raise PrivateDataRefused(t3)
    if identifiers:
        raise IdentifierRefused(identifiers)
    slug = _SPACES.sub("-", value.strip()).lower()
    if len(slug) > LABEL_MAX or not _LABEL.fullmatch(slug):
        raise InvalidInput(
            f"{what} must be a label: letters a-z and digits, words joined by - _ or ., "
            f"at most {LABEL_MAX} characters"
        )
    return slug


@lru_cache(maxsize=2048)
def _label_findings(value: str, public: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Labels repeat (every fact of a batch, every call of a skill): classify each once."""
    # Separators read as spaces, so "mail-jane.doe" or "discord_42" are seen as words.
    spaced = value.replace("_", " ").replace("-", " ")
    wanted = T3_CATEGORIES | IDENTIFIER_CATEGORIES if public else T3_CATEGORIES
    cats = {f.category for f in classify(value, wanted)}
    if spaced != value:
        cats |= {f.category for f in classify(spaced, wanted)}
    return (
        tuple(sorted(cats & T3_CATEGORIES)),
        tuple(sorted(cats & IDENTIFIER_CATEGORIES)),
    )
