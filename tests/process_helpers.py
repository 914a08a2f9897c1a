"""Real processes for the deployment tests: `confidante serve` and CLI commands, each a
subprocess with its own environment, talking over loopback.

Each starts in a process group of its own and is stopped with its group; whatever a test
leaves running is killed after it, pass or fail, and the run fails if anything the suite
started outlives it (tests/suite_processes.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from conftest import OWNER


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env.update(
        {
            "CONFIDANTE_OWNER_IDS": OWNER,
            "CONFIDANTE_CONFIG": str(tmp_path / "no-config.toml"),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


@dataclass
class Done:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def cli(env: dict[str, str], *args: str, stdin: str | None = None, timeout: float = 600) -> Done:
    """A CLI command to its end. `timeout` only stops a hung command; it is no measure."""
    r = subprocess.run(
        [sys.executable, "-m", "confidante", *args],
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        start_new_session=True,
    )
    return Done(r.returncode, r.stdout, r.stderr)


@dataclass
class Server:
    """A running `confidante serve` subprocess."""

    proc: subprocess.Popen[str]
    url: str
    log: Path
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.url, timeout=30)

    def stop(self) -> int:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # uvicorn's graceful shutdown
            try:
                return self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                kill_group(self.proc)
                return self.proc.wait()
        return int(self.proc.returncode)

    def output(self) -> str:
        return self.log.read_text(errors="replace")


START_LIMIT = 300  # seconds for `serve` to answer: a hung start, not a slow one


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a process started by these helpers, and everything in its group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def serve(env: dict[str, str], log: Path, *args: str) -> Server:
    """A `confidante serve` on a free port, once it answers (a hung start fails after
    `START_LIMIT` seconds: a guard against hanging, not a measure)."""
    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "confidante", "serve", "--port", str(port), *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_LIMIT
    while True:
        if proc.poll() is not None:
            raise RuntimeError("confidante serve exited:\n" + log.read_text())
        try:
            if httpx.get(f"{url}/v1/stats", timeout=10).status_code == 401:
                break  # up (and authenticating)
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            kill_group(proc)
            proc.wait()
            raise RuntimeError("confidante serve did not start:\n" + log.read_text())
        time.sleep(0.1)
    return Server(proc, url, log)


_HOLDER = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
if sys.argv[2] == "write":
    con.execute("BEGIN IMMEDIATE")  # the write lock: every other writer waits
else:
    con.execute("BEGIN")
    con.execute("SELECT count(*) FROM memory_facts").fetchall()  # a snapshot, from now
print("holding", flush=True)
sys.stdin.readline()
con.execute("COMMIT")
print("released", flush=True)
"""


class Holder:
    """Another program on the same SQLite file (a backup script, the `sqlite3` shell, a BI
    tool) holding a read snapshot or the write lock until told to let go."""

    def __init__(self, db: Path, mode: str = "read") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, str(db), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == "holding\n"

    def release(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline() == "released\n"
        assert self.proc.wait() == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            kill_group(self.proc)
            self.proc.wait()
