"""An app's own metadata on a fact (`remember(..., metadata={...})`): a small JSON object,
sealed with the text, so the privacy guard reads it as it reads the text.

Every string in it, keys included, is checked like the fact's text for its scope (T3
refused, or redacted in `redact` mode; in global memory identifiers too), and the object is
bounded in size and depth, so metadata can never carry what the text may not."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..model import Scope
from .guard import Mode, check_text

MAX_BYTES = 4096  # serialised, UTF-8
MAX_DEPTH = 4
MAX_KEY_CHARS = 64


def check_metadata(
    metadata: Mapping[str, Any] | None, scope: Scope, mode: Mode = "refuse"
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The metadata as it may be stored in `scope` (a plain JSON object), and what the
    guard changed in it. Raises InvalidInput for what is not a small JSON object, and
    PrivateDataRefused / IdentifierRefused as for text (naming the category, never the
    value)."""
    if metadata is None:
        return {}, ()
    if not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a JSON object (a mapping of string keys)")
    plain = _plain(metadata, 0)
    size = len(json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_BYTES:
        raise InvalidInput(f"metadata is larger than {MAX_BYTES} bytes as JSON")
    changes: list[str] = []
    clean = _guarded(plain, scope, mode, changes)
    return clean, tuple(dict.fromkeys(changes))


def _plain(value: Any, depth: int) -> Any:
    """A JSON-native copy of `value`, its shape checked (before any string is read)."""
    if depth > MAX_DEPTH:
        raise InvalidInput(f"metadata nests deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool | int | str):
        if isinstance(value, str) and ("\x00" in value or not _encodable(value)):
            raise InvalidInput("metadata strings must be valid Unicode without NUL")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput("metadata numbers must be finite")
        return value
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str) or not k.strip() or len(k) > MAX_KEY_CHARS:
                raise InvalidInput(
                    f"metadata keys must be non-empty strings of at most {MAX_KEY_CHARS} characters"
                )
            out[_plain(k, depth)] = _plain(v, depth + 1)
        return out
    raise InvalidInput("metadata must be JSON: strings, numbers, booleans, null, lists, objects")


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _guarded(value: Any, scope: Scope, mode: Mode, changes: list[str]) -> Any:
    if isinstance(value, str):
        if not value.strip():
            return value
        guarded = check_text(value, scope, mode)
        changes.extend(f"metadata: {c}" for c in guarded.changes)
        return guarded.text
    if isinstance(value, list):
        return [_guarded(v, scope, mode, changes) for v in value]
    if isinstance(value, dict):
        # a key is refused, never rewritten (two keys must not become one)
        return {
            _guarded(k, scope, "refuse", changes): _guarded(v, scope, mode, changes)
            for k, v in value.items()
        }
    return value


__all__ = ["MAX_BYTES", "check_metadata"]
