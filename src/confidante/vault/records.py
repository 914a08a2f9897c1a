"""Fact <-> stored row. The row carries keyed metadata; everything readable (text, raw
ids) travels inside the ciphertext, sealed under the partition's data key."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

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


def seal_fact(
    dk: bytes,
    row: FactRow,
    fact: Fact,
    vector: np.ndarray | None = None,
    embedder: str | None = None,
) -> FactRow:
    """Return `row` with the ciphertext of `fact` (and its embedding, if any, with the name of
    the embedder that made it: vectors of another model are never compared)."""
    payload: dict[str, object] = {
        "t": fact.text,
        "s": fact.subject,
        "c": fact.community,
        "a": fact.author,
        "o": fact.origin,
    }
    if vector is not None:
        payload["v"] = vector.astype(np.float16).tobytes().hex()
        if embedder is not None:
            payload["e"] = embedder
    blob = json.dumps(payload, separators=(",", ":")).encode()
    aad = fact_aad(row.partition_id, row.id, row.origin_kind, row.origin_key)
    return replace(row, ciphertext=seal(dk, blob, aad))


def open_fact(dk: bytes, row: FactRow) -> tuple[Fact, np.ndarray | None, str | None]:
    """The fact sealed in `row`, its embedding if one was stored, and the embedder that made
    it (None for vectors stored before that was recorded)."""
    aad = fact_aad(row.partition_id, row.id, row.origin_kind, row.origin_key)
    payload = json.loads(open_sealed(dk, row.ciphertext, aad))
    fact = Fact(
        id=row.id,
        scope=scope_of(row.partition_id),  # from the authenticated partition id, not a column
        text=payload["t"],
        subject=payload.get("s"),
        community=payload.get("c"),
        origin=payload.get("o") or row.origin_kind,
        author=payload.get("a"),
        tier=Tier(row.tier),
        kind=row.kind,
        source_skill=row.source_skill,
        confidence=row.confidence,
        created_at=from_ms(row.created_at),
        updated_at=from_ms(row.updated_at),
        expires_at=from_ms(row.expires_at),
    )
    vec = payload.get("v")
    vector = np.frombuffer(bytes.fromhex(vec), dtype=np.float16) if vec else None
    return fact, vector, payload.get("e") if vec else None
