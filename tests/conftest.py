from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from confidante import Memory
from confidante.crypto import new_key

OWNER = "discord:1"
OWNER_TG = "telegram:7"
ALICE = "discord:42"
BOB = "discord:43"
CAROL = "discord:44"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's own config, key or database."""
    for var in list(os.environ):
        if var.startswith("CONFIDANTE_"):
            monkeypatch.delenv(var)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@pytest.fixture
def key() -> bytes:
    return new_key()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def mem(db_path: Path, key: bytes) -> Iterator[Memory]:
    m = Memory.open(db_path, owner_ids=[OWNER, OWNER_TG], master_key=key)
    yield m
    m.close()
