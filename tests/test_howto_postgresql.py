"""The PostgreSQL how-to, as written (docs/howto/postgresql.md): its commands run in a
fresh home against this machine's PostgreSQL, with only the database URL, the key file's
folder and the port replaced by this machine's. `init` must create the key file."""

from __future__ import annotations

import os
import re
import shlex
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs/howto/postgresql.md").read_text()


def _commands() -> list[str]:
    marker = "<!-- howto:postgresql -->"
    assert marker in PAGE, "the how-to lost its commands"
    m = re.search(r"```sh\n(.*?)```", PAGE.split(marker, 1)[1], re.S)
    assert m is not None
    return [ln.split("#", 1)[0].strip() for ln in m.group(1).splitlines() if ln.strip()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_postgresql_howto_runs_as_written(tmp_path: Path, pg_url: str) -> None:
    commands = _commands()
    assert commands[0] == "pip install 'confidante[postgres]'"  # installed by the test extra
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env |= {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    key_file: Path | None = None
    port = _free_port()
    server: subprocess.Popen[bytes] | None = None
    try:
        for line in commands[1:]:
            words = shlex.split(line)
            if words[0] == "export":
                name, _, value = words[1].partition("=")
                if name == "CONFIDANTE_DB":
                    value = pg_url  # this machine's PostgreSQL, a schema of its own
                elif name == "CONFIDANTE_KEY_FILE":
                    key_file = tmp_path / "srv" / "shared" / Path(value).name
                    value = str(key_file)
                env[name] = value
                continue
            assert words[0] == "confidante", line
            if words[1] == "serve":
                log = (tmp_path / "serve.log").open("wb")
                server = subprocess.Popen(
                    [*words, "--port", str(port)],
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                continue
            done = subprocess.run(words, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr
        assert key_file is not None and key_file.is_file()
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
        assert server is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail((tmp_path / "serve.log").read_text()[-2000:])
            try:
                if httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=2).status_code:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            pytest.fail("the server did not answer")
        # a second process reads the same key file: the same memory, as the page says
        shown = subprocess.run(
            ["confidante", "list", "--local", "--as", "discord:123456789012345678", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert shown.returncode == 0, shown.stderr
    finally:
        if server is not None:
            os.killpg(server.pid, 9)
            server.wait(timeout=30)
