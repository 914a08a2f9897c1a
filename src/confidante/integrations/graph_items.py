"""LangGraph items as confidante facts, and back.

An item's searchable text is the fact's text, so recall finds it as it finds anything
said ("allergic to peanuts" for "allergies"): the value's one string, or its strings with
their fields (`name: Ada; food: sushi`), or the fields `index=[...]` names. Where the item
is, its key and its whole value (as JSON) ride in the fact's metadata, sealed with the text
and checked by the same guard. A value too large for metadata keeps its JSON as the text
instead (found by its words, less well by meaning). Items written before this (the whole
item as JSON text) still read."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfidanteError, InvalidInput
from ..model import Fact, Scope
from ..privacy.metadata import MAX_BYTES
from .graph_places import WORDS, Place

KIND = "langgraph"
META = "langgraph"  # the metadata key an item's place, key and value live under


@dataclass(frozen=True, slots=True)
class StoredItem:
    """One item read back from its fact."""

    fact: Fact
    place: Place
    key: str
    value: dict[str, Any]
    indexed: bool = True


def encode(
    place: Place, key: str, value: Mapping[str, Any], index: Any = None
) -> tuple[str, dict[str, Any]]:
    """(the fact's text, its metadata) for one item."""
    if not isinstance(key, str) or not key:
        raise InvalidInput("an item's key is a non-empty string")
    try:
        plain = json.loads(json.dumps(dict(value), ensure_ascii=False))
        as_json = json.dumps(plain, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        raise InvalidInput("an item's value is a JSON object") from None
    where: dict[str, Any] = {"root": place.root, "path": list(place.folders), "key": key}
    if place.where.startswith("shared:"):
        where["space"] = place.where[len("shared:") :]
    if index is False:
        where["indexed"] = False
    text = searchable(plain, index) or as_json
    meta = {META: {**where, "value": as_json}}
    if _size(meta) > MAX_BYTES:  # too large to ride along: the value is the text
        return as_json, {META: where}
    return text, meta


def searchable(value: dict[str, Any], index: Any = None) -> str:
    """The words an item is found by: the fields `index` names (LangGraph's paths), else
    every string in the value; one string as it is, several with their fields."""
    if isinstance(index, list | tuple) and index:
        from langgraph.store.base.embed import get_text_at_path

        texts = [t for path in index for t in get_text_at_path(value, str(path)) if t.strip()]
        return "; ".join(texts)
    pairs = [(path, text) for path, text in _strings(value, "") if text.strip()]
    if len(pairs) == 1:
        return pairs[0][1].strip()
    return "; ".join(f"{path}: {text.strip()}" for path, text in pairs)


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, path)


def _size(meta: Mapping[str, Any]) -> int:
    return len(json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode())


def decode(f: Fact) -> StoredItem | None:
    """The item a fact holds, or None (not an item, or unreadable)."""
    if f.kind != KIND:
        return None
    meta = f.metadata.get(META) if isinstance(f.metadata, Mapping) else None
    try:
        if isinstance(meta, Mapping):
            return _decode(f, meta)
        return _decode_text(f)
    except (ConfidanteError, ValueError, TypeError, KeyError):
        return None


def _decode(f: Fact, meta: Mapping[str, Any]) -> StoredItem | None:
    raw = meta.get("value", f.text)
    value = json.loads(raw)
    if not isinstance(value, dict):
        return None
    root = meta.get("root")
    where = _where(f, meta.get("space"))
    place = Place(
        where,
        f.subject if f.scope is Scope.USER else None,
        str(root) if root is not None else None,
        tuple(str(p) for p in meta.get("path") or ()),
    )
    return StoredItem(f, place, str(meta["key"]), value, meta.get("indexed", True) is not False)


def _decode_text(f: Fact) -> StoredItem | None:
    """An item written before metadata: the whole item as JSON text. The oldest kept the
    whole namespace (`ns`); its scope words are dropped, the fact knows its place."""
    d = json.loads(f.text)
    if not isinstance(d, dict) or not isinstance(d.get("value"), dict):
        return None
    if isinstance(d.get("path"), list):
        folders = tuple(str(p) for p in d["path"])
    else:
        ns = [str(p) for p in d.get("ns") or ()]
        if not ns or (ns[0] not in WORDS and ns[0] != "user"):
            return None
        folders = tuple(ns[2:] if ns[0] == "user" and len(ns) > 1 else ns[1:])
    subject = f.subject if f.scope is Scope.USER else None
    place = Place(_where(f, None), subject, None, folders)
    return StoredItem(f, place, str(d.get("key")), d["value"])


def _where(f: Fact, space: object) -> str:
    if f.scope.value == "shared":
        return f"shared:{space or ''}"
    return f.scope.value


def locator(place: Place, key: str) -> str:
    """An item's own name, added to its text when another fact in the same place says the
    same words (the engine keeps one fact per sentence said in a place)."""
    return "/".join([*([place.root] if place.root else []), *place.folders, key])


__all__ = ["KIND", "META", "StoredItem", "decode", "encode", "locator", "searchable"]
