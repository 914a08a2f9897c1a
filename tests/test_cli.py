"""The CLI twin of the library, run as a real subprocess with --json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ALICE, BOB, OWNER


@pytest.fixture
def run(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")} | {
        "CONFIDANTE_DB": str(tmp_path / "cli.db"),
        "CONFIDANTE_OWNER_IDS": f"{OWNER},telegram:7",
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
    }

    def _run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if ok:
            assert p.returncode == 0, p.stderr + p.stdout
        return p

    return _run


def j(p: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(p.stdout)


def test_init_creates_db_and_key_file(run, tmp_path: Path) -> None:
    data = j(run("init", "--json"))
    assert data["created"] is True
    assert Path(data["db"]) == tmp_path / "cli.db"
    assert oct(os.stat(data["key_file"]).st_mode & 0o777) == "0o600"
    assert j(run("init", "--json"))["created"] is False


def test_remember_recall_get_list_forget(run) -> None:
    run("init")
    owner = j(
        run("remember", "secret plan for the heist", "--as", OWNER, "--dm", "-n", "owner", "--json")
    )
    assert owner["scope"] == "owner"
    alice = j(run("remember", "alice likes heist movies", "--as", ALICE, "--dm", "--json"))
    assert alice["scope"] == "user"

    hits = j(run("recall", "heist", "--as", OWNER, "--dm", "--json"))["hits"]
    assert [h["fact"]["text"] for h in hits] == ["secret plan for the heist"]
    hits = j(run("recall", "heist", "--as", ALICE, "--dm", "--json"))["hits"]
    assert [h["fact"]["text"] for h in hits] == ["alice likes heist movies"]
    hits = j(run("recall", "heist", "--as", OWNER, "--local", "--subjects", ALICE, "--json"))
    assert len(hits["hits"]) == 2

    got = run("get", owner["id"], "--as", ALICE, "--dm", "--json", ok=False)
    assert got.returncode != 0
    assert j(got)["error"]["code"] == "not_found"
    assert (
        j(run("get", owner["id"], "--as", OWNER, "--owner-dashboard", "--json"))["id"]
        == owner["id"]
    )

    listed = j(run("list", "--dashboard", "--json"))["facts"]
    assert [f["text"] for f in listed] == ["alice likes heist movies"]

    denied = run("forget", alice["id"], "--as", BOB, "--dm", "--json", ok=False)
    assert j(denied)["error"]["code"] == "not_found"
    run("forget", alice["id"], "--as", ALICE, "--dm", "--json")
    assert j(run("list", "--dashboard", "--json"))["facts"] == []


def test_denials_have_codes_and_exit_non_zero(run) -> None:
    run("init")
    p = run("remember", "x", "--as", ALICE, "--dm", "-n", "owner", "--json", ok=False)
    assert p.returncode == 3  # refused by policy: not 2, a usage error's code
    assert j(p)["error"]["code"] == "owner_required"
    p = run("remember", "x", "--as", OWNER, "--guild", "g1", "-n", "owner", "--json", ok=False)
    assert j(p)["error"]["code"] == "owner_private_context_required"
    p = run("remember", "x", "--dashboard", "--json", ok=False)
    assert j(p)["error"]["code"] == "namespace_required"
    log = [
        e
        for e in j(run("log", "--as", OWNER, "--local", "--json"))["events"]
        if e["kind"] == "denial"
    ]
    assert [d["code"] for d in log][:3] == [
        "namespace_required",
        "owner_private_context_required",
        "owner_required",
    ]
    p = run("log", "--as", ALICE, "--dm", "--json", ok=False)
    assert j(p)["error"]["code"] == "owner_required"


def test_context_flags_are_validated(run) -> None:
    run("init")
    p = run("recall", "x", "--as", ALICE, "--json", ok=False)
    assert j(p)["error"]["code"] == "invalid_context"
    p = run("recall", "x", "--as", ALICE, "--dm", "--guild", "g1", "--json", ok=False)
    assert j(p)["error"]["code"] == "invalid_context"
    p = run("recall", "x", "--as", "nobody", "--dm", "--json", ok=False)
    assert j(p)["error"]["code"] == "invalid_actor"


def test_guild_flags(run) -> None:
    run("init")
    run("remember", "bob hosts karaoke", "--as", BOB, "--guild", "g1", "-n", "me")
    p = run(
        "recall",
        "karaoke",
        "--as",
        ALICE,
        "--guild",
        "g1",
        "--channel",
        "c1",
        "--participants",
        BOB,
        "--json",
    )
    assert [h["fact"]["text"] for h in j(p)["hits"]] == ["bob hosts karaoke"]
    p = run("recall", "karaoke", "--as", ALICE, "--guild", "g1", "--voice", "--json")
    assert j(p)["hits"] == []
    p = run("recall", "karaoke", "--as", BOB, "--guild", "g2", "--json")
    assert j(p)["hits"] == []


def test_demo_json(run) -> None:
    data = j(run("demo", "--json"))
    refused = {r["refused"] for r in data["refusals"]}
    assert {
        "owner_required",
        "owner_private_context_required",
        "forbidden_subject",
        "guild_context_required",
        "namespace_required",
    } <= refused
    assert not any("Dentist" in t for t in data["dashboard"])
    by = {(r["context"], r["query"]): r["hits"] for r in data["recalls"]}
    assert by[("Alice DM", "dentist Thursday")] == []
    assert by[("owner DM", "dentist Thursday")]


@pytest.mark.skipif(shutil.which("confidante") is None, reason="console script not on PATH")
def test_console_script_demo() -> None:
    p = subprocess.run(["confidante", "demo"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "owner_required" in p.stdout


# --- an agent host driving the CLI: identity from the host, messages on stdin -------------

HOSTILE = "tea $(touch pwned-1) `touch pwned-2` ' \" ; touch pwned-3 \\\nEOF\nsecond line"


@pytest.fixture
def host(tmp_path: Path):
    """The CLI as an agent host runs it: CONFIDANTE_CONTEXT set, text on stdin."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")} | {
        "CONFIDANTE_DB": str(tmp_path / "cli.db"),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    subprocess.run(
        [sys.executable, "-m", "confidante", "init"], env=env, check=True, capture_output=True
    )

    def _run(context: object, *args: str, stdin: str = "", shell: str | None = None):
        e = dict(env)
        if context is not None:
            e["CONFIDANTE_CONTEXT"] = context if isinstance(context, str) else json.dumps(context)
        cmd = ["bash", "-c", shell] if shell else [sys.executable, "-m", "confidante", *args]
        return subprocess.run(
            cmd, env=e, input=stdin, capture_output=True, text=True, timeout=60, cwd=tmp_path
        )

    return _run


def test_text_from_stdin_arrives_exactly(host, tmp_path: Path) -> None:
    alice = {"surface": "dm", "actor": ALICE}
    fact = j(host(alice, "remember", "-", "--json", stdin=HOSTILE))
    assert fact["text"] == HOSTILE.strip() and fact["subject"] == ALICE
    hits = j(host(alice, "recall", "-", "--json", stdin="second line"))["hits"]
    assert [h["fact"]["id"] for h in hits] == [fact["id"]]
    assert "$(touch pwned-1)" in j(host(alice, "context", "-", "--json", stdin="tea"))["context"]
    j(host(alice, "update", fact["id"], "-", "--json", stdin="green tea\n"))
    assert j(host(alice, "get", fact["id"], "--json"))["text"] == "green tea"
    assert not list(tmp_path.glob("pwned-*"))


def test_the_hosts_context_cannot_be_overridden(host) -> None:
    alice = {"surface": "dm", "actor": ALICE}
    host({"surface": "dm", "actor": OWNER}, "remember", "-", "-n", "owner", stdin="owner plan")
    for args in (["--as", OWNER, "--local"], ["--as", OWNER, "--dm"], ["--dashboard"]):
        p = host(alice, "list", *args, "--json")
        assert p.returncode == 1 and j(p)["error"]["code"] == "invalid_context"
        assert "owner plan" not in p.stdout
    for context, code in [
        ({"surface": "local", "actor": OWNER}, "surface_not_allowed"),
        ({"surface": "owner_dashboard", "actor": OWNER}, "surface_not_allowed"),
        ({"surface": "dm", "actor": "silo:0123456789abcdef"}, "reserved_platform"),
        ("not json", "invalid_context"),
        ('["dm"]', "invalid_context"),
    ]:
        p = host(context, "list", "--json")
        assert p.returncode != 0 and j(p)["error"]["code"] == code, p.stdout
    assert j(host(alice, "forget-subject", "--json"))["forgotten"] >= 0  # "forget me": herself
    p = host(alice, "forget-subject", BOB, "--json")
    assert j(p)["error"]["code"] == "forbidden_subject"


def _skill_blocks() -> tuple[str, list[str]]:
    skill = (Path(__file__).parents[1] / "integrations/openclaw/SKILL.md").read_text()
    agent_part = skill.split("## For the agent host")[0]
    blocks = [b.split("\n", 1)[1] for b in agent_part.split("```sh")[1:]]
    return agent_part, [b.split("```")[0] for b in blocks]


def test_the_skill_runs_hostile_messages_as_text(host, tmp_path: Path) -> None:
    """The skill's own snippets, with a hostile message put where the model puts it: the
    message reaches confidante as text and no shell code in it runs."""
    agent_part, blocks = _skill_blocks()
    assert "<the user's message" in agent_part
    assert not [b for b in blocks if "--as" in b or "--dm" in b]
    alice = {"surface": "dm", "actor": ALICE}
    remembered = [b for b in blocks if "remember -" in b]
    assert remembered and all("<<'" in b for b in blocks)
    shell = remembered[0].replace("Prefers short answers", HOSTILE)
    p = host(alice, shell=shell)
    assert p.returncode == 0, p.stderr
    assert j(p)["text"] == HOSTILE.strip()
    recall = next(b for b in blocks if "<the user's message" in b)
    p = host(alice, shell=recall.replace("<the user's message, exactly as received>", HOSTILE))
    assert p.returncode == 0, p.stderr
    assert "touch pwned-3" in j(p)["context"]
    assert not list(tmp_path.glob("pwned-*"))
