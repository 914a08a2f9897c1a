"""Agent hosts never hold the keys (issue 22, item 1).

A real `confidante serve` on a free port, and the real `confidante` console script run as a
model on an agent host runs it: in client mode (CONFIDANTE_URL + CONFIDANTE_TOKEN, a fresh
HOME, no database or key file in reach) every memory command answers as the token's pinned
identity and every other command is refused before it does anything; in local mode with
CONFIDANTE_CONTEXT only the memory commands run and the files stay byte for byte the same;
delegated tokens speak only as their context, until they expire or their parent is revoked.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer

from confidante import ConfidanteError, Context, Memory
from confidante.main import app
from confidante.services.credentials import AgentKeys
from confidante.surfaces.cli import gate
from process_helpers import Done, Server, base_env, cli, free_port, serve

from conftest import ALICE, BOB, CAROL, OWNER

BIN = Path(sys.executable).parent
CONSOLE = str(BIN / "confidante")
DAVE = "discord:45"
ERIN = "discord:46"
GRACE = "discord:48"


def dm(actor: str) -> dict[str, str]:
    return {"surface": "dm", "actor": actor}


# --- the deployment: a server as the owner runs it --------------------------------------------


@dataclass
class Deployment:
    server: Server
    env: dict[str, str]  # the owner's: CLI commands on the server's own database
    db: Path
    host_token: str  # an unpinned key: the agent host's own, never the model's

    @property
    def url(self) -> str:
        return self.server.url

    def open(self) -> Memory:
        """The server's database, in this process (its key file is beside it)."""
        return Memory.open(self.db, owner_ids=[OWNER])

    def pinned(self, name: str, actor: str) -> str:
        with self.open() as mem:
            return AgentKeys(mem).add(name, dm(actor))

    def api(self, token: str, path: str, body: dict[str, Any]) -> httpx.Response:
        return self.server.client.post(
            path, json=body, headers={"Authorization": f"Bearer {token}"}
        )


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("server")
    db = root / "memory.db"
    env = base_env(root, CONFIDANTE_DB=str(db))
    made = cli(env, "init", "--json")
    assert made.code == 0, made.err
    server = serve(env, root / "serve.log")
    try:
        yield Deployment(server, env, db, made.json()["agent_key"]["token"])
    finally:
        assert server.stop() == 0
        assert "Traceback" not in server.output()


def _files(where: Path) -> dict[str, bytes]:
    return {str(p.relative_to(where)): p.read_bytes() for p in where.rglob("*") if p.is_file()}


