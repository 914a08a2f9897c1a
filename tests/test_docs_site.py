"""The documentation site builds with `mkdocs build --strict`, offline, and its reference
pages are generated from the code: every command, route, setting and error code is there."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from confidante.config import reference
from confidante.errors import ERROR_CODES
from confidante.main import app

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mkdocs")
pytest.importorskip("material")


def _offline(cmd: list[str]) -> list[str]:
    """In a network namespace with no interfaces when the machine allows it (root CI does):
    a build that reaches for the network fails instead of quietly fetching."""
    if (
        shutil.which("unshare")
        and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    ):
        return ["unshare", "-n", *cmd]
    return cmd


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = os.environ | {
        "NO_MKDOCS_2_WARNING": "1",
        "DISABLE_MKDOCS_2_WARNING": "true",
        # belt and braces where no namespace can be made: any proxied fetch fails
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
    }
    build = subprocess.run(
        _offline([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)]),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text()


def test_the_pages_users_need_are_there(site: Path) -> None:
    for page in (
        "quickstart",
        "concepts",
        "threat-model",
        "howto/chat-bot",
        "howto/mcp-clients",
        "howto/postgresql",
        "howto/backups-and-keys",
        "howto/selftest",
        "changelog",
    ):
        assert (site / page / "index.html").exists(), page
    threat = _page(site, "threat-model")
    for who in ("database files only", "files and the master key", "an agent key", "Another user"):
        assert who in threat


def test_cli_reference_lists_every_command(site: Path) -> None:
    cli = _page(site, "reference/cli")
    root = typer.main.get_command(app)

    def names(cmd, path):
        if hasattr(cmd, "commands"):
            for sub, c in cmd.commands.items():
                yield from names(c, [*path, sub])
        else:
            yield " ".join(path)

    for name in names(root, ["confidante"]):
        assert name in cli, name
    assert "--keep-old-key" in cli and "--create" in cli


def test_settings_errors_and_api_references_are_generated(site: Path) -> None:
    settings = re.sub(r"<[^>]+>", "", _page(site, "reference/settings"))
    for row in reference():
        assert row.env in settings, row.env
        assert row.description.replace("`", "")[:40] in settings, row.name
    errors = _page(site, "reference/errors")
    for code in ERROR_CODES:
        assert f'id="{code}"' in errors, code
    http = _page(site, "reference/http")
    for route in ("POST /v1/memories", "POST /v1/memories/search", "GET /v1/stats"):
        assert route in http
    library = _page(site, "reference/library")
    assert "remember_many" in library and "list_page" in library


def test_the_site_loads_nothing_from_outside(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
        assert "cdn.jsdelivr" not in text and "unpkg.com" not in text, page


def test_mcp_snippets_in_the_docs_start_a_working_server(tmp_path: Path) -> None:
    """Each stdio snippet of the MCP how-to, with its command pointed at this install, starts
    a server an SDK client can use; each HTTP one names /mcp and a bearer token."""
    import json as _json

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from confidante import Memory

    text = (ROOT / "docs/howto/mcp-clients.md").read_text()
    blocks = [_json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    assert len(blocks) >= 3
    db = tmp_path / "memory.db"
    with Memory.open(db) as mem:
        mem.store_owners(["discord:1"])  # as `confidante init --owner` does
    home = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    stdio = 0
    for block in blocks:
        servers = block.get("mcpServers") or block.get("servers")
        server = servers["confidante"]
        if "url" in server:
            assert server["url"].endswith("/mcp")
            assert server["headers"]["Authorization"].startswith("Bearer ")
            continue
        stdio += 1
        args = [a if not a.endswith("memory.db") else str(db) for a in server["args"]]
        if "--db" not in args:
            args += ["--db", str(db)]
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "confidante", *args], env=home
        )

        async def use() -> dict:
            with anyio.fail_after(60):
                async with stdio_client(params) as (r, w), ClientSession(r, w) as s:  # noqa: B023
                    await s.initialize()
                    wrote = await s.call_tool("memory_write", {"text": "snippet check"})
                    assert not wrote.is_error, wrote
                    return wrote.structured_content

        assert anyio.run(use)["scope"] == "user"  # the owner's own silo (local, default me)
    assert stdio >= 2


def test_mcp_http_snippet_in_the_docs_connects_with_its_token(tmp_path: Path) -> None:
    """The how-to's HTTP snippet, with the key its `keys add-agent` line makes (run as the CLI,
    against the database the server is using) and the server's real port, is a working
    streamable-HTTP MCP client configuration; the same snippet with an unpinned key is not."""
    import base64
    import json as _json
    import shlex

    import anyio
    import httpx
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from confidante import Memory
    from confidante.vault.crypto import new_key
    from surfaces_helpers import live_server

    text = (ROOT / "docs/howto/mcp-clients.md").read_text()
    blocks = [_json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    http_servers = [
        s for b in blocks for s in (b.get("mcpServers") or b.get("servers")).values() if "url" in s
    ]
    assert http_servers, "the how-to has no streamable-HTTP snippet"
    add_agent = re.search(r"^confidante (keys add-agent .*)$", text, re.M)
    assert add_agent, "the how-to does not say how to make the pinned key"

    key = new_key()
    db = tmp_path / "memory.db"
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "CONFIDANTE_DB": str(db),
        "CONFIDANTE_OWNER_IDS": "discord:1",
        "CONFIDANTE_MASTER_KEY": base64.b64encode(key).decode(),
    }
    mem = Memory.open(db, owner_ids=["discord:1"], master_key=key)
    with live_server(mem) as live:
        made = subprocess.run(
            [sys.executable, "-m", "confidante", *shlex.split(add_agent.group(1)), "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert made.returncode == 0, made.stderr
        token = _json.loads(made.stdout)["token"]
        port = live.url.rsplit(":", 1)[1]

        for server in http_servers:
            url = re.sub(r"127\.0\.0\.1:\d+", f"127.0.0.1:{port}", server["url"])
            headers = {k: v.replace("cf_...", token) for k, v in server.get("headers", {}).items()}

            async def use(url: str = url, headers: dict[str, str] = headers) -> object:
                with anyio.fail_after(60):
                    async with (
                        httpx2.AsyncClient(headers=headers) as http,
                        streamable_http_client(url, http_client=http) as (r, w, *_),
                        ClientSession(r, w) as s,
                    ):
                        await s.initialize()
                        wrote = await s.call_tool("memory_write", {"text": "snippet kites"})
                        assert not wrote.is_error, wrote
                        return wrote.structured_content

            fact = anyio.run(use)
            assert fact["subject"] == "discord:42"  # the identity the key is pinned to

            unpinned = live.token("plain")
            refused = httpx.post(url, json={}, headers={"Authorization": f"Bearer {unpinned}"})
            assert refused.status_code == 403
            assert refused.json()["error"]["code"] == "identity_not_pinned"
    mem.close()
