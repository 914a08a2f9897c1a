"""The MCP server through the official SDK client: over stdio (a real `confidante mcp`
subprocess) and over streamable HTTP at `/mcp` (identity from the bearer token)."""

from __future__ import annotations

import base64
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from confidante import Context, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import live_server

from conftest import ALICE, BOB, OWNER

TOOLS = {
    "memory_write",
    "memory_search",
    "memory_list",
    "memory_get",
    "memory_history",
    "memory_forget",
    "memory_context",
}


def _mcp_command() -> list[str]:
    return ["-m", "confidante", "mcp"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    key = new_key()
    db = tmp_path / "memory.db"
    Memory.open(db, owner_ids=[OWNER], master_key=key).close()
    return {
        "CONFIDANTE_DB": str(db),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "CONFIDANTE_MASTER_KEY": base64.b64encode(key).decode(),
        "CONFIDANTE_CONFIG": str(tmp_path / "no-config.toml"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
    }


def run_stdio(
    env: dict[str, str], flags: list[str], body: Callable[[ClientSession], Awaitable[Any]]
) -> Any:
    params = StdioServerParameters(command=sys.executable, args=[*_mcp_command(), *flags], env=env)

    async def main() -> Any:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return await body(s)

    return anyio.run(main)


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_stdio_tools_write_search_and_refusal(env: dict[str, str]) -> None:
    async def body(s: ClientSession) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        wrote = await s.call_tool("memory_write", {"text": "Alice keeps three beehives"})
        found = await s.call_tool("memory_search", {"query": "beehives", "k": 5})
        owner = await s.call_tool("memory_write", {"text": "I am the owner", "namespace": "owner"})
        return {"tools": tools, "wrote": wrote, "found": found, "owner": owner}

    out = run_stdio(env, ["--as", ALICE, "--dm"], body)
    tools = out["tools"]
    assert set(tools) == TOOLS
    for name in ("memory_search", "memory_list", "memory_get", "memory_history", "memory_context"):
        assert tools[name].annotations.read_only_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["memory_write"].annotations.read_only_hint is False
    for t in tools.values():  # identity is never a tool argument
        props = set(t.input_schema.get("properties", {}))
        assert not props & {"actor", "context", "surface", "ctx"}, (t.name, props)

    assert not out["wrote"].is_error
    assert out["wrote"].structured_content["subject"] == ALICE
    hits = out["found"].structured_content["hits"]
    assert hits[0]["text"] == "Alice keeps three beehives"

    assert out["owner"].is_error
    assert "owner_required" in text_of(out["owner"])


def test_stdio_defaults_to_the_local_owner(env: dict[str, str]) -> None:
    async def owner_session(s: ClientSession) -> tuple[Any, Any]:
        wrote = await s.call_tool(
            "memory_write", {"text": "Owner note quasarword", "namespace": "owner"}
        )
        found = await s.call_tool("memory_search", {"query": "quasarword"})
        return wrote, found

    wrote, found = run_stdio(env, [], owner_session)
    assert not wrote.is_error and wrote.structured_content["scope"] == "owner"
    fid = wrote.structured_content["id"]
    assert found.structured_content["hits"][0]["id"] == fid

    async def alice_session(s: ClientSession) -> tuple[Any, Any, Any]:
        got = await s.call_tool("memory_get", {"id": fid})
        gone = await s.call_tool("memory_forget", {"id": fid})
        found = await s.call_tool("memory_search", {"query": "quasarword owner note"})
        return got, gone, found

    got, gone, found = run_stdio(env, ["--as", ALICE, "--dm"], alice_session)
    assert got.is_error and "not_found" in text_of(got)
    assert gone.is_error and "not_found" in text_of(gone)
    assert "quasarword" not in text_of(found)


def test_stdio_context_and_forget(env: dict[str, str]) -> None:
    async def body(s: ClientSession) -> tuple[Any, Any, Any]:
        wrote = await s.call_tool("memory_write", {"text": "Bob plays chess on Sundays"})
        fid = wrote.structured_content["id"]
        prompt = await s.call_tool("memory_context", {"query": "chess"})
        gone = await s.call_tool("memory_forget", {"id": fid})
        again = await s.call_tool("memory_get", {"id": fid})
        return prompt, gone, again

    prompt, gone, again = run_stdio(env, ["--as", BOB, "--dm"], body)
    assert "chess" in text_of(prompt)
    assert not gone.is_error
    assert again.is_error and "not_found" in text_of(again)


# --- streamable HTTP inside `serve` ----------------------------------------------------------------


def _http_session(url: str, token: str, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        with anyio.fail_after(60):
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
                streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await body(session)

    return anyio.run(main)


def test_http_mcp_identity_comes_from_the_token(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    owner_fact = mem.remember(Context.local(OWNER), "Owner plans nebulaword", "owner")
    with live_server(mem) as live:
        alice = live.token("alice-bot", {"surface": "dm", "actor": ALICE})
        unpinned = live.token("plain")

        r = httpx.post(f"{live.url}/mcp", json={})
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"
        r = httpx.post(f"{live.url}/mcp", json={}, headers={"Authorization": f"Bearer {unpinned}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "identity_not_pinned"

        async def body(s: ClientSession) -> tuple[Any, ...]:
            names = {t.name for t in (await s.list_tools()).tools}
            wrote = await s.call_tool("memory_write", {"text": "Alice flies kites"})
            found = await s.call_tool("memory_search", {"query": "kites"})
            owner = await s.call_tool("memory_write", {"text": "x", "namespace": "owner"})
            got = await s.call_tool("memory_get", {"id": owner_fact.id})
            leak = await s.call_tool("memory_search", {"query": "nebulaword plans"})
            return names, wrote, found, owner, got, leak

        names, wrote, found, owner, got, leak = _http_session(live.url, alice, body)
    mem.close()
    assert names == TOOLS
    assert wrote.structured_content["subject"] == ALICE
    assert found.structured_content["hits"][0]["text"] == "Alice flies kites"
    assert owner.is_error and "owner_required" in text_of(owner)
    assert got.is_error and "not_found" in text_of(got)
    assert "nebulaword" not in text_of(leak)