class Agent:
    """The console script as the model on an agent host runs it: a fresh, empty HOME (also
    its working directory and XDG folders), client mode, nothing else from the environment."""

    def __init__(self, home: Path, url: str, token: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.env = {
            "PATH": f"{BIN}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "CONFIDANTE_URL": url,
            "CONFIDANTE_TOKEN": token,
        }

    def run(self, *args: str, stdin: str = "", **env: str) -> Done:
        r = subprocess.run(
            [CONSOLE, *args],
            env=self.env | env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.home,
        )
        assert "Traceback" not in r.stderr, r.stderr
        return Done(r.returncode, r.stdout, r.stderr)

    def ok(self, *args: str, stdin: str = "", **env: str) -> Any:
        d = self.run(*args, "--json", stdin=stdin, **env)
        assert d.code == 0, d.out + d.err
        return d.json()

    def refused(self, code: str, *args: str, exit_code: int = 3, **env: str) -> Done:
        d = self.run(*args, "--json", **env)
        assert d.code == exit_code and d.json()["error"]["code"] == code, d.out + d.err
        return d

    def created_nothing(self) -> None:
        assert list(self.home.rglob("*")) == []


def _error(d: Done) -> str:
    """The code of an error printed as JSON (--json) or as `error CODE: message`."""
    if d.out.strip().startswith("{"):
        return d.json()["error"]["code"]
    return d.err.split("error ", 1)[1].split(":", 1)[0].strip()


# --- every command, as the command line has them ----------------------------------------------


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command a line can run: the leaves, and a group that runs on its own (`stats`)."""
    if hasattr(command, "commands"):
        if path and getattr(command, "invoke_without_command", False):
            yield path, command
        for name, sub in command.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield path, command


def every_command() -> dict[str, list[str]]:
    """Each command's path with a placeholder for each required argument, and --json where
    the command takes it: a command line that gets past the parser."""
    lines = {}
    for path, command in _leaves(typer.main.get_command(app)):
        required = [p for p in command.params if p.param_type_name == "argument" and p.required]
        takes_json = any(p.name == "as_json" for p in command.params)
        lines[" ".join(path)] = [*path, *["x"] * len(required), *(["--json"] if takes_json else [])]
    return lines


def run_all(run: Callable[[list[str]], Done], lines: dict[str, list[str]]) -> dict[str, Done]:
    with ThreadPoolExecutor(4) as pool:
        done = pool.map(run, lines.values())
        return dict(zip(lines, done, strict=True))


def test_the_allow_lists_hold_only_the_memory_commands() -> None:
    commands = set(every_command())
    memory = {"remember", "recall", "get", "list", "update", "forget", "context", "forget-subject"}
    memory |= {"history"}
    public_stats = {"stats", "stats record", "stats pattern"}  # identifier-free T1 counts
    assert gate.ALLOWED["client"] == memory | public_stats | {"version"}
    assert gate.ALLOWED["agent"] == memory | public_stats | {"version", "mcp"}
    assert gate.ALLOWED["agent"] <= commands
    owner_only = {"init", "keys add-agent", "dashboard set-password", "import", "backup", "restore"}
    owner_only |= {"space create", "space add", "space delete", "people", "cleanup"}
    assert owner_only <= commands - gate.ALLOWED["agent"]


# --- client mode --------------------------------------------------------------------------------


def test_every_memory_command_answers_as_the_pin(deployment: Deployment, tmp_path: Path) -> None:
    with deployment.open() as mem:
        owner_fact = mem.remember(Context.dm(OWNER), "owner plan: the lighthouse sale", "owner")
        bob_fact = mem.remember(Context.dm(BOB), "bob keeps lighthouse keys under the mat")
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("carol-pin", CAROL))

    fact = agent.ok("remember", "-", stdin="Carol collects lighthouse postcards")
    assert fact["scope"] == "user" and fact["subject"] == CAROL and fact["author"] == CAROL
    second = agent.ok("remember", "Carol prefers green tea", "--kind", "preference")
    assert second["kind"] == "preference"

    hits = agent.ok("recall", "lighthouse")["hits"]
    assert [h["fact"]["id"] for h in hits] == [fact["id"]]
    assert set(hits[0]) == {"fact", "score", "scores", "superseded_by"}
    assert agent.ok("get", fact["id"][:10])["id"] == fact["id"]
    listed = agent.ok("list")["facts"]
    assert {f["id"] for f in listed} == {fact["id"], second["id"]}
    assert len(agent.ok("list", "--limit", "1")["facts"]) == 1
    context = agent.ok("context", "-", stdin="lighthouse")["context"]
    assert "lighthouse postcards" in context
    updated = agent.ok("update", fact["id"], "-", stdin="Carol collects old postcards\n")
    assert updated["text"] == "Carol collects old postcards"

    # the same JSON shape as local mode (the owner's own CLI on the server's database)
    local = cli(deployment.env, "get", fact["id"], "--as", CAROL, "--dm", "--json")
    assert local.code == 0, local.err
    assert set(local.json()) == set(agent.ok("get", fact["id"]))
    assert local.json()["text"] == "Carol collects old postcards"

    # nobody else's facts: not by id, not by search, not in the prompt block
    for other in (owner_fact.id, bob_fact.id):
        agent.refused("not_found", "get", other, exit_code=1)
        agent.refused("not_found", "forget", other, exit_code=1)
    everything = json.dumps(
        [agent.ok("recall", "lighthouse keys plan sale"), agent.ok("list"), context]
    )
    assert "owner plan" not in everything and "under the mat" not in everything

    # human output, as in local mode
    shown = agent.run("recall", "postcards")
    assert shown.code == 0 and fact["id"][:12] in shown.out and "score" in shown.out
    assert agent.run("forget", second["id"]).out.strip() == f"forgotten {second['id']}"

    # "forget me": the pin's own actor, with no SUBJECT; someone else is refused
    agent.refused("forbidden_subject", "forget-subject", BOB)
    erased = agent.ok("forget-subject")
    # one shape everywhere; no counts outside the owner's private contexts
    assert erased["forgotten"] == 1 and erased["subject"] is None
    assert erased["facts_deleted"] is None and erased["keys_destroyed"] is None
    assert agent.ok("list")["facts"] == []
    with deployment.open() as mem:
        assert mem.get(Context.dm(BOB), bob_fact.id).text.startswith("bob keeps")
    agent.created_nothing()


def test_a_context_that_differs_from_the_pin_is_refused(
    deployment: Deployment, tmp_path: Path
) -> None:
    with deployment.open() as mem:
        mem.remember(Context.dm(OWNER), "owner memo: the harbour contract", "owner")
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("dave-pin", DAVE))
    agent.ok("remember", "Dave sails on Sundays")
    for flags in (["--as", BOB, "--dm"], ["--as", OWNER, "--dm"], ["--as", DAVE, "--guild", "g1"]):
        d = agent.refused("pinned_context_mismatch", "list", *flags)
        assert "harbour" not in d.out + d.err
    for flags in (
        ["--as", OWNER, "--local"],
        ["--as", OWNER, "--owner-dashboard"],
        ["--dashboard"],
    ):
        agent.refused("surface_not_allowed", "recall", "harbour", *flags)
    for context in (dm(OWNER), dm(BOB)):
        agent.refused("pinned_context_mismatch", "list", CONFIDANTE_CONTEXT=json.dumps(context))
    # flags and CONFIDANTE_CONTEXT together: refused here, as in local mode
    agent.refused(
        "invalid_context", "list", "--as", DAVE, "--dm", exit_code=1, CONFIDANTE_CONTEXT="{}"
    )
    # the pin itself, given explicitly either way, is the pin
    assert len(agent.ok("list", "--as", DAVE, "--dm")["facts"]) == 1
    assert len(agent.ok("list", CONFIDANTE_CONTEXT=json.dumps(dm(DAVE)))["facts"]) == 1
    agent.created_nothing()


def test_an_unpinned_token_needs_a_context_and_the_agent_rules(
    deployment: Deployment, tmp_path: Path
) -> None:
    agent = Agent(tmp_path / "home", deployment.url, deployment.host_token)
    agent.refused("invalid_context", "list", exit_code=1)
    erin = json.dumps(dm(ERIN))
    wrote = agent.ok("remember", "Erin repairs clocks", CONFIDANTE_CONTEXT=erin)
    assert wrote["subject"] == ERIN
    assert [f["id"] for f in agent.ok("list", "--as", ERIN, "--dm")["facts"]] == [wrote["id"]]
    assert agent.ok("list", "--as", BOB, "--guild", "g9")["facts"] == []
    agent.refused("surface_not_allowed", "list", "--as", OWNER, "--local")
    agent.refused(
        "reserved_platform", "list", CONFIDANTE_CONTEXT=json.dumps(dm("silo:0123456789abcdef"))
    )
    agent.created_nothing()


def test_every_other_command_is_refused_before_it_does_anything(
    deployment: Deployment, tmp_path: Path
) -> None:
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("frank-pin", "discord:47"))
    refused = {k: v for k, v in every_command().items() if k not in gate.ALLOWED["client"]}
    assert {"init", "keys add-agent", "serve", "mcp", "selftest", "config"} <= set(refused)
    results = run_all(lambda argv: agent.run(*argv), refused)
    for name, d in results.items():
        assert d.code == 3 and _error(d) == "client_mode_forbids", (name, d.out, d.err)
    assert results["init"].json()["error"]["message"].startswith("`confidante init`")
    # a local database named on a memory command is refused too
    agent.refused("client_mode_forbids", "list", "--db", str(tmp_path / "elsewhere.db"))
    agent.refused("client_mode_forbids", "remember", "x", "--create")
    d = agent.run("--install-completion")
    assert d.code == 3 and _error(d) == "client_mode_forbids"
    # help and the version still work
    assert agent.run("version").out.startswith("confidante ")
    assert agent.run("--version").code == 0
    for argv in (["--help"], ["keys", "add-agent", "--help"], ["restore", "--help"]):
        assert agent.run(*argv).code == 0
    agent.created_nothing()


def test_client_mode_needs_both_variables_and_a_server(tmp_path: Path) -> None:
    agent = Agent(tmp_path / "home", f"http://127.0.0.1:{free_port()}", "cf_nothing")
    d = agent.refused("server_unreachable", "list", exit_code=1)
    assert "127.0.0.1" in d.json()["error"]["message"]
    d = agent.run("recall", "x")  # human output: one line, no traceback
    assert d.code == 1 and _error(d) == "server_unreachable"
    agent.refused("config_error", "list", exit_code=1, CONFIDANTE_TOKEN="")
    agent.refused("config_error", "list", exit_code=1, CONFIDANTE_URL="ftp://example.org")
    agent.refused("config_error", "list", exit_code=1, CONFIDANTE_URL="")
    agent.created_nothing()


def test_an_unknown_token_is_the_servers_401(deployment: Deployment, tmp_path: Path) -> None:
    agent = Agent(tmp_path / "home", deployment.url + "/v1", "cf_not-a-real-token")
    agent.refused("unauthenticated", "list", exit_code=1)
    agent.created_nothing()


# --- local mode with CONFIDANTE_CONTEXT -------------------------------------------------------


def test_local_mode_under_an_agent_context_changes_nothing(tmp_path: Path) -> None:
    place = tmp_path / "deploy"
    place.mkdir()
    env = base_env(tmp_path, CONFIDANTE_DB=str(place / "memory.db"), HOME=str(tmp_path / "home"))
    assert cli(env, "init").code == 0
    alice = env | {"CONFIDANTE_CONTEXT": json.dumps(dm(ALICE))}
    assert cli(alice, "remember", "-", "--json", stdin="Alice keeps bees").code == 0
    before = _files(place)
    assert set(before) >= {"memory.db", "memory.db.key"}
    around = {p for p in tmp_path.rglob("*")}

    refused = {k: v for k, v in every_command().items() if k not in gate.ALLOWED["agent"]}
    for must in ("init", "keys add-agent", "keys mint-token", "dashboard set-password", "import"):
        assert must in refused
    for must in ("export", "backup", "restore", "cleanup", "audit", "forget-guild", "log"):
        assert must in refused
    results = run_all(lambda argv: cli_in(alice, *argv, cwd=place), refused)
    for name, d in results.items():
        assert d.code == 3 and _error(d) == "agent_context_forbids", (name, d.out, d.err)
        assert "Traceback" not in d.err
    forged = [["restore", "x", "--force"], ["init", "--owner", BOB], ["serve", "--create"]]
    for argv in forged:
        assert _error(cli_in(alice, *argv, cwd=place)) == "agent_context_forbids"
    assert _error(cli(alice, "--install-completion")) == "agent_context_forbids"

    assert _files(place) == before  # the database and the key file, byte for byte
    assert {p for p in tmp_path.rglob("*")} == around  # and no new file anywhere
    # what an agent host may do still works, and --help everywhere
    hits = json.loads(cli(alice, "recall", "bees", "--json").out)["hits"]
    assert [h["fact"]["text"] for h in hits] == ["Alice keeps bees"]
    assert cli(alice, "keys", "add-agent", "--help").code == 0
    assert cli(alice, "version").code == 0


def cli_in(env: dict[str, str], *args: str, cwd: Path | None = None) -> Done:
    r = subprocess.run(
        [sys.executable, "-m", "confidante", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )
    return Done(r.returncode, r.stdout, r.stderr)


def test_a_command_added_later_is_refused_until_it_is_allowed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []
    later = typer.Typer()

    @later.command("brand-new")
    def brand_new(as_json: bool = typer.Option(False, "--json")) -> None:
        ran.append("brand-new")

    @later.command("version")
    def version() -> None:
        ran.append("version")

    command = typer.main.get_command(later)
    gate.install(command)
    for var, code in [
        ("CONFIDANTE_CONTEXT", "agent_context_forbids"),
        ("CONFIDANTE_URL", "client_mode_forbids"),
    ]:
        monkeypatch.setenv(var, "{}")
        assert command.main(["brand-new", "--json"], standalone_mode=False) == 3
        assert json.loads(capsys.readouterr().out)["error"]["code"] == code
        assert command.main(["version"], standalone_mode=False) in (None, 0)
        monkeypatch.delenv(var)
    assert command.main(["brand-new"], standalone_mode=False) in (None, 0)
    assert ran == ["version", "version", "brand-new"]


# --- delegated tokens ---------------------------------------------------------------------------


def test_delegated_tokens_over_http_and_the_cli(deployment: Deployment, tmp_path: Path) -> None:
    with deployment.open() as mem:
        host_token = AgentKeys(mem).add("host-two")
        pinned = AgentKeys(mem).add("pinned-two", dm(CAROL))
    minted = deployment.api(
        host_token, "/v1/agent-tokens", {"context": dm(ALICE), "ttl_seconds": 600}
    )
    assert minted.status_code == 201, minted.text
    token = minted.json()["token"]
    expires = datetime.fromisoformat(minted.json()["expires_at"])
    assert timedelta(seconds=590) < expires - datetime.now(UTC) <= timedelta(seconds=601)

    # the model's shell holds only this token: it speaks as Alice and nobody else
    agent = Agent(tmp_path / "home", deployment.url, token)
    wrote = agent.ok("remember", "Alice is learning the cello")
    assert wrote["subject"] == ALICE
    agent.refused("pinned_context_mismatch", "list", "--as", OWNER, "--dm")
    agent.refused("pinned_context_mismatch", "list", CONFIDANTE_CONTEXT=json.dumps(dm(BOB)))
    # ... and cannot mint another, nor can a pinned key
    for parent in (token, pinned):
        r = deployment.api(parent, "/v1/agent-tokens", {"context": dm(OWNER)})
        assert r.status_code == 403 and r.json()["error"]["code"] == "delegation_forbidden"
    # what an agent may assert, and a lifetime of at most a day
    for body, status, code in [
        ({"context": {"surface": "local", "actor": OWNER}}, 403, "surface_not_allowed"),
        ({"context": dm(ALICE), "ttl_seconds": 86_401}, 422, "invalid_input"),
        ({"context": dm(ALICE), "ttl_seconds": 0}, 422, "invalid_input"),
        ({"ttl_seconds": 60}, 422, "invalid_input"),
    ]:
        r = deployment.api(host_token, "/v1/agent-tokens", body)
        assert r.status_code == status and r.json()["error"]["code"] == code, r.text

    # tampered: a byte of the context, of the MAC, or a token cut short, is an unknown key
    head, claims, mac = token.rsplit(".", 2)
    forged_claims = json.loads(_unb64(claims)) | {"c": dm(OWNER)}
    for bad in (
        f"{head}.{_b64(json.dumps(forged_claims).encode())}.{mac}",
        f"{head}.{claims}.{mac[:-1]}{'A' if mac[-1] != 'A' else 'B'}",
        token[:-4],
        token + "=",
    ):
        r = deployment.api(bad, "/v1/memories/list", {})
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"

    # expired: one signed an hour ago for ten minutes
    with deployment.open() as mem:
        stale, _ = AgentKeys(mem).delegate(
            "host-two", dm(ALICE), 600, now=datetime.now(UTC) - timedelta(hours=1)
        )
    Agent(tmp_path / "stale", deployment.url, stale).refused("unauthenticated", "list", exit_code=1)

    # the owner's CLI twin, and revoking the parent ends every token it minted
    made = cli(deployment.env, "keys", "mint-token", "host-two", "--as", GRACE, "--dm", "--json")
    assert made.code == 0, made.err
    grace = Agent(tmp_path / "grace", deployment.url, made.json()["token"])
    assert grace.ok("remember", "Grace paints boats")["subject"] == GRACE
    refusal = cli(deployment.env, "keys", "mint-token", "pinned-two", "--as", BOB, "--dm", "--json")
    assert refusal.code == 3 and refusal.json()["error"]["code"] == "delegation_forbidden"
    no_context = cli(deployment.env, "keys", "mint-token", "host-two", "--json")
    assert no_context.json()["error"]["code"] == "invalid_context"
    assert cli(deployment.env, "keys", "revoke-agent", "host-two").code == 0
    cli(deployment.env, "keys", "add-agent", "host-two")  # the same name, a new key
    for gone in (agent, grace):
        gone.refused("unauthenticated", "list", exit_code=1)
    agent.created_nothing()


def test_the_mint_route_is_documented(deployment: Deployment) -> None:
    spec = httpx.get(f"{deployment.url}/openapi.json").json()
    route = spec["paths"]["/v1/agent-tokens"]["post"]
    assert route["summary"] and "agent keys" in route["tags"]
    assert "delegation_forbidden" in route["responses"]["403"]["description"]
    assert route["security"] == [{"agentKey": []}]


def _b64(raw: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_delegated_tokens_in_the_library(mem: Memory) -> None:
    """On both engines: the secret lives in sealed meta; the checks are the library's."""
    keys = AgentKeys(mem)
    keys.add("host")
    keys.add("alice-pin", dm(ALICE))
    token, until = keys.delegate("host", dm(ALICE), 60)
    key = keys.verify(token)
    assert key is not None and key.name == "host" and key.pinned_context() == Context.dm(ALICE)
    assert keys.verify(token, now=until) is None  # expired at its expiry
    assert keys.verify(token, now=until - timedelta(seconds=1)) is not None
    with pytest.raises(ConfidanteError) as e:
        keys.delegate("alice-pin", dm(ALICE))
    assert getattr(e.value, "code", None) == "delegation_forbidden"
    for ttl in (0, 86_401, True):
        with pytest.raises(ConfidanteError) as e:
            keys.delegate("host", dm(ALICE), ttl)
        assert getattr(e.value, "code", None) == "invalid_input"
    with pytest.raises(ConfidanteError) as e:
        keys.delegate("host", {"surface": "owner_dashboard", "actor": OWNER})
    assert getattr(e.value, "code", None) == "surface_not_allowed"
    with pytest.raises(ConfidanteError) as e:
        keys.delegate("nobody", dm(ALICE))
    assert getattr(e.value, "code", None) == "not_found"
    keys.revoke("host")
    keys.add("host")
    assert keys.verify(token) is None  # a new key under the old name does not revive it


# --- the documentation's own example and the skill's snippets ---------------------------------

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "tea $(touch pwned-1) `touch pwned-2` ' \" ; touch pwned-3 \\\nEOF\nsecond line"


def test_the_how_to_example_runs(tmp_path: Path) -> None:
    """The how-to's runnable example, on a free port: the model's shell writes and recalls as
    the token's person, is refused the owner's context and commands, and creates no file."""
    text = (ROOT / "docs/howto/agent-hosts.md").read_text()
    script = text.split("<!-- agent-hosts:example -->\n```sh\n", 1)[1].split("```", 1)[0]
    script = script.replace("8765", str(free_port()))
    env = base_env(tmp_path, HOME=str(tmp_path), TMPDIR=str(tmp_path))
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.Popen(
        ["bash", "-c", script],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the server it starts is in its process group
    )
    try:
        out, err = proc.communicate(timeout=240)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, out + err
    answers = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    wrote, found = answers[0], answers[1]
    assert wrote["subject"] == "discord:42"
    assert [h["fact"]["text"] for h in found["hits"]] == ["I prefer tea in the afternoon"]
    codes = [a["error"]["code"] for a in answers[2:]]
    assert codes == ["pinned_context_mismatch", "client_mode_forbids", "client_mode_forbids"]
    assert "boat" not in out
    assert out.rstrip().endswith("}")  # `ls -A` of the model's home printed nothing
    assert "Traceback" not in err


def _skill_blocks() -> list[str]:
    skill = (ROOT / "integrations/openclaw/SKILL.md").read_text()
    agent_part = skill.split("## For the agent host")[0]
    assert "CONFIDANTE_URL" in agent_part and "CONFIDANTE_TOKEN" in agent_part
    return [b.split("\n", 1)[1].split("```")[0] for b in agent_part.split("```sh")[1:]]


def test_the_skill_runs_in_client_mode(deployment: Deployment, tmp_path: Path) -> None:
    """The skill's own snippets, with a hostile message where the model puts it, in the
    model's shell as the skill describes it: a pinned token and the server's address."""
    blocks = _skill_blocks()
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("skill-pin", "discord:49"))
    remember = next(b for b in blocks if "remember -" in b)
    context = next(b for b in blocks if "<the user's message" in b)
    for shell in (
        remember.replace("Prefers short answers", HOSTILE),
        context.replace("<the user's message, exactly as received>", HOSTILE),
    ):
        r = subprocess.run(
            ["bash", "-c", shell],
            env=agent.env,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=agent.home,
        )
        assert r.returncode == 0, r.stderr
        answer = json.loads(r.stdout)
        assert answer.get("text", HOSTILE.strip()) == HOSTILE.strip()
        assert "touch pwned-3" in answer.get("text", answer.get("context", ""))
    agent.created_nothing()  # no pwned-* file, no database, no key file
