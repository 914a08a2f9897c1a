"""Filters on what a reader already may see: `recall(..., filters=)`, `list(..., filters=)`.

A filter only ever narrows: it is applied after the read rule, to the facts a context may
see, and it names nothing about scope or identity. Its keys are a fact's `kind`,
`source_skill`, `created_at`, `updated_at`, and the app's own metadata (`metadata.<key>`,
or a bare key that is none of the others). A value is matched by equality, or by an
operator object: `{"$in": [...]}`, `{"$nin": [...]}`, `{"$ne": v}`, and for the times
`{"$gte" | "$gt" | "$lte" | "$lt": ISO 8601 or datetime}` (Mem0's spellings without `$`
are read too). Several keys must all match; `{"$and": [...]}` and `{"$or": [...]}` combine
filters. Anything else is an error (`invalid_filter`), never a filter silently ignored."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..errors import InvalidFilter
from ..model import Fact

Predicate = Callable[[Fact], bool]

_FIELDS = ("kind", "source_skill")
_TIMES = ("created_at", "updated_at")
_OPS = ("in", "nin", "ne", "eq", "gte", "gt", "lte", "lt")
_MISSING = object()
MAX_CLAUSES = 64


def compile_filters(spec: Mapping[str, Any] | None) -> Predicate | None:
    """A predicate over facts for `spec`; None when there is nothing to filter on."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise InvalidFilter("filters must be a JSON object")
    if not spec:
        return None
    budget = [MAX_CLAUSES]
    return _all(spec, budget)


def _all(spec: Mapping[str, Any], budget: list[int]) -> Predicate:
    checks = [_clause(str(k), v, budget) for k, v in spec.items()]
    return lambda f: all(c(f) for c in checks)


def _clause(key: str, value: Any, budget: list[int]) -> Predicate:
    budget[0] -= 1
    if budget[0] < 0:
        raise InvalidFilter(f"filters hold more than {MAX_CLAUSES} conditions")
    word = key.lstrip("$").upper()
    if word in ("AND", "OR") and key.upper() in ("$AND", "AND", "$OR", "OR"):
        if not isinstance(value, Sequence) or isinstance(value, str) or not value:
            raise InvalidFilter(f"{key} takes a non-empty list of filters")
        parts = []
        for part in value:
            if not isinstance(part, Mapping) or not part:
                raise InvalidFilter(f"{key} takes a non-empty list of filters")
            parts.append(_all(part, budget))
        if word == "AND":
            return lambda f: all(p(f) for p in parts)
        return lambda f: any(p(f) for p in parts)
    if key in _TIMES:
        return _time(key, value)
    read = _reader(key)
    if isinstance(value, Mapping):
        checks = [_op(key, str(op), arg, read) for op, arg in value.items()]
        if not checks:
            raise InvalidFilter(f"the filter on {_shown(key)} is empty")
        return lambda f: all(c(f) for c in checks)
    _scalar(key, value)
    return lambda f: read(f) == value


def _reader(key: str) -> Callable[[Fact], Any]:
    if key in _FIELDS:
        return lambda f: getattr(f, key)
    name = key[len("metadata.") :] if key.startswith("metadata.") else key
    if not name:
        raise InvalidFilter("a metadata filter names a key")
    return lambda f: f.metadata.get(name, _MISSING)


def _op(key: str, op: str, arg: Any, read: Callable[[Fact], Any]) -> Predicate:
    name = op.lstrip("$").lower()
    if name not in _OPS:
        raise InvalidFilter(f"unknown operator in the filter on {_shown(key)}")
    if name in ("in", "nin"):
        if not isinstance(arg, Sequence) or isinstance(arg, str):
            raise InvalidFilter(f"${name} on {_shown(key)} takes a list")
        for a in arg:
            _scalar(key, a)
        values = list(arg)
        if name == "in":
            return lambda f: read(f) in values
        return lambda f: read(f) not in values
    _scalar(key, arg)
    if name == "eq":
        return lambda f: read(f) == arg
    if name == "ne":
        return lambda f: read(f) != arg
    return _compare(name, read, arg, key)


def _compare(name: str, read: Callable[[Fact], Any], arg: Any, key: str) -> Predicate:
    if isinstance(arg, bool) or not isinstance(arg, int | float | str):
        raise InvalidFilter(f"${name} on {_shown(key)} takes a number or a string")

    number = not isinstance(arg, str)

    def check(f: Fact) -> bool:
        v = read(f)
        if number:  # numbers compare with numbers (never a bool), strings with strings
            comparable = isinstance(v, int | float) and not isinstance(v, bool)
        else:
            comparable = isinstance(v, str)
        if not comparable:
            return False
        return {"gte": v >= arg, "gt": v > arg, "lte": v <= arg, "lt": v < arg}[name]

    return check


def _time(key: str, value: Any) -> Predicate:
    if not isinstance(value, Mapping) or not value:
        raise InvalidFilter(f"{key} takes a range: {{'$gte': ..., '$lt': ...}}")
    bounds = []
    for op, arg in value.items():
        name = str(op).lstrip("$").lower()
        if name not in ("gte", "gt", "lte", "lt"):
            raise InvalidFilter(f"{key} takes $gte, $gt, $lte or $lt")
        bounds.append((name, _when(key, arg)))

    def check(f: Fact) -> bool:
        t = getattr(f, key)
        if t is None:
            return False
        return all(
            {"gte": t >= b, "gt": t > b, "lte": t <= b, "lt": t < b}[name] for name, b in bounds
        )

    return check


def _when(key: str, arg: Any) -> datetime:
    if isinstance(arg, datetime):
        return arg if arg.tzinfo else arg.replace(tzinfo=UTC)
    if isinstance(arg, str):
        try:
            t = datetime.fromisoformat(arg.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidFilter(f"{key} bounds are ISO 8601 times") from None
        return t if t.tzinfo else t.replace(tzinfo=UTC)
    raise InvalidFilter(f"{key} bounds are ISO 8601 times")


def _scalar(key: str, value: Any) -> None:
    if value is not None and not isinstance(value, str | int | float | bool):
        raise InvalidFilter(
            f"the filter on {_shown(key)} compares with a string, number, bool or null"
        )


def _shown(key: str) -> str:
    """How an error names a filter's key: our own field names as they are, an app's metadata
    key never (it is the caller's text, and may be anything)."""
    return key if key in _FIELDS or key in _TIMES else "a metadata key"


__all__ = ["InvalidFilter", "Predicate", "compile_filters"]
