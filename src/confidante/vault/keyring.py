"""Keys: the master key, the installation secret, and one data key per partition.

The master key only ever wraps: the installation secret (for keyed ids), each partition's
data key, and sealed settings. Rotating it re-wraps those and touches no fact. Destroying a
partition's wrapped key makes every copy of that partition's rows unreadable once no copy
of the old wrapping opens either (see `services.lifecycle.complete_erasure`).

Several processes share one database. Each checks, inside the transaction that wraps
something, that the database's key check is the one its master key opens (the store refuses
otherwise), so nothing is ever wrapped under a key another process rotated away; a process
whose key came from a key file then re-reads the file and carries on with the new key.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from ..errors import ConcurrentChange, IntegrityError, MasterKeyMissing, WrongMasterKey
from ..store import PartitionRow, Store
from ..store.base import NEEDS_ROTATION
from .crypto import keyed_id, new_key, open_sealed, parse_master_key, seal
from .keyfile import KeyFile

_KEYCHECK = b"confidante-keycheck-v1"
SEALED_PREFIX = "sealed:"
_RETRIES = 8


def _wrap_aad(pid: str) -> bytes:
    return f"partition\x00{pid}".encode()


def fact_aad(pid: str, fid: str, origin_kind: str, origin_key: str | None) -> bytes:
    """Associated data binding a fact's ciphertext to its partition (hence its scope), its
    row, and the origin the read rule judges, so none of them can be edited in place."""
    return f"fact\x00{pid}\x00{fid}\x00{origin_kind}\x00{origin_key or ''}".encode()


def _meta_aad(name: str) -> bytes:
    return f"meta\x00{name}".encode()


def _opens(key: bytes, check: bytes | None) -> bool:
    if check is None:
        return False
    try:
        return open_sealed(key, check, b"keycheck") == _KEYCHECK
    except IntegrityError:
        return False


class Keyring:
    def __init__(self, store: Store, master_key: bytes, key_file: KeyFile | None = None) -> None:
        """`key_file`: where `master_key` was read from, when it was; such a key can follow a
        rotation made by another process, and can itself be rotated without a restart."""
        self.store = store
        self.key_file = key_file
        self._master = master_key
        self._check: bytes | None = None  # the sealed key check `_master` opens
        self._data_keys: dict[str, tuple[bytes, bytes]] = {}  # pid -> (wrapped, data key)
        self._lock = threading.RLock()
        if key_file is not None and key_file.pending.exists():
            self.recover()
        self._secret = self._open_or_create()

    @property
    def rotatable(self) -> bool:
        """True when this process can hand a new master key to every process sharing the
        database: they read the same key file, and this process may replace it."""
        return self.key_file is not None and os.access(self.key_file.path.parent, os.W_OK)

    def _open_or_create(self) -> bytes:
        stored = self.store.init_meta(
            {
                "installation_secret": seal(self._master, new_key(), b"secret"),
                "keycheck": seal(self._master, _KEYCHECK, b"keycheck"),
            }
        )
        if _opens(self._master, stored["keycheck"]):
            self._check = stored["keycheck"]
        elif not self._reload():
            raise WrongMasterKey("the master key does not open this database")
        try:
            return open_sealed(self._master, stored["installation_secret"], b"secret")
        except IntegrityError:
            raise WrongMasterKey("the master key does not open this database") from None

    # -- following rotations ---------------------------------------------------------------------
    def check_master(self) -> None:
        """Make sure this process holds the key the database is under now: adopt the key file's
        new key after another process rotated it, else raise WrongMasterKey."""
        check = self.store.get_meta("keycheck")
        # The store is never called while this lock is held: a thread inside a store
        # transaction may be waiting for this lock (a lock-order deadlock froze a server).
        with self._lock:
            if check is not None and check == self._check:
                return
            if _opens(self._master, check):
                self._check = check
                return
        if not self._reload(check):
            raise WrongMasterKey("the master key was rotated by another process; reopen")

    def _reload(self, check: bytes | None = None) -> bool:
        if self.key_file is None:
            return False
        if check is None:
            check = self.store.get_meta("keycheck")
        for key in self.key_file.candidates():
            if _opens(key, check):
                with self._lock:
                    self._master = key
                    self._check = check
                    self._data_keys.clear()
                return True
        return False

    @contextlib.contextmanager
    def _rotation(self) -> Iterator[None]:
        """Held by one process at a time for a rotation or a crash recovery: across machines
        by the database, on this machine by the key file's lock (which also covers the rename
        after the commit)."""
        with self.store.rotation_lock():
            if self.key_file is None:
                yield
                return
            with self.key_file.lock():
                yield

    def recover(self) -> None:
        """Finish or undo a rotation a crash interrupted: the pending key file is kept if the
        database opens with it (the re-wrap committed), dropped if the old key still opens it."""
        assert self.key_file is not None
        with self._rotation():
            self._recover_locked()

    def _recover_locked(self) -> None:
        kf = self.key_file
        if kf is None or not kf.pending.exists():
            return
        check = self.store.get_meta("keycheck")
        pending = kf.pending_key()
        if pending is not None and _opens(pending, check):
            kf.commit(pending)  # crashed after the commit: the new key rules
            return
        try:
            current = kf.read()
        except MasterKeyMissing:
            return  # neither key opens: leave both for the operator, opening will say so
        if check is None or _opens(current, check):
            kf.discard_pending()  # crashed before the commit: the old key still rules

    # -- keyed ids -----------------------------------------------------------------------------
    def key(self, domain: str, raw: str) -> str:
        return keyed_id(self._secret, domain, raw)

    # -- data keys -----------------------------------------------------------------------------
    def current(self, pid: str, scope: str, *, create: bool) -> tuple[bytes, bytes] | None:
        """(wrapped, data key) of the partition as stored now (another process may have
        destroyed or replaced it); with `create`, a missing or destroyed partition gets a fresh
        key, wrapped under the master key the database is under."""
        for _ in range(_RETRIES):
            rows = self.store.get_partitions([pid])
            if rows and rows[0].wrapped_key is not None:
                latest = self.unwrap_latest(rows[0])
                if latest is not None and latest[0].wrapped_key is not None:
                    return latest[0].wrapped_key, latest[1]
            if not create:
                return None
            try:
                # The master key cannot change inside: a rotation in progress is waited for,
                # and the key it leaves is the one wrapped under (no retry storm while
                # another process rotates again and again).
                with self.store.stable_keys():
                    self.check_master()
                    row = self.store.ensure_partition(
                        pid,
                        scope,
                        seal(self._master, new_key(), _wrap_aad(pid)),
                        keycheck=self.keycheck(),
                    )
            except ConcurrentChange:
                continue
            dk = self.unwrap(row)
            if dk is not None and row.wrapped_key is not None:
                return row.wrapped_key, dk
        raise ConcurrentChange("the partition's key kept changing; try again")

    def data_key(self, pid: str, scope: str, *, create: bool) -> bytes | None:
        found = self.current(pid, scope, create=create)
        return None if found is None else found[1]

    def unwrap(self, row: PartitionRow) -> bytes | None:
        """Open a stored wrapped key; cached by its exact bytes, so a destroyed or replaced
        key is never served from memory."""
        if row.wrapped_key is None:
            return None
        cached = self._data_keys.get(row.id)
        if cached is not None and cached[0] == row.wrapped_key:
            return cached[1]
        master = self._master  # the key tried (another thread may adopt a new one meanwhile)
        try:
            dk = open_sealed(master, row.wrapped_key, _wrap_aad(row.id))
        except IntegrityError:
            self.check_master()  # rotated by another process? adopt the new key and retry
            if self._master is master:
                raise
            dk = open_sealed(self._master, row.wrapped_key, _wrap_aad(row.id))
        with self._lock:
            self._data_keys[row.id] = (row.wrapped_key, dk)
        return dk

    def unwrap_latest(self, row: PartitionRow) -> tuple[PartitionRow, bytes] | None:
        """Open a partition row read a moment ago, or the row as stored now when another
        process re-wrapped it since (a master-key rotation or a re-key): a wrapping that is no
        longer stored may be under a key this process has already let go. None when the
        partition's key is destroyed; IntegrityError when the stored wrapping does not open."""
        for _ in range(_RETRIES):
            try:
                dk = self.unwrap(row)
            except IntegrityError:
                latest = self.store.get_partitions([row.id])
                if not latest or latest[0].wrapped_key == row.wrapped_key:
                    raise
                row = latest[0]
                continue
            return None if dk is None else (row, dk)
        raise ConcurrentChange("the partition's key kept changing; try again")

    def wrap_new(self, pid: str) -> tuple[bytes, bytes]:
        """A fresh data key for a partition and its wrapping under the current master key
        (for a re-key); the caller stores it with `keycheck()`."""
        self.check_master()
        dk = new_key()
        return seal(self._master, dk, _wrap_aad(pid)), dk

    def current_master(self) -> bytes:
        """The master key in use (for the CLI to show a rotated key once)."""
        return self._master

    def keycheck(self) -> bytes:
        assert self._check is not None
        return self._check

    def forget(self, pid: str) -> None:
        """Drop a destroyed partition's key from memory too."""
        with self._lock:
            self._data_keys.pop(pid, None)

    # -- sealed settings -------------------------------------------------------------------------
    def sealed_meta(self, name: str) -> bytes | None:
        blob = self.store.get_meta(SEALED_PREFIX + name)
        if blob is None:
            return None
        master = self._master
        try:
            return open_sealed(master, blob, _meta_aad(name))
        except IntegrityError:
            self.check_master()
            if self._master is not master:
                return open_sealed(self._master, blob, _meta_aad(name))
            again = self.store.get_meta(SEALED_PREFIX + name)  # re-sealed by a rotation since?
            if again is None or again == blob:
                raise
            return open_sealed(self._master, again, _meta_aad(name))

    def set_sealed_meta(self, name: str, value: bytes) -> None:
        for _ in range(_RETRIES):
            try:
                with self.store.stable_keys():
                    self.check_master()
                    self.store.set_meta(
                        SEALED_PREFIX + name,
                        seal(self._master, value, _meta_aad(name)),
                        keycheck=self.keycheck(),
                    )
                return
            except ConcurrentChange:
                continue
        raise ConcurrentChange("the master key kept changing; try again")

    # -- rotation --------------------------------------------------------------------------------
    def rotate(self, new_master: bytes | str | None = None) -> bytes:
        """Re-wrap every live data key, the installation secret and sealed settings under a
        new master key, in one transaction: a crash leaves one of the two keys working.

        With a key file, the new key goes to `<key>.new` before the commit and replaces the
        file after it; every process reading that file follows. A key given otherwise (an
        argument, the environment) cannot reach other processes, so the rotation then needs
        the database to itself (DatabaseInUse)."""
        new = parse_master_key(new_master) if new_master is not None else new_key()
        with self._rotation():
            if self.key_file is None:
                with self.store.exclusive():
                    self._rotate_locked(new)
            else:
                self._recover_locked()
                self.check_master()
                self.key_file.write_pending(new)
                # On any failure the pending file stays: recovery keeps whichever key opens.
                self._rotate_locked(new)
                self.key_file.commit(new)
        return new

    def _rotate_locked(self, new: bytes) -> None:
        for _ in range(_RETRIES - 1):
            try:
                return self._rotate_once(new)
            except ConcurrentChange:
                continue  # a key changed under it (see Store.rewrap): read them all again
        self._rotate_once(new)

    def _rotate_once(self, new: bytes) -> None:
        self.check_master()
        old, check = self._master, self.keycheck()
        new_check = seal(new, _KEYCHECK, b"keycheck")
        with self.store.key_change():
            wrapped: dict[str, tuple[bytes, bytes]] = {}
            completed: list[str] = []
            for row in self.store.partitions():
                if row.erase_pending == NEEDS_ROTATION:
                    completed.append(row.id)
                if row.wrapped_key is None:
                    continue  # destroyed: never wrapped again
                dk = open_sealed(old, row.wrapped_key, _wrap_aad(row.id))
                wrapped[row.id] = (row.wrapped_key, seal(new, dk, _wrap_aad(row.id)))
            meta = {
                "installation_secret": seal(new, self._secret, b"secret"),
                "keycheck": new_check,
            }
            for full in self.store.meta_keys(SEALED_PREFIX):
                name = full[len(SEALED_PREFIX) :]
                blob = self.store.get_meta(full)
                assert blob is not None
                value = open_sealed(old, blob, _meta_aad(name))
                meta[full] = seal(new, value, _meta_aad(name))
            self.store.rewrap(wrapped, meta, keycheck=check, completed=completed)
        with self._lock:
            self._master = new
            self._check = new_check
            self._data_keys.clear()


def keycheck_opens(key: bytes, check: bytes | None) -> bool:
    """Whether `key` opens a database whose sealed key check is `check` (a backup's)."""
    return _opens(key, check)


__all__ = ["KeyFile", "Keyring", "fact_aad", "keycheck_opens"]
