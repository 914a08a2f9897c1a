"""The tiered skill's dependents keep working (issue 25 item 4), and client mode carries what
issues 24 and 25 added (metadata, filters, history, display names, the public stats).

A real `confidante serve` on a free port; the model's shell is the console script with only
CONFIDANTE_URL and a pinned CONFIDANTE_TOKEN in a fresh, empty HOME. The skill's own code
blocks (`integrations/complex-memory-manager/SKILL.md`, English and Chinese) run there as
written, and every `confidante` command the skill names parses.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from confidante import Context, Memory
from confidante.services.credentials import AgentKeys
from process_helpers import Done, Server, base_env, cli, serve

from conftest import ALICE, BOB, OWNER

ROOT = Path(__file__).resolve().parents[1]
SKILL = ROOT / "integrations/complex-memory-manager/SKILL.md"
CONSOLE = str(Path(sys.executable).parent / "confidante")


@dataclass
class Deployment:
    server: Server
    env: dict[str, str]
    db: Path
    host_token: str

    @property
    def url(self) -> str:
        return self.server.url

    def open(self) -> Memory:
        return Memory.open(self.db, owner_ids=[OWNER])

    def pinned(self, name: str, actor: str) -> str:
        with self.open() as mem:
            return AgentKeys(mem).add(name, {"surface": "dm", "actor": actor})


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


class Agent:
    """The model's shell on an agent host: the server's address and a token, nothing else."""

    def __init__(self, home: Path, url: str, token: str) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        path = str(Path(CONSOLE).parent)
        self.env = {
            "PATH": f"{path}:/usr/bin:/bin",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
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
            timeout=300,
            cwd=self.home,
        )
        assert "Traceback" not in r.stderr, r.stderr
        return Done(r.returncode, r.stdout, r.stderr)

    def ok(self, *args: str, stdin: str = "", **env: str) -> Any:
        d = self.run(*args, "--json", stdin=stdin, **env)
        assert d.code == 0, d.out + d.err
        return d.json()

    def shell(self, script: str) -> list[Any]:
        """A block of the skill, run by bash as written; one JSON answer a line."""
        r = subprocess.run(
            ["bash", "-c", script],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=self.home,
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
        return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]

    def created_nothing(self) -> None:
        assert list(self.home.rglob("*")) == []


# --- the skill ---------------------------------------------------------------------------------


def _skill() -> tuple[dict[str, str], str, str]:
    text = SKILL.read_text()
    _, front, body = text.split("---\n", 2)
    english, chinese = body.split("\n---\n", 1)
    fields = dict(line.split(":", 1) for line in front.splitlines() if re.match(r"^[a-z]+:", line))
    return {k: v.strip() for k, v in fields.items()}, english, chinese


def _blocks(part: str) -> list[str]:
    return [b.split("```", 1)[0] for b in part.split("```sh\n")[1:]]


def test_the_front_matter_answers_to_the_old_name() -> None:
    front, english, chinese = _skill()
    assert front["name"] == "complex-memory-manager"
    assert front["version"].split(".")[0] >= "4"
    assert "CONFIDANTE_URL" in english and "CONFIDANTE_TOKEN" in english
    assert "complex-memory-manager" in chinese and "标准输入" in chinese


def test_the_skill_runs_as_written_in_client_mode(deployment: Deployment, tmp_path: Path) -> None:
    _, english, chinese = _skill()
    remember, recall, by_skill, stats = _blocks(english)
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("cmm-pin", ALICE))
    other = agent.ok("remember", "-", "--skill", "calendar", stdin="Meets the team on Mondays")

    (stored,) = agent.shell(remember)
    assert stored["text"] == "Prefers the forecast in Celsius"
    assert (stored["source_skill"], stored["kind"], stored["subject"]) == (
        "weather-brief",
        "preference",
        ALICE,
    )
    (found,) = agent.shell(recall)
    assert {h["fact"]["subject"] for h in found["hits"]} <= {ALICE}
    (listed,) = agent.shell(by_skill)
    assert [f["id"] for f in listed["facts"]] == [stored["id"]]

    one, failed, pattern, read = agent.shell(stats)
    assert (one["recorded"], one["ok"], failed["ok"]) == ("skill_use", True, False)
    assert pattern == {"recorded": "pattern", "skills": ["calendar", "weather-brief"], "count": 1}
    brief = read["skill_stats"]["weather-brief"]
    assert brief["calls"] == 2 and brief["success_rate"] == 0.5
    assert {
        "trigger": "morning request",
        "skills_used": ["calendar", "weather-brief"],
        "count": 1,
    } in read["patterns_observed"]

    # the Chinese part: the same operations, Chinese text through stdin
    zh_remember, zh_recall = _blocks(chinese)
    (zh,) = agent.shell(zh_remember)
    assert zh["text"] == "天气预报喜欢用摄氏度" and zh["source_skill"] == "weather-brief"
    (zh_found,) = agent.shell(zh_recall)
    assert zh["id"] in [h["fact"]["id"] for h in zh_found["hits"]]
    listed = agent.ok("list", "--skill", "weather-brief")["facts"]
    assert {f["id"] for f in listed} == {stored["id"], zh["id"]}

    # "Forget one stored item": `confidante forget ID --json`
    assert agent.ok("forget", other["id"]) == {"forgotten": other["id"]}
    # nothing of this reaches anyone else
    bob = Agent(tmp_path / "bob", deployment.url, deployment.pinned("cmm-bob", BOB))
    assert bob.ok("list", "--skill", "weather-brief")["facts"] == []
    agent.created_nothing()
    bob.created_nothing()


def _commands(text: str) -> list[list[str]]:
    """Every `confidante ...` command the skill names, in code spans and code blocks."""
    spans = re.findall(r"`(confidante [^`]+)`", text)
    lines = [
        ln.split("<<")[0]
        for b in text.split("```sh\n")[1:]
        for ln in b.split("```")[0].splitlines()
        if ln.startswith("confidante ")
    ]
    found = []
    for line in spans + lines:
        argv = shlex.split(line.replace("技能名", "weather-brief"))
        found.append([a if a not in ("ID", "OWNER_ID") else "x" for a in argv[1:]])
    return found


def test_every_command_the_skill_names_exists(deployment: Deployment, tmp_path: Path) -> None:
    """Each parses (`--help` after it answers 0 only when every option exists), in client
    mode as the model's shell runs it; the owner's commands among them are for the owner's
    own shell and are refused here, before they do anything."""
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("cmm-names", "discord:77"))
    commands = _commands(SKILL.read_text())
    assert {"remember", "recall", "list", "forget", "stats"} <= {argv[0] for argv in commands}
    assert {"record", "pattern"} <= {a[1] for a in commands if len(a) > 1 and a[0] == "stats"}
    for argv in commands:
        assert agent.run(*argv, "--help").code == 0, argv
    for owners in (["cleanup"], ["audit"], ["import", "--from", "tiered", "x"]):
        d = agent.run(*owners, "--json")
        assert d.code == 3 and d.json()["error"]["code"] == "client_mode_forbids"
    agent.created_nothing()


# --- client mode: what issues 24 and 25 added, over /v1 ---------------------------------------


def test_metadata_filters_and_history_in_client_mode(
    deployment: Deployment, tmp_path: Path
) -> None:
    agent = Agent(tmp_path / "home", deployment.url, deployment.pinned("v2-pin", "discord:61"))
    sushi = agent.ok("remember", "I like sushi", "--metadata", '{"category": "food"}')
    assert sushi["metadata"] == {"category": "food"} and sushi["refreshed"] is False
    assert agent.ok("remember", "I like sushi")["refreshed"] is True
    said = agent.run("remember", "I like sushi").out.strip()
    assert said == f"already remembered {sushi['id']} in user, refreshed"
    tea = agent.ok("remember", "-", "--skill", "drinks", stdin="I drink green tea")

    assert [f["id"] for f in agent.ok("list", "--filter", '{"category": "food"}')["facts"]] == [
        sushi["id"]
    ]
    assert [f["id"] for f in agent.ok("list", "--skill", "drinks")["facts"]] == [tea["id"]]
    hits = agent.ok("recall", "sushi tea", "--filter", '{"source_skill": "drinks"}')["hits"]
    assert [h["fact"]["id"] for h in hits] == [tea["id"]]
    bad = agent.run("list", "--filter", '{"kind": {"$regex": "x"}}', "--json")
    assert bad.code == 1 and bad.json()["error"]["code"] == "invalid_filter"

    moved = agent.ok("update", sushi["id"], "I like ramen", "--metadata", '{"category": "noodles"}')
    assert moved["metadata"] == {"category": "noodles"}
    versions = agent.ok("history", sushi["id"])["versions"]
    assert [(v["event"], v["text"]) for v in versions] == [
        ("add", "I like sushi"),
        ("update", "I like ramen"),
    ]
    # the same shapes as the owner's local CLI on the server's database
    local = cli(deployment.env, "history", sushi["id"], "--as", "discord:61", "--dm", "--json")
    assert local.code == 0 and local.json() == {"versions": versions}
    local_fact = cli(deployment.env, "get", sushi["id"], "--as", "discord:61", "--dm", "--json")
    assert local_fact.json() == agent.ok("get", sushi["id"])
    agent.created_nothing()


def test_names_and_stats_in_client_mode(deployment: Deployment, tmp_path: Path) -> None:
    host = Agent(tmp_path / "host", deployment.url, deployment.host_token)
    names = json.dumps({"discord:62": "Dora"})
    wrote = host.ok(
        "remember", "Dora grows chillies", "--as", "discord:62", "--dm", "--names", names
    )
    assert wrote["subject"] == "discord:62"
    with deployment.open() as mem:
        assert mem.people(Context.dm(OWNER))["discord:62"] == ["Dora"]
    # the owner asks by name, in their own DM, over the API
    hits = host.ok("recall", "what does Dora grow?", "--as", OWNER, "--dm")["hits"]
    assert [h["fact"]["id"] for h in hits] == [wrote["id"]]
    # about_guild, from the flags, reaches the server as the context's field
    host.ok(
        "remember", "Quiz night is on Friday", "--as", "discord:63", "--guild", "g7", "-n", "guild"
    )
    assert host.ok("recall", "quiz night", "--as", OWNER, "--dm")["hits"] == []
    tied = host.ok("recall", "quiz night", "--as", OWNER, "--dm", "--about-guild", "g7")["hits"]
    assert [h["fact"]["text"] for h in tied] == ["Quiz night is on Friday"]

    # the public stats from a pinned key, and refusals keep their codes
    pinned = Agent(tmp_path / "pin", deployment.url, deployment.pinned("stats-pin", "discord:64"))
    assert pinned.ok("stats", "record", "digest", "--count", "3")["count"] == 3
    refused = pinned.run("stats", "record", "bob@example.org", "--json")
    assert refused.code == 1 and refused.json()["error"]["code"] == "private_data_refused"
    assert "example.org" not in refused.out
    assert pinned.ok("stats")["skill_stats"]["digest"]["calls"] == 3
    for owner_only in (["space", "list"], ["people"], ["space", "create", "home"]):
        d = pinned.run(*owner_only, "--json")
        assert d.code == 3 and d.json()["error"]["code"] == "client_mode_forbids"
    pinned.created_nothing()
    host.created_nothing()


def test_the_stats_routes(deployment: Deployment) -> None:
    url = deployment.server.url
    spec = httpx.get(f"{url}/openapi.json").json()
    for path in ("/v1/stats/skills", "/v1/stats/patterns"):
        route = spec["paths"][path]["post"]
        assert route["summary"] and route["tags"] == ["stats"]
        assert route["security"] == [{"agentKey": []}]
        assert "private_data_refused" in route["responses"]["422"]["description"]
        assert "201" in route["responses"]
    post = deployment.server.client.post
    auth = {"Authorization": f"Bearer {deployment.host_token}"}
    r = post("/v1/stats/skills", json={"skill": "web-search", "ok": False}, headers=auth)
    assert r.status_code == 201 and r.json() == {
        "recorded": "skill_use",
        "skill": "web-search",
        "ok": False,
        "count": 1,
    }
    r = post("/v1/stats/patterns", json={"trigger": "evening", "skills": ["b", "a"]}, headers=auth)
    assert r.status_code == 201 and r.json() == {
        "recorded": "pattern",
        "skills": ["a", "b"],
        "count": 1,
    }
    for body, code in [
        ({"skill": "x", "extra": 1}, "invalid_input"),
        ({"skill": "x", "count": 0}, "invalid_input"),
        ({"trigger": "x", "skills": []}, "invalid_input"),
    ]:
        path = "/v1/stats/skills" if "skill" in body else "/v1/stats/patterns"
        r = post(path, json=body, headers=auth)
        assert r.status_code == 422 and r.json()["error"]["code"] == code, (body, r.text)
    r = post(
        "/v1/stats/patterns",
        json={"trigger": "asked by Alice Smith at 7:42", "skills": ["a"]},
        headers=auth,
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "identifier_refused"
    assert "Alice" not in r.text
    r = post("/v1/stats/skills", json={"skill": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"
