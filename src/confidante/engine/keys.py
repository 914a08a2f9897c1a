"""Where a memory's master key comes from: an argument, the environment, or a key file."""

from __future__ import annotations

from pathlib import Path

from ..config import Settings
from ..errors import (
    MasterKeyMissing,
)
from ..vault.crypto import (
    key_file_for,
    new_key,
    parse_master_key,
    read_key_file,
    write_key_file,
)


def key_file_path(db: Path, settings: Settings) -> Path:
    """The configured key file, else `<database>.key` beside a SQLite file."""
    return settings.key_file or key_file_for(db)


def master_key_source(
    db: Path | None, explicit: bytes | str | None, settings: Settings, *, create: bool = False
) -> tuple[bytes, Path | None]:
    """The master key and the file it was read from (None when it was given otherwise):
    argument, else environment, else the key file (configured, or beside a SQLite file).

    A brand-new SQLite database gets a fresh key file (0600); an existing one without any key
    is an error rather than a silently different key. A server database needs a given key."""
    if explicit is not None:
        return parse_master_key(explicit), None
    if settings.master_key is not None:
        return parse_master_key(settings.master_key.get_secret_value()), None
    if db is None:
        if settings.key_file is not None:
            if create and not settings.key_file.exists():
                key = new_key()
                write_key_file(settings.key_file, key)
                return key, settings.key_file
            return read_key_file(settings.key_file), settings.key_file
        raise MasterKeyMissing(
            "a server database needs a master key: set CONFIDANTE_KEY_FILE to a path and run "
            "`confidante init` (it creates the key file, mode 0600), or set "
            "CONFIDANTE_MASTER_KEY"
        )
    key_file = key_file_path(db, settings)
    if key_file.exists():
        return read_key_file(key_file), key_file
    if db.exists() and db.stat().st_size > 0:
        raise MasterKeyMissing(
            "this database exists but no master key was given: set CONFIDANTE_MASTER_KEY "
            "or restore its key file"
        )
    key = new_key()
    write_key_file(key_file, key)
    return key, key_file


def resolve_master_key(db: Path | None, explicit: bytes | str | None, settings: Settings) -> bytes:
    """The master key `Engine.open` would use (see `master_key_source`)."""
    return master_key_source(db, explicit, settings)[0]
