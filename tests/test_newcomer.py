"""A newcomer's first hour, from the README, verbatim: a fresh virtual environment and the
README's first command in a throwaway home directory (answering the owner prompt at a real
terminal), then the README's curl calls, its MCP client configuration (started with the bare
environment MCP clients give), and the dashboard in a real browser.

The README's first command installs the package from a copy of this checkout into a new
venv (no network: the machine's package index is local), so this test takes a minute. Its
server listens on a free port of its own (`--port`, and the README's URLs with that port), so
a newcomer's own server on the README's port 8765 keeps running, untouched."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from process_helpers import free_port
from suite_processes import run_env

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
README_PORT = 8765  # the README's URLs; the test serves on a free port instead
OWNER_ID = "discord:123456789012345678"


def block(name: str) -> str:
    """The fenced block after `<!-- newcomer:NAME -->` in the README."""
    marker = f"<!-- newcomer:{name} -->"
    assert marker in README, f"README lost its {name} step"
    rest = README.split(marker, 1)[1]
    m = re.search(r"```[a-z]*\n(.*?)```", rest, re.S)
    assert m is not None
    return m.group(1)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def on_port(command: str, port: int) -> str:
    """A README command with the README's port replaced by `port`."""
    return command.replace(f":{README_PORT}", f":{port}")


