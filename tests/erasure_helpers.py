"""What an attacker does with copies of the files: look for a forgotten fact's ciphertext,
and try to open every copy found with every key still obtainable (the current master key,
and every data key it unwraps, old wrappings found in the files included)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from confidante.errors import IntegrityError
from confidante.vault.crypto import open_sealed
from confidante.vault.keyring import fact_aad


@dataclass(frozen=True)
class Canary:
    """A stored fact as it was before erasure: its ciphertext and what it was bound to."""

    id: str
    partition_id: str
    ciphertext: bytes
    origin_kind: str
    origin_key: str | None

    @property
    def aad(self) -> bytes:
        return fact_aad(self.partition_id, self.id, self.origin_kind, self.origin_key)

    @property
    def nonce(self) -> bytes:
        return self.ciphertext[1:13]

    def pieces(self) -> list[bytes]:
        """The nonce and 16-byte slices across the sealed body: any surviving fragment."""
        ct = self.ciphertext
        return [self.nonce] + [ct[i : i + 16] for i in range(13, len(ct) - 16, 97)]


def canary_of(store, fid: str) -> Canary:
    row = store.get_fact(fid)
    assert row is not None
    return Canary(row.id, row.partition_id, row.ciphertext, row.origin_kind, row.origin_key)


def read_all(paths: Iterable[Path]) -> dict[str, bytes]:
    out = {}
    for p in paths:
        if p.is_file():
            try:
                out[str(p)] = p.read_bytes()
            except OSError:
                continue
    return out


def copies_found(files: dict[str, bytes], canary: Canary) -> list[bytes]:
    """Every blob in the files that starts where the canary's nonce sits (format byte, nonce,
    body, tag: as long as the original)."""
    found = []
    for blob in files.values():
        start = blob.find(canary.nonce)
        while start != -1:
            found.append(blob[start - 1 : start - 1 + len(canary.ciphertext)])
            start = blob.find(canary.nonce, start + 1)
    return found


def fragments_found(files: dict[str, bytes], canary: Canary) -> list[tuple[str, int]]:
    return [
        (name, i)
        for name, blob in files.items()
        for i, piece in enumerate(canary.pieces())
        if piece in blob
    ]


def unwrap_all(master: bytes, wrappings: Iterable[tuple[str, bytes]]) -> list[bytes]:
    """The data keys an attacker holding `master` gets out of these (pid, wrapped) pairs."""
    keys = []
    for pid, wrapped in wrappings:
        try:
            keys.append(open_sealed(master, wrapped, f"partition\x00{pid}".encode()))
        except IntegrityError:
            continue
    return keys


def opens(blobs: Iterable[bytes], keys: Iterable[bytes], aad: bytes) -> bool:
    keys = list(keys)
    for blob in blobs:
        for dk in keys:
            try:
                open_sealed(dk, blob, aad)
                return True
            except IntegrityError:
                continue
    return False


# --- PostgreSQL: the cluster's own files ------------------------------------------------------

WRAPPING_BYTES = 61  # format byte, 12-byte nonce, 32-byte data key, 16-byte tag
_SMALL_FILE = 2_000_000  # below this every offset is tried; above, only near a partition id


def cluster_files(con, schema: str, since: float) -> dict[str, bytes]:
    """What an attacker copies from the PostgreSQL server's disk: the schema's table and index
    files (TOAST included) and every WAL segment written since `since` (epoch seconds), after
    a CHECKPOINT. Read here, in the test process, which holds no SQLite connection."""
    con.execute("CHECKPOINT")  # what sits in shared buffers goes to the files
    data = Path(con.execute("SHOW data_directory").fetchone()[0])
    rels = [
        r
        for (r,) in con.execute(
            "SELECT pg_relation_filepath(oid) FROM pg_class "
            "WHERE relnamespace = %s::regnamespace AND pg_relation_filepath(oid) IS NOT NULL "
            "UNION SELECT pg_relation_filepath(reltoastrelid) FROM pg_class "
            "WHERE relnamespace = %s::regnamespace AND reltoastrelid <> 0",
            (schema, schema),
        ).fetchall()
    ]
    paths = [p for r in rels for p in (data / r).parent.glob((data / r).name + "*")]
    wal = data / "pg_wal"
    paths += [
        p
        for p in wal.iterdir()
        if p.is_file() and len(p.name) == 24 and p.stat().st_mtime >= since - 2
    ]
    return read_all(paths)


def wrappings_opening(files: dict[str, bytes], master: bytes, pids: Iterable[str]) -> list[bytes]:
    """Every data key of these partitions that an attacker holding `master` unwraps from the
    files: each 61-byte blob starting with the format byte, anywhere in a small file and near
    a mention of the partition id in a large one (a WAL segment), tried as its wrapping."""
    keys: list[bytes] = []
    pids = list(pids)
    for blob in files.values():
        for pid in pids:
            aad = f"partition\x00{pid}".encode()
            if len(blob) <= _SMALL_FILE:
                regions = [(0, len(blob))]
            else:
                regions = []
                at = blob.find(pid.encode())
                while at != -1:
                    regions.append((max(0, at - 400), at + 400))
                    at = blob.find(pid.encode(), at + 1)
            for lo, hi in regions:
                i = blob.find(b"\x01", lo, hi)
                while i != -1 and i + WRAPPING_BYTES <= len(blob):
                    try:
                        dk = open_sealed(master, blob[i : i + WRAPPING_BYTES], aad)
                    except IntegrityError:
                        pass
                    else:
                        if dk not in keys:
                            keys.append(dk)
                    i = blob.find(b"\x01", i + 1, hi)
    return keys
