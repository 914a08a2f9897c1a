"""Issue 12: a submitted value never comes back. A canary secret goes through every surface
(library, HTTP, MCP over HTTP and stdio, the CLI) on every malformed-argument path we know,
and every response, error, exit message and log line is searched for it."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from confidante import ConfidanteError, Context, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import live_server

from conftest import ALICE, OWNER

# A live-key-shaped secret: refused as a credential wherever it is text. Its tail is what
# must never be seen again.
CANARY = "sk_live_51Canary7Qz9Xw2Lm4Np8Kd3Vb6Hs"
MARK = "Canary7Qz9Xw2Lm4Np8Kd3Vb6Hs"


def server_log(caplog: pytest.LogCaptureFixture) -> str:
    """What the server side logged (the test's own HTTP client logs its requests)."""
    clients = ("httpx", "httpcore", "mcp.client")
    return "\n".join(
        f"{r.name} {r.getMessage()} {r.exc_text or ''}"
        for r in caplog.records
        if not r.name.startswith(clients)
    )


def clean(*shown: object) -> None:
    for s in shown:
        assert MARK not in str(s), s


def test_library_errors_never_hold_the_value(mem: Memory, caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    dm = Context.dm(ALICE)
    calls = [
        lambda: mem.remember(dm, f"my stripe key is {CANARY}"),
        lambda: mem.remember(dm, f"my stripe key is {CANARY}", "global"),
        lambda: mem.remember(Context.dm(OWNER), f"note {CANARY}", "global"),
        lambda: mem.remember(dm, "fine", kind=CANARY),
        lambda: mem.remember(dm, "fine", source_skill=CANARY),
        lambda: mem.remember(dm, "fine", kind=f"password {MARK}"),
        lambda: mem.remember(dm, "fine", namespace=CANARY),
        lambda: mem.remember(dm, "fine", namespace=f"user:{CANARY}"),
        lambda: mem.remember_many(dm, ["fine", f"pw {CANARY}"]),
        lambda: Context.dm(CANARY + " x"),
        lambda: Context.guild(ALICE, f"{CANARY} x"),
        lambda: mem.get(dm, CANARY),
        lambda: mem.forget(dm, CANARY),
        lambda: mem.recall(dm, CANARY, k=CANARY),  # type: ignore[arg-type]
        lambda: mem.recall(dm, "x", subjects=[CANARY]),
        lambda: mem.record_skill_use(CANARY),
        lambda: mem.record_pattern(f"use {CANARY}", ["mail"]),
        lambda: mem.record_pattern("morning", [CANARY]),
    ]
    for call in calls:
        with pytest.raises(ConfidanteError) as e:
            call()
        clean(str(e.value), repr(e.value), e.value.message, e.value.args)
    assert mem.store.count_facts() == 0
    clean(caplog.text, json.dumps(mem.audit()), mem.public_stats())
    clean(*mem.denials(Context.dm(OWNER)))


def _http_calls(token: str) -> list[tuple[str, str, Any]]:
    dm = {"surface": "dm", "actor": ALICE}
    return [
        ("POST", "/v1/memories", {"context": dm, "text": f"key {CANARY}"}),
        ("POST", "/v1/memories", {"context": dm, "text": "fine", "kind": CANARY}),
        ("POST", "/v1/memories", {"context": dm, "text": "fine", "source_skill": CANARY}),
        ("POST", "/v1/memories", {"context": dm, "text": "fine", "namespace": CANARY}),
        ("POST", "/v1/memories", {"context": dm, "text": "fine", "confidence": CANARY}),
        ("POST", "/v1/memories", {"context": dm, "text": "fine", CANARY: 1}),
        ("POST", "/v1/memories", {"context": {"surface": CANARY, "actor": ALICE}, "text": "x"}),
        ("POST", "/v1/memories", {"context": {"surface": "dm", "actor": CANARY}, "text": "x"}),
        ("POST", "/v1/memories", {"context": {**dm, CANARY: "x"}, "text": "x"}),
        ("POST", "/v1/memories", {"context": dm, "text": ["x", CANARY]}),
        ("POST", "/v1/memories/search", {"context": dm, "query": "x", "k": CANARY}),
        ("POST", "/v1/memories/search", {"context": dm, "query": "x", "subjects": [CANARY]}),
        ("POST", "/v1/memories/list", {"context": dm, "limit": CANARY}),
        ("POST", f"/v1/memories/{CANARY}/get", {"context": dm}),
        ("POST", f"/v1/memories/{CANARY}/update", {"context": dm, "text": "x"}),
        ("POST", f"/v1/memories/{CANARY}/forget", {"context": dm}),
        ("POST", "/v1/subjects/forget", {"context": dm, "actor": CANARY}),
        ("POST", "/v1/guilds/forget", {"context": dm, "guild": CANARY}),
        ("POST", "/v1/prompt-context", {"context": dm, "query": 7, "max_tokens": CANARY}),
        ("POST", "/v1/memories", f'{{"context": {{"surface": "dm"}}, "text": "{CANARY}'),
        ("GET", f"/v1/{CANARY}", None),
        ("POST", "/v1/memories", {"context": dm, "text": "x"}),  # then a bad token below
    ]


def test_http_never_echoes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    with live_server(mem) as live:
        token = live.token("bot")
        statuses = []
        for method, path, body in _http_calls(token):
            kw: dict[str, Any] = {"headers": {"Authorization": f"Bearer {token}"}}
            if isinstance(body, str):
                kw["content"] = body
                kw["headers"]["Content-Type"] = "application/json"
            elif body is not None:
                kw["json"] = body
            r = httpx.request(method, live.url + path, timeout=30, **kw)
            statuses.append(r.status_code)
            clean(r.text, dict(r.headers))
        r = httpx.post(f"{live.url}/v1/memories", headers={"Authorization": f"Bearer {CANARY}"})
        assert r.status_code == 401
        clean(r.text, dict(r.headers))
    assert all(s >= 400 for s in statuses[:-1]), statuses
    clean(server_log(caplog))
    mem.close()


async def _mcp_calls(s: ClientSession) -> list[Any]:
    out = []
    for name, args in [
        ("memory_write", {"text": f"my key {CANARY}"}),
        ("memory_write", {"text": {"nested": CANARY}}),
        ("memory_write", {"text": "fine", "namespace": CANARY}),
        ("memory_write", {"text": "fine", "namespace": ["x", CANARY]}),
        ("memory_search", {"query": "x", "k": CANARY}),
        ("memory_search", {"query": [CANARY]}),
        ("memory_get", {"id": CANARY}),
        ("memory_get", {"id": {"a": CANARY}}),
        ("memory_forget", {"id": CANARY}),
        ("memory_context", {"query": 5, "extra": CANARY}),
        (CANARY, {"text": CANARY}),
    ]:
        result = await s.call_tool(name, args)
        assert result.is_error, name
        out.append(result)
    return out


def _texts(results: list[Any]) -> list[str]:
    return [json.dumps(r.model_dump(mode="json")) for r in results]


def test_mcp_over_http_never_echoes(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    with live_server(mem) as live:
        token = live.token("alice", {"surface": "dm", "actor": ALICE})

        async def main() -> list[Any]:
            with anyio.fail_after(60):
                async with (
                    httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                    streamable_http_client(f"{live.url}/mcp", http_client=http) as (r, w, *_),
                    ClientSession(r, w) as session,
                ):
                    await session.initialize()
                    return await _mcp_calls(session)

        results = anyio.run(main)
        raw = httpx.post(
            f"{live.url}/mcp",
            content=f'{{"jsonrpc": "2.0", "id": 1, "method": "{CANARY}"',
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        clean(raw.text)
    texts = _texts(results)
    assert "invalid_input" in texts[4] and "k:" in texts[4]  # says which field, not the value
    clean(*texts, server_log(caplog))
    mem.close()


def test_mcp_over_stdio_never_echoes(tmp_path: Path) -> None:
    key = new_key()
    db = tmp_path / "memory.db"
    Memory.open(db, owner_ids=[OWNER], master_key=key).close()
    import base64

    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")},
        "CONFIDANTE_DB": str(db),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "CONFIDANTE_MASTER_KEY": base64.b64encode(key).decode(),
        "CONFIDANTE_CONFIG": str(tmp_path / "none.toml"),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "confidante", "mcp", "--as", ALICE, "--dm"], env=env
    )
    errlog = (tmp_path / "stderr.txt").open("w")

    async def main() -> list[Any]:
        with anyio.fail_after(60):
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                return await _mcp_calls(s)

    results = anyio.run(main)
    errlog.close()
    clean(*_texts(results), (tmp_path / "stderr.txt").read_text())


def test_cli_never_echoes(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")} | {
        "CONFIDANTE_DB": str(tmp_path / "cli.db"),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert run("init").returncode == 0
    dm = ["--as", ALICE, "--dm"]
    attempts = [
        ("remember", f"my key is {CANARY}", *dm),
        ("remember", f"my key is {CANARY}", *dm, "--json"),
        ("remember", "fine", *dm, "--kind", CANARY),
        ("remember", "fine", *dm, "--skill", CANARY),
        ("remember", "fine", *dm, "-n", CANARY, "--json"),
        ("remember", "fine", "--as", CANARY, "--dm"),
        ("remember", "fine", "--as", ALICE, "--guild", f"{CANARY} x"),
        ("recall", "x", *dm, "-k", CANARY),
        ("recall", "x", *dm, "--subjects", CANARY),
        ("list", "--dashboard", "--limit", CANARY),
        ("get", CANARY, *dm),
        ("forget", CANARY, *dm, "--json"),
        ("list", "--dashboard", f"--{CANARY}"),
        ("list", "--dashboard", CANARY),
        (CANARY,),
    ]
    for args in attempts:
        p = run(*args)
        assert p.returncode != 0, args
        clean(p.stdout, p.stderr)
