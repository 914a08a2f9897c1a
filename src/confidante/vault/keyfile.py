"""A master key kept in a file, and how a rotation replaces it without ever losing it.

A rotation writes the new key to `<key>.new` first, then the database re-wraps its data keys
in one transaction, then the new file replaces the old. A crash at any point leaves one of
the two files opening the database; `Keyring` finishes or undoes the rotation on the next
open. Every process using the same key file re-reads it when the database stops opening with
the key it holds, so a rotation by one process (a CLI, another server) is picked up by the
others without a restart.

`<key>.lock` serialises rotations and crash recovery between processes: a `flock` on it is
held from writing `<key>.new` until the rename, which a database transaction alone cannot
cover (the rename must follow the commit).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import InvalidMasterKey, MasterKeyMissing
from .crypto import read_key_file, sync_dir, write_key_file


def pending_key_file(key_file: Path) -> Path:
    """Where a rotation writes the new key before the database commits to it."""
    return key_file.with_name(key_file.name + ".new")


class KeyFile:
    """The master key file of one memory, with its pending and lock files beside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pending = pending_key_file(path)
        self.lock_path = path.with_name(path.name + ".lock")

    def read(self) -> bytes:
        return read_key_file(self.path)

    def candidates(self) -> list[bytes]:
        """The keys a process may find here right now: the file's, then a pending one (a
        rotation between its commit and its rename). Unreadable ones are skipped."""
        found = []
        for p in (self.path, self.pending):
            with contextlib.suppress(OSError, InvalidMasterKey, MasterKeyMissing):
                found.append(read_key_file(p))
        return found

    def pending_key(self) -> bytes | None:
        try:
            return read_key_file(self.pending)
        except (OSError, InvalidMasterKey, MasterKeyMissing):
            return None

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the flock

    def write_pending(self, key: bytes) -> None:
        self.discard_pending()
        write_key_file(self.pending, key)

    def commit(self, key: bytes) -> None:
        """The database now opens with `key` only: make it the file's."""
        try:
            os.replace(self.pending, self.path)
        except FileNotFoundError:
            # Another process finished this rename for us (crash recovery under the lock).
            if self.candidates()[:1] != [key]:
                raise
        sync_dir(self.path.parent)

    def discard_pending(self) -> None:
        self.pending.unlink(missing_ok=True)
