"""The MCP tools' twins of the newer core, through the official SDK client: metadata on
memory_write, filters on memory_search and memory_list, memory_history, display names in a
pinned identity, and the shared space tools (the owner's own local stdio server only)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from confidante import Context, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import live_server
from test_mcp import _http_session, run_stdio, text_of

from conftest import ALICE, BOB, CAROL, OWNER

SPACE_TOOLS = {
    "space_list",
    "space_create",
    "space_add_member",
    "space_remove_member",
    "space_delete",
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A database with an owner, and the bare environment an MCP client starts us with."""
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


def test_metadata_filters_list_and_history_over_stdio(env: dict[str, str]) -> None:
    async def body(s: ClientSession) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        out["sushi"] = await s.call_tool(
            "memory_write", {"text": "I like sushi", "metadata": {"category": "food"}}
        )
        out["again"] = await s.call_tool("memory_write", {"text": "I like sushi!"})
        await s.call_tool(
            "memory_write", {"text": "I play chess on Sundays", "metadata": {"category": "hobby"}}
        )
        out["food"] = await s.call_tool("memory_list", {"filters": {"category": "food"}})
        out["page"] = await s.call_tool("memory_list", {"limit": 1})
        out["search"] = await s.call_tool(
            "memory_search", {"query": "sushi chess", "filters": {"category": "hobby"}}
        )
        out["bad"] = await s.call_tool("memory_list", {"filters": {"category": {"$regex": "."}}})
        out["secret"] = await s.call_tool(
            "memory_write", {"text": "my router", "metadata": {"n": "mail jane.doe@example.org"}}
        )
        fid = out["sushi"].structured_content["id"]
        await s.call_tool("memory_get", {"id": fid})
        out["history"] = await s.call_tool("memory_history", {"id": fid})
        out["owner_space"] = await s.call_tool(
            "memory_write", {"text": "x", "namespace": "shared:h"}
        )
        return out

    out = run_stdio(env, ["--as", ALICE, "--dm"], body)
    tools = out["tools"]
    assert {"memory_list", "memory_history"} <= set(tools) and not set(tools) & SPACE_TOOLS
    assert tools["memory_list"].annotations.read_only_hint is True
    assert tools["memory_history"].annotations.read_only_hint is True
    for name in ("memory_write", "memory_search", "memory_list"):
        props = tools[name].input_schema["properties"]
        assert {"metadata", "filters"} & set(props), name
    assert "filters" in tools["memory_search"].input_schema["properties"]

    sushi = out["sushi"].structured_content
    assert sushi["metadata"] == {"category": "food"} and sushi["refreshed"] is False
    again = out["again"].structured_content
    assert again["id"] == sushi["id"] and again["refreshed"] is True
    assert [f["text"] for f in out["food"].structured_content["facts"]] == ["I like sushi"]
    page = out["page"].structured_content
    assert len(page["facts"]) == 1 and page["total"] == 2 and page["next_cursor"]
    assert [h["text"] for h in out["search"].structured_content["hits"]] == [
        "I play chess on Sundays"
    ]
    assert out["bad"].is_error and "invalid_filter:" in text_of(out["bad"])
    assert out["secret"].is_error and "private_data_refused" in text_of(out["secret"])
    assert "jane.doe" not in text_of(out["secret"])
    versions = out["history"].structured_content["versions"]
    assert [(v["event"], v["text"]) for v in versions] == [("add", "I like sushi")]
    assert out["owner_space"].is_error and "not_a_member" in text_of(out["owner_space"])


