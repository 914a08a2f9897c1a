from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest

from confidante import Context, Memory
from confidante.privacy import T3_CATEGORIES, classify, redact
from confidante.vault.crypto import new_key

# How the suite runs (the system tier, workers, byte code, every process a test starts):
# tests/suite_hooks.py, wired in here.
from suite_hooks import (  # noqa: F401
    hypothesis_examples,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_fixture_setup,
    pytest_generate_tests,
    pytest_runtest_protocol,
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_unconfigure,
    pytest_xdist_auto_num_workers,
)

OWNER = "discord:1"
OWNER_TG = "telegram:7"
ALICE = "discord:42"
BOB = "discord:43"
CAROL = "discord:44"


class Clock:
    """An injected clock (`Memory.open(..., clock=)`): tests move time by hand."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


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


PG_DSN = os.environ.get("CONFIDANTE_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh schema in the machine's real PostgreSQL, dropped afterwards."""
    psycopg = pytest.importorskip("psycopg")
    schema = f"confidante_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(PG_DSN, autocommit=True)
    except psycopg.OperationalError:
        if os.environ.get("CI"):
            raise
        pytest.skip("PostgreSQL is not running")
    admin.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in PG_DSN else "?"
    yield f"{PG_DSN}{sep}options={quote(f'-csearch_path={schema}')}"
    admin.execute(f"DROP SCHEMA {schema} CASCADE")
    admin.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, db_path: Path) -> str:
    if request.param == "sqlite":
        return str(db_path)
    return request.getfixturevalue("pg_url")


@pytest.fixture
def mem(backend: str, key: bytes) -> Iterator[Memory]:
    m = Memory.open(backend, owner_ids=[OWNER, OWNER_TG], master_key=key)
    yield m
    m.close()


# The privacy passes' tables (tests/test_privacy_unseen*.py) are read by these two checks.
def assert_t3_found_and_redacted(text: str, category: str, value: str) -> None:
    """`text` holds T3 data of `category`, and redacting what was found leaves no `value`."""
    found = [f for f in classify(text) if f.category in T3_CATEGORIES]
    assert category in {f.category for f in found}, text
    assert value not in redact(text, found)


def assert_kept(mem: Memory, text: str) -> None:
    """An ordinary sentence: no T3 data found, and it is stored as written."""
    assert not {f.category for f in classify(text)} & T3_CATEGORIES, text
    assert mem.remember(Context.dm(ALICE), text).text == text
