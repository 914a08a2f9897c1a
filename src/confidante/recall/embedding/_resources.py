"""Reading vendored model files, and the small numeric helpers the embedders share."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from importlib import resources
from typing import TypeVar

import numpy as np

_DATA = "data"
T = TypeVar("T")


def once_per_process(load: Callable[[], T]) -> Callable[[], T]:
    """`load()` made by its first caller and shared by every later one: every Memory opened
    in a process reads one read-only copy of a model. The lock keeps two threads from
    reading and checking the same files twice."""
    lock = threading.Lock()
    made: list[T] = []

    def get() -> T:
        with lock:
            if not made:
                made.append(load())
            return made[0]

    return get


def data_bytes(*parts: str) -> bytes:
    """The bytes of a file under ``confidante/embedding/data``."""
    node = resources.files("confidante.recall.embedding").joinpath(_DATA)
    for part in parts:
        node = node.joinpath(part)
    return node.read_bytes()


def check_sha256(blob: bytes, expected: str, what: str) -> None:
    """Refuse a model file that is not the one this code was written and measured for."""
    actual = hashlib.sha256(blob).hexdigest()
    if actual != expected:
        raise RuntimeError(f"{what}: sha256 {actual} does not match the pinned {expected}")


def l2_normalise(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32; all-zero rows stay zero."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    np.maximum(norms, np.float32(1e-12), out=norms)
    return np.ascontiguousarray(rows / norms, dtype=np.float32)
