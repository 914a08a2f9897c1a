"""What every part of the engine shares: the store, the keys, the settings, the owners, the
cache of decrypted partitions and the ranking pipeline (set by `Engine.__init__`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Settings
    from ..recall.cache import PartitionCache
    from ..recall.ranking import Pipeline
    from ..store import Store
    from ..vault.keyring import Keyring


class State:
    """The attributes the engine's parts read (see `Engine.__init__`)."""

    store: Store
    settings: Settings
    owners: frozenset[str]
    owner_source: str | None
    clock: Callable[[], datetime]
    keys: Keyring
    cache: PartitionCache
    pipeline: Pipeline
    _owner_order: tuple[str, ...]
    _lock: threading.RLock
    _names_noted: dict[tuple[str | None, str, str], datetime]