def copy_checkout(dest: Path) -> None:
    """What a fresh clone holds: the tracked files (or the package's own, outside git)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    files = [f for f in listed.stdout.split("\0") if f] if listed.returncode == 0 else []
    if not files:
        files = [str(p.relative_to(ROOT)) for p in ROOT.glob("src/**/*") if p.is_file()]
        files += ["pyproject.toml", "README.md", "LICENSE"]
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)


def wait_for(log: Path, pattern: str, proc: subprocess.Popen[bytes], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        if re.search(pattern, text):
            return text
        if proc.poll() is not None:
            raise AssertionError(f"the command ended ({proc.returncode}):\n{text[-3000:]}")
        time.sleep(0.3)
    raise AssertionError(f"no {pattern!r} within {timeout}s:\n{log.read_text()[-3000:]}")


def json_values(text: str) -> list[Any]:
    """curl -s prints the bodies back to back; read them one after another."""
    decoder, values, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        value, i = decoder.raw_decode(text, i)
        values.append(value)
    return values


@pytest.mark.skipif(sys.platform != "linux", reason="uses a pseudo-terminal")
def test_the_readme_first_hour(tmp_path: Path) -> None:
    install = block("install").strip()
    assert install.endswith("confidante serve"), install
    port = free_port()
    repo, home = tmp_path / "clone", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    copy_checkout(repo)
    base_python = Path(getattr(sys, "_base_executable", sys.executable)).parent
    env = {
        "HOME": str(home),
        "PATH": f"{base_python}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        **{k: v for k, v in os.environ.items() if k.startswith("PIP_")},
        # pip's byte-compiling of every installed file (phonenumbers' thousands of metadata
        # modules above all) was most of the install; Python compiles what the server imports
        "PIP_NO_COMPILE": "1",
        **run_env(),  # the suite knows its processes by it
    }
    log = tmp_path / "serve.log"
    master, slave = os.openpty()  # a real terminal on stdin: `serve` asks for the owner
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "-c", f"{install} --port {port}"],
            cwd=repo,
            env=env,
            stdin=slave,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    os.close(slave)
    try:
        wait_for(log, r"Your own chat id", proc, timeout=540)
        os.write(master, f"{OWNER_ID}\n".encode())
        text = wait_for(log, rf"MCP\s+http://127\.0\.0\.1:{port}/mcp", proc, timeout=120)
        for url in ("/v1", "/docs", "/dashboard", "/mcp"):
            assert f"http://127.0.0.1:{port}{url}" in text
        password = re.search(r"dashboard password: (\S+)", text).group(1)  # type: ignore[union-attr]
        token = re.search(r"export TOKEN=(cf_\S+)", text).group(1)  # type: ignore[union-attr]
        deadline = time.monotonic() + 60
        while port_free(port):
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        assert httpx.get(f"http://127.0.0.1:{port}/docs").status_code == 200

        # the curl calls, verbatim, with the TOKEN the first command printed
        curl = subprocess.run(
            ["bash", "-c", on_port(block("curl"), port)],
            env=env | {"TOKEN": token},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert curl.returncode == 0, curl.stderr
        remembered, found, other = json_values(curl.stdout)
        assert remembered["scope"] == "user" and remembered["text"] == "I prefer tea"
        assert [h["text"] for h in found["hits"]] == ["I prefer tea"]
        assert other["hits"] == []

        # the MCP configuration, verbatim, launched as a client would: a bare environment
        config = json.loads(block("mcp"))["mcpServers"]["confidante"]
        venv_bin = repo / ".venv" / "bin"
        bare = {"HOME": str(home), "PATH": f"{venv_bin}:/usr/bin:/bin", **run_env()}
        command = shutil.which(config["command"], path=bare["PATH"])
        assert command is not None
        wrote, hits = run_mcp(command, config["args"], bare)
        assert wrote["scope"] == "owner"
        assert [h["text"] for h in hits["hits"]][:1] == [
            "My first note through MCP: water the basil"
        ]

        # the dashboard, in a real browser, with the password the first command printed
        check_dashboard(password, port)

        # and the deployment checks itself over HTTP, with the same agent key
        selftest = subprocess.run(
            [str(venv_bin / "confidante"), "selftest", "--url", f"http://127.0.0.1:{port}"],
            env=bare | {"CONFIDANTE_TOKEN": token},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert selftest.returncode == 0, selftest.stdout + selftest.stderr
        assert "selftest passed" in selftest.stdout
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        os.close(master)
    assert "Traceback" not in log.read_text()


def run_mcp(command: str, args: list[str], env: dict[str, str]) -> tuple[Any, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, env=env)

    async def main() -> tuple[Any, Any]:
        with anyio.fail_after(90):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                wrote = await s.call_tool(
                    "memory_write",
                    {"text": "My first note through MCP: water the basil", "namespace": "owner"},
                )
                assert not wrote.is_error, wrote
                found = await s.call_tool("memory_search", {"query": "basil"})
                return wrote.structured_content, found.structured_content

    return anyio.run(main)


def check_dashboard(password: str, port: int) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        return  # the browser tests say so; the rest of the newcomer's hour still ran
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/dashboard")
        page.wait_for_url(re.compile(r"/dashboard/login$"))
        page.fill("#password", password)
        page.click("#login")
        page.wait_for_url(re.compile(r"/dashboard/people$"))
        assert "I prefer tea" in page.locator("#facts").inner_text()
        assert "water the basil" not in page.content()  # owner memory stays out of People
        browser.close()


def test_serve_without_an_owner_says_the_one_command(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFIDANTE_", "XDG_"))}
    env["HOME"] = str(tmp_path)
    p = subprocess.run(
        [sys.executable, "-m", "confidante", "serve", "--port", "0"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode != 0
    assert "confidante init --owner platform:id" in p.stderr
    assert not (tmp_path / ".local/share/confidante/memory.db").exists()


def test_serve_never_creates_a_mistyped_database(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFIDANTE_", "XDG_"))}
    env["HOME"] = str(tmp_path)
    typo = tmp_path / "memroy.db"
    for extra in (["--db", str(typo)], []):
        run_env = env if extra else env | {"CONFIDANTE_DB": str(typo)}
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "confidante",
                "serve",
                "--owner",
                OWNER_ID,
                "--port",
                "0",
                *extra,
            ],
            env=run_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode != 0 and "database_missing" in p.stderr and "--create" in p.stderr
        assert not typo.exists() and not Path(f"{typo}.key").exists()