def test_space_tools_are_the_local_owners_only(env: dict[str, str]) -> None:
    async def owner_session(s: ClientSession) -> dict[str, Any]:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        out: dict[str, Any] = {"tools": tools}
        out["made"] = await s.call_tool("space_create", {"name": "home", "members": [ALICE]})
        out["taken"] = await s.call_tool("space_create", {"name": "home"})
        out["bad"] = await s.call_tool("space_create", {"name": "Home!"})
        out["added"] = await s.call_tool("space_add_member", {"name": "home", "member": BOB})
        out["listed"] = await s.call_tool("space_list", {})
        return out

    out = run_stdio(env, [], owner_session)
    tools = out["tools"]
    assert set(tools) >= SPACE_TOOLS
    assert tools["space_delete"].annotations.destructive_hint is True
    assert tools["space_list"].annotations.read_only_hint is True
    for name in SPACE_TOOLS:  # identity is never an argument: the member is data
        props = set(tools[name].input_schema.get("properties", {}))
        assert not props & {"actor", "context", "surface", "ctx"}, (name, props)
    assert out["made"].structured_content == {
        "name": "home",
        "namespace": "shared:home",
        "members": [ALICE],
    }
    assert out["taken"].is_error and "space_exists" in text_of(out["taken"])
    assert out["bad"].is_error and "invalid_input" in text_of(out["bad"])
    assert out["added"].structured_content["members"] == [ALICE, BOB]
    assert out["listed"].structured_content["spaces"][0]["members"] == [ALICE, BOB]

    async def alice_session(s: ClientSession) -> Any:
        return await s.call_tool(
            "memory_write", {"text": "The bins go out on Tuesday", "namespace": "shared:home"}
        )

    wrote = run_stdio(env, ["--as", ALICE, "--dm"], alice_session)
    assert wrote.structured_content["scope"] == "shared"

    async def bob_session(s: ClientSession) -> tuple[Any, Any]:
        names = {t.name for t in (await s.list_tools()).tools}
        return names, await s.call_tool("memory_search", {"query": "bins"})

    names, found = run_stdio(env, ["--as", BOB, "--dm"], bob_session)
    assert not names & SPACE_TOOLS
    assert "The bins go out on Tuesday" in text_of(found)

    async def carol_session(s: ClientSession) -> Any:
        return await s.call_tool("memory_search", {"query": "bins Tuesday"})

    assert "bins" not in text_of(run_stdio(env, ["--as", CAROL, "--dm"], carol_session))

    async def owner_removes(s: ClientSession) -> tuple[Any, Any]:
        removed = await s.call_tool("space_remove_member", {"name": "home", "member": BOB})
        return removed, await s.call_tool("space_delete", {"name": "home"})

    removed, deleted = run_stdio(env, [], owner_removes)
    assert removed.structured_content["members"] == [ALICE]
    assert deleted.structured_content["keys_destroyed"] == 1
    assert "bins" not in text_of(run_stdio(env, ["--as", BOB, "--dm"], bob_session)[1])


def test_http_mcp_names_from_the_pinned_identity_and_no_space_tools(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    mem.create_space(Context.dm(OWNER), "home", members=[ALICE])
    with live_server(mem) as live:
        alice = live.token("alice-bot", {"surface": "dm", "actor": ALICE, "names": {ALICE: "Ally"}})
        owner = live.token("owner-bot", {"surface": "dm", "actor": OWNER})

        async def alice_body(s: ClientSession) -> tuple[set[str], Any]:
            names = {t.name for t in (await s.list_tools()).tools}
            wrote = await s.call_tool("memory_write", {"text": "I am allergic to peanuts"})
            return names, wrote

        names, wrote = _http_session(live.url, alice, alice_body)

        async def owner_body(s: ClientSession) -> tuple[set[str], Any]:
            names = {t.name for t in (await s.list_tools()).tools}
            return names, await s.call_tool("memory_search", {"query": "what is Ally allergic to?"})

        owner_names, found = _http_session(live.url, owner, owner_body)
    people = mem.people(Context.dm(OWNER))
    mem.close()
    assert not names & SPACE_TOOLS and not owner_names & SPACE_TOOLS
    assert wrote.structured_content["subject"] == ALICE
    assert people[ALICE] == ["Ally"]
    assert "I am allergic to peanuts" in text_of(found)
