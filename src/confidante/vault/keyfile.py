"""Master key files beside a database, and recovery from a rotation a crash interrupted.

Rotation writes the new key to `<key>.new` first, then the database re-wraps its data keys
in one transaction, then the new file replaces the old. Opening the database runs
`recover_key_file` first, so after a crash at any point the key file holds a key that works.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..store.sqlite import SQLiteStore
from .crypto import read_key_file
from .keyring import master_key_works


def pending_key_file(key_file: Path) -> Path:
    """Where a rotation writes the new key before the database commits to it."""
    return key_file.with_name(key_file.name + ".new")


def recover_key_file(db: Path, key_file: Path) -> None:
    """Finish or undo a rotation interrupted by a crash, before the database is opened."""
    pending = pending_key_file(key_file)
    if not pending.exists() or not db.exists():
        return
    store = SQLiteStore(db)
    try:
        if key_file.exists() and master_key_works(store, read_key_file(key_file)):
            pending.unlink()  # crashed before the re-wrap committed: the old key still rules
        elif master_key_works(store, read_key_file(pending)):
            os.replace(pending, key_file)  # crashed after the commit: the new key rules
    finally:
        store.close()
