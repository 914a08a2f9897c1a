"""Encryption at rest: AES-256-GCM via `cryptography`, envelope keys, keyed identities.

A master key wraps one data key per partition and the installation secret. Every
ciphertext carries associated data naming where it belongs, so a blob moved to another
partition or row fails to decrypt instead of yielding someone else's text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..errors import IntegrityError, InvalidMasterKey, KeyFileExposed, MasterKeyMissing

KEY_BYTES = 32
_NONCE_BYTES = 12
_FORMAT = b"\x01"  # leading version byte, so the format can change without guessing


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def parse_master_key(value: bytes | str) -> bytes:
    """Accept 32 raw bytes or their base64 text; refuse anything else without echoing it."""
    if isinstance(value, bytes | bytearray) and len(value) == KEY_BYTES:
        return bytes(value)
    try:
        text = value.decode("ascii") if isinstance(value, bytes | bytearray) else str(value)
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidMasterKey("the master key must be 32 bytes, or their base64") from None
    if len(raw) != KEY_BYTES:
        raise InvalidMasterKey("the master key must be 32 bytes, or their base64")
    return raw


def encode_key(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii")


def seal(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(_NONCE_BYTES)
    return _FORMAT + nonce + AESGCM(key).encrypt(nonce, plaintext, aad)


def open_sealed(key: bytes, blob: bytes, aad: bytes) -> bytes:
    if len(blob) < 1 + _NONCE_BYTES + 16 or blob[:1] != _FORMAT:
        raise IntegrityError("ciphertext is malformed")
    nonce = blob[1 : 1 + _NONCE_BYTES]
    try:
        return AESGCM(key).decrypt(nonce, bytes(blob[1 + _NONCE_BYTES :]), aad)
    except InvalidTag:
        raise IntegrityError("ciphertext failed authentication") from None


def keyed_id(secret: bytes, domain: str, raw: str) -> str:
    """HMAC-SHA256 of an id under the installation secret; never a bare, enumerable hash."""
    return hmac.new(secret, f"{domain}\x00{raw}".encode(), hashlib.sha256).hexdigest()[:32]


def text_key(dk: bytes, *parts: str) -> str:
    """A digest of a fact's text in its place (`parts`: partition, origin, author, the
    sentence), keyed by the partition's data key: the same sentence said again there is
    found without decrypting anything, and destroying the key (forgetting) or replacing it
    (a re-key) leaves nothing in old copies of the files to test a guess against."""
    sub = hmac.new(dk, b"confidante text key", hashlib.sha256).digest()
    return hmac.new(sub, "\x00".join(parts).encode(), hashlib.sha256).hexdigest()[:32]


def key_file_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".key")


def write_key_file(path: Path, key: bytes) -> None:
    """Create the key file with mode 0600 (from its first byte), synced to disk; never
    overwrite an existing key. Folders it needs are made 0700."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(encode_key(key) + "\n")
        f.flush()
        os.fsync(f.fileno())
    sync_dir(path.parent)


def sync_dir(folder: Path) -> None:
    """Make a file's creation or rename in `folder` durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_private(path: Path) -> None:
    """Refuse a key file that anyone but its owner may read or write, as ssh does."""
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        raise KeyFileExposed(
            f"the master key file {path.name} is open to other users (mode {mode:04o}); "
            "make it private: chmod 600"
        )


def read_key_file(path: Path) -> bytes:
    try:
        check_private(path)
        return parse_master_key(path.read_text().strip())
    except FileNotFoundError:
        raise MasterKeyMissing(
            f"no master key file at {path}: `confidante init` creates it (mode 0600), or "
            "set CONFIDANTE_MASTER_KEY"
        ) from None
