"""Fuzz the API from its own OpenAPI schema (schemathesis, positive and negative cases),
authenticated with a real agent key against the real server on loopback: no 5xx, ever, and
every error in the documented shape."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from confidante import Context, Memory
from confidante.config import ServerSettings
from confidante.server import create_app
from confidante.vault.crypto import new_key
from surfaces_helpers import Live, live_server

from conftest import ALICE, OWNER

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    response_schema_conformance,
    status_code_conformance,
)


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, str]]:
    mem = Memory.open(
        tmp_path_factory.mktemp("fuzz") / "m.db", owner_ids=[OWNER], master_key=new_key()
    )
    mem.remember(Context.dm(ALICE), "Alice keeps three beehives")
    mem.remember(Context.dm(OWNER), "Dentist moved to Thursday", "owner")
    mem.remember(Context.guild(ALICE, "g1"), "Book club reads Dune")
    with live_server(mem) as live:
        yield live, live.token("fuzzer")
    mem.close()


def _openapi_document() -> dict[str, Any]:
    """The app's own schema, built at collection time (schemathesis' lazy fixture loader does
    not work with this pytest); the same document the server serves at /openapi.json."""
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "schema.db", owner_ids=[OWNER], master_key=new_key())
        try:
            return create_app(mem, ServerSettings(cleanup_days=0)).openapi()
        finally:
            mem.close()


schema = schemathesis.openapi.from_dict(_openapi_document())


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    database=None,  # no .hypothesis/ directory in the repository
    suppress_health_check=list(HealthCheck),
)
def test_api_never_fails_on_any_input(case: object, fuzz_server: tuple[Live, str]) -> None:
    live, token = fuzz_server
    response = case.call(
        base_url=live.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code < 500, (
        case.method,
        case.path,
        response.status_code,
        response.text[:300],
    )
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    case.validate_response(
        response,
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
    )
