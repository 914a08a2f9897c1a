"""Fact <-> stored row. The row carries keyed metadata; everything readable (text, raw
ids) travels inside the ciphertext, sealed under the partition's data key."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ..model import Fact, Scope, Tier
from ..store import FactRow
from .crypto import open_sealed, seal
from .keyring import fact_aad


def scope_of(pid: str) -> Scope:
    """A partition id is `scope:key` (or just `owner` / `global`)."""
    return Scope(pid.partition(":")[0])


def to_ms(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def from_ms(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC)


# What the `kind` column of a row holds: a fact's kind and source skill travel inside the
# ciphertext, like its text (a label such as "hiv-test-results" says as much as a sentence).
SEALED_LABEL = "sealed"


@dataclass(frozen=True, slots=True)
class Opened:
    """Everything sealed in a row."""

    fact: Fact
    vector: np.ndarray | None = None
    # The embedder that made `vector` (None: stored before that was recorded); vectors of
    # another model are never compared.
    embedder: str | None = None
    # Facts of the same batch whose text this fact's vector was embedded with (before it),
    # and those embedded with this fact's text (after it): `embed_context`'s links, so a
    # forgotten line's meaning can be taken out of its neighbours' vectors.
    context: tuple[str, ...] = ()
    dependents: tuple[str, ...] = ()
    # The texts this fact had before its updates, oldest first, with when each was replaced
    # (epoch ms): `Memory.history`. Sealed with the fact, so forgetting it forgets them.
    history: tuple[tuple[int, str], ...] = ()
    # What recall reads out of the text (`recall.reading`), as sealed with it; None for a
    # row sealed before readings were kept.
    reading: dict[str, Any] | None = None


# How a text is read for recall (its terms, speaker, questions, claim: `recall.reading`, a
# layer above this one, registers it). Every fact sealed here gets its reading made from the
# very text it seals, so a reading can never belong to another version of the text.
TextReader = Callable[[str], dict[str, Any]]
_reader: list[TextReader] = []


def use_reader(reader: TextReader) -> None:
    """Read every text sealed from now on with `reader` (`recall.reading` calls this)."""
    _reader[:] = [reader]


def _aad(row: FactRow) -> bytes:
    return fact_aad(row.partition_id, row.id, row.origin_kind, row.origin_key)


def seal_fact(
    dk: bytes,
    row: FactRow,
    fact: Fact,
    vector: np.ndarray | None = None,
    *,
    embedder: str | None = None,
    context: tuple[str, ...] = (),
    dependents: tuple[str, ...] = (),
    history: tuple[tuple[int, str], ...] = (),
) -> FactRow:
    """Return `row` with the ciphertext of `fact` (and its embedding, with the name of the
    embedder that made it, and links, if any)."""
    payload: dict[str, object] = {
        "t": fact.text,
        "s": fact.subject,
        "c": fact.community,
        "a": fact.author,
        "o": fact.origin,
        "k": fact.kind,
        "sk": fact.source_skill,
    }
    if vector is not None:  # float16, base64 (rows sealed before: hex, under "v")
        payload["b"] = base64.b64encode(vector.astype(np.float16).tobytes()).decode("ascii")
        if embedder is not None:
            payload["e"] = embedder
    if context:
        payload["x"] = list(context)
    if dependents:
        payload["d"] = list(dependents)
    if fact.metadata:
        payload["m"] = dict(fact.metadata)
    if fact.space:
        payload["sp"] = fact.space
    if history:
        payload["h"] = [[at, text] for at, text in history]
    if _reader:
        payload["r"] = _reader[0](fact.text)
    blob = json.dumps(payload, separators=(",", ":")).encode()
    return replace(row, ciphertext=seal(dk, blob, _aad(row)), kind=SEALED_LABEL, source_skill=None)


def reencrypt(old_dk: bytes, new_dk: bytes, row: FactRow) -> bytes:
    """The same sealed content under another data key (a partition re-key)."""
    return seal(new_dk, open_sealed(old_dk, row.ciphertext, _aad(row)), _aad(row))


def open_fact(dk: bytes, row: FactRow) -> tuple[Fact, np.ndarray | None]:
    """The fact sealed in `row`, and its embedding if one was stored."""
    opened = open_record(dk, row)
    return opened.fact, opened.vector


def open_record(dk: bytes, row: FactRow) -> Opened:
    """Everything sealed in `row`."""
    payload = json.loads(open_sealed(dk, row.ciphertext, _aad(row)))
    fact = Fact(
        id=row.id,
        scope=scope_of(row.partition_id),  # from the authenticated partition id, not a column
        text=payload["t"],
        subject=payload.get("s"),
        community=payload.get("c"),
        origin=payload.get("o") or row.origin_kind,
        author=payload.get("a"),
        tier=Tier(row.tier),
        # rows written before labels were sealed keep them in their columns
        kind=payload.get("k") or row.kind,
        source_skill=payload["sk"] if "k" in payload else row.source_skill,
        confidence=row.confidence,
        created_at=from_ms(row.created_at),
        updated_at=from_ms(row.updated_at),
        expires_at=from_ms(row.expires_at),
        metadata=payload.get("m") or {},
        space=payload.get("sp"),
    )
    vec = payload.get("b")
    vector = None
    if vec:
        vector = np.frombuffer(base64.b64decode(vec), dtype=np.float16)
    elif vec := payload.get("v"):
        vector = np.frombuffer(bytes.fromhex(vec), dtype=np.float16)
    return Opened(
        fact,
        vector,
        payload.get("e") if vec else None,
        tuple(payload.get("x") or ()),
        tuple(payload.get("d") or ()),
        tuple((int(at), str(text)) for at, text in payload.get("h") or ()),
        payload.get("r"),
    )
