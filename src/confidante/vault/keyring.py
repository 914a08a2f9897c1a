"""Keys: the master key, the installation secret, and one data key per partition.

The master key only ever wraps: the installation secret (for keyed ids), each partition's
data key, and sealed settings. Rotating it re-wraps those and touches no fact. Destroying a
partition's wrapped key makes every copy of that partition's rows unreadable.
"""

from __future__ import annotations

import threading

from ..errors import IntegrityError, WrongMasterKey
from ..store import PartitionRow, Store
from .crypto import keyed_id, new_key, open_sealed, parse_master_key, seal

_KEYCHECK = b"confidante-keycheck-v1"
SEALED_PREFIX = "sealed:"


def _wrap_aad(pid: str) -> bytes:
    return f"partition\x00{pid}".encode()


def fact_aad(pid: str, fid: str, origin_kind: str, origin_key: str | None) -> bytes:
    """Associated data binding a fact's ciphertext to its partition (hence its scope), its
    row, and the origin the read rule judges, so none of them can be edited in place."""
    return f"fact\x00{pid}\x00{fid}\x00{origin_kind}\x00{origin_key or ''}".encode()


def _meta_aad(name: str) -> bytes:
    return f"meta\x00{name}".encode()


class Keyring:
    def __init__(self, store: Store, master_key: bytes) -> None:
        self.store = store
        self._master = master_key
        self._data_keys: dict[str, tuple[bytes, bytes]] = {}  # pid -> (wrapped, data key)
        self._lock = threading.Lock()
        self._secret = self._open_or_create()

    def _open_or_create(self) -> bytes:
        check = self.store.get_meta("keycheck")
        if check is None:
            secret = new_key()
            self.store.set_meta("installation_secret", seal(self._master, secret, b"secret"))
            self.store.set_meta("keycheck", seal(self._master, _KEYCHECK, b"keycheck"))
            return secret
        if not master_key_works(self.store, self._master):
            raise WrongMasterKey("the master key does not open this database")
        try:
            wrapped = self.store.get_meta("installation_secret")
            if wrapped is None:
                raise IntegrityError("installation secret missing")
            return open_sealed(self._master, wrapped, b"secret")
        except IntegrityError:
            raise WrongMasterKey("the master key does not open this database") from None

    # -- keyed ids -----------------------------------------------------------------------------
    def key(self, domain: str, raw: str) -> str:
        return keyed_id(self._secret, domain, raw)

    # -- data keys -----------------------------------------------------------------------------
    def data_key(self, pid: str, scope: str, *, create: bool) -> bytes | None:
        """The partition's data key as stored now (another process may have destroyed or
        replaced it); with `create`, a missing or destroyed partition gets a fresh key."""
        rows = self.store.get_partitions([pid])
        if rows and rows[0].wrapped_key is not None:
            return self.unwrap(rows[0])
        if not create:
            return None
        self.check_master()  # never wrap under a key another process has rotated away
        row = self.store.ensure_partition(pid, scope, seal(self._master, new_key(), _wrap_aad(pid)))
        return self.unwrap(row)

    def unwrap(self, row: PartitionRow) -> bytes | None:
        """Open a stored wrapped key; cached by its exact bytes, so a destroyed or replaced
        key is never served from memory."""
        if row.wrapped_key is None:
            return None
        cached = self._data_keys.get(row.id)
        if cached is not None and cached[0] == row.wrapped_key:
            return cached[1]
        try:
            dk = open_sealed(self._master, row.wrapped_key, _wrap_aad(row.id))
        except IntegrityError:
            self.check_master()
            raise
        with self._lock:
            self._data_keys[row.id] = (row.wrapped_key, dk)
        return dk

    def check_master(self) -> None:
        """Raise WrongMasterKey if the database has been re-keyed since this process opened."""
        if not master_key_works(self.store, self._master):
            raise WrongMasterKey("the master key was rotated by another process; reopen")

    def forget(self, pid: str) -> None:
        """Drop a destroyed partition's key from memory too."""
        with self._lock:
            self._data_keys.pop(pid, None)

    # -- sealed settings -------------------------------------------------------------------------
    def sealed_meta(self, name: str) -> bytes | None:
        blob = self.store.get_meta(SEALED_PREFIX + name)
        if blob is None:
            return None
        try:
            return open_sealed(self._master, blob, _meta_aad(name))
        except IntegrityError:
            self.check_master()
            raise

    def set_sealed_meta(self, name: str, value: bytes) -> None:
        self.check_master()
        self.store.set_meta(SEALED_PREFIX + name, seal(self._master, value, _meta_aad(name)))

    # -- rotation --------------------------------------------------------------------------------
    def rotate(self, new_master: bytes | str) -> None:
        """Re-wrap every data key, the installation secret and sealed settings under a new
        master key, in one transaction: a crash leaves the old key fully working."""
        new = parse_master_key(new_master)
        self.check_master()
        wrapped: dict[str, bytes] = {}
        for row in self.store.partitions():
            if row.wrapped_key is None:
                continue
            dk = open_sealed(self._master, row.wrapped_key, _wrap_aad(row.id))
            wrapped[row.id] = seal(new, dk, _wrap_aad(row.id))
        meta = {
            "installation_secret": seal(new, self._secret, b"secret"),
            "keycheck": seal(new, _KEYCHECK, b"keycheck"),
        }
        for full in self.store.meta_keys(SEALED_PREFIX):
            name = full[len(SEALED_PREFIX) :]
            value = self.sealed_meta(name)
            assert value is not None
            meta[full] = seal(new, value, _meta_aad(name))
        self.store.rewrap(wrapped, meta)
        self._master = new
        with self._lock:
            self._data_keys.clear()


def master_key_works(store: Store, key: bytes) -> bool:
    check = store.get_meta("keycheck")
    if check is None:
        return False
    try:
        return open_sealed(key, check, b"keycheck") == _KEYCHECK
    except IntegrityError:
        return False


__all__ = ["Keyring", "fact_aad", "master_key_works"]
