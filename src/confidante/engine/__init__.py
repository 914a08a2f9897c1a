"""The engine: every rule-bearing operation (remember, recall, get, update, forget, list, the
logs), in one class built from small parts: `core` (state, opening, logs, stats), `reads`,
`writes`, `people` (shared spaces and the people directory), `keys` (where the master key
comes from) and `parts` (checks and helpers). `confidante.Memory` is this engine plus the
services built on it."""

from .core import Engine
from .keys import key_file_path, master_key_source, resolve_master_key
from .parts import (
    EPOCH,
    HISTORY_KEPT,
    MAX_TEXT_CHARS,
    MAX_TTL,
    default_rankers,
    partition_ref,
    same_sentence,
)

__all__ = [
    "EPOCH",
    "HISTORY_KEPT",
    "MAX_TEXT_CHARS",
    "MAX_TTL",
    "Engine",
    "default_rankers",
    "key_file_path",
    "master_key_source",
    "partition_ref",
    "resolve_master_key",
    "same_sentence",
]
