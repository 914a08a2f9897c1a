"""The CLI twins of metadata, filters, history, shared spaces, the people directory and the
public stats (issues 24 and 25), and the papercuts of issue 24 item 10.

Most commands run in this process through `confidante.main.main()` (the real command line:
parser, gate, exit codes) on a real SQLite file, which keeps the models loaded between
calls; what only a fresh process shows (no traceback, what a process imports, a busy port)
runs the real `python -m confidante`.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from confidante.main import main
from process_helpers import base_env, cli, free_port, serve

from conftest import ALICE, BOB, CAROL, OWNER

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def error(self) -> str:
        return self.json()["error"]["code"]


Run = Callable[..., Ran]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """`confidante ARGS` in this process, on a database of its own (owners OWNER and
    telegram:7); `stdin=` feeds `-`, `env=` adds variables for this call."""
    monkeypatch.setenv("CONFIDANTE_DB", str(tmp_path / "cli.db"))
    monkeypatch.setenv("CONFIDANTE_OWNER_IDS", f"{OWNER},telegram:7")
    monkeypatch.setenv("CONFIDANTE_CONFIG", str(tmp_path / "none.toml"))

    def _run(*args: str, stdin: str = "", ok: bool = True, **env: str) -> Ran:
        with monkeypatch.context() as m:
            for k, v in env.items():
                m.setenv(k, v)
            m.setattr(sys, "argv", ["confidante", *args])
            m.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
            try:
                main()
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        captured = capsys.readouterr()
        done = Ran(code, captured.out, captured.err)
        if ok:
            assert code == 0, done
        return done

    _run("init", "--no-credentials")
    return _run


def j(done: Ran) -> Any:
    return done.json()


DM_ALICE = ["--as", ALICE, "--dm"]
DM_OWNER = ["--as", OWNER, "--dm"]


# --- metadata, filters, history, per-skill views ---------------------------------------------


def test_metadata_filters_and_the_skill_view(run: Run) -> None:
    sushi = j(
        run("remember", "I like sushi", *DM_ALICE, "--metadata", '{"category": "food"}', "--json")
    )
    assert sushi["metadata"] == {"category": "food"} and sushi["refreshed"] is False
    tea = j(
        run(
            "remember",
            "-",
            *DM_ALICE,
            "--skill",
            "drinks",
            "--kind",
            "preference",
            "--metadata",
            '{"category": "drink"}',
            "--json",
            stdin="I prefer green tea",
        )
    )
    assert tea["source_skill"] == "drinks" and tea["kind"] == "preference"

    food = j(run("list", *DM_ALICE, "--filter", '{"category": "food"}', "--json"))["facts"]
    assert [f["id"] for f in food] == [sushi["id"]]
    both = j(
        run("list", *DM_ALICE, "--filter", '{"category": {"$in": ["food", "drink"]}}', "--json")
    )["facts"]
    assert {f["id"] for f in both} == {sushi["id"], tea["id"]}
    by_skill = j(run("list", *DM_ALICE, "--skill", "drinks", "--json"))["facts"]
    assert [f["id"] for f in by_skill] == [tea["id"]]
    # --skill and --filter together: both must hold
    none = j(
        run("list", *DM_ALICE, "--skill", "drinks", "--filter", '{"category": "food"}', "--json")
    )["facts"]
    assert none == []
    hits = j(run("recall", "sushi tea", *DM_ALICE, "--filter", '{"kind": "preference"}', "--json"))[
        "hits"
    ]
    assert [h["fact"]["id"] for h in hits] == [tea["id"]]
    assert "nothing visible" in run("list", *DM_ALICE, "--skill", "nobody-skill").out

    # a filter narrows: Bob sees nothing of Alice's through any filter
    assert j(run("list", "--as", BOB, "--dm", "--skill", "drinks", "--json"))["facts"] == []


def test_the_same_sentence_again_is_refreshed_and_said_so(run: Run) -> None:
    first = j(run("remember", "I like sushi", *DM_ALICE, "--json"))
    again = run("remember", "I like sushi", *DM_ALICE)
    assert again.out.strip() == f"already remembered {first['id']} in user, refreshed"
    assert j(run("remember", "I like sushi", *DM_ALICE, "--json"))["refreshed"] is True
    assert len(j(run("list", *DM_ALICE, "--json"))["facts"]) == 1


def test_update_metadata_and_history(run: Run) -> None:
    fact = j(
        run("remember", "I live in Paris", *DM_ALICE, "--metadata", '{"city": "paris"}', "--json")
    )
    kept = j(run("update", fact["id"], "I live in Lyon", *DM_ALICE, "--json"))
    assert kept["text"] == "I live in Lyon" and kept["metadata"] == {"city": "paris"}
    changed = j(
        run(
            "update",
            fact["id"][:8],
            "-",
            *DM_ALICE,
            "--metadata",
            '{"city": "lyon"}',
            "--json",
            stdin="I live in Lyon now",
        )
    )
    assert changed["metadata"] == {"city": "lyon"}
    versions = j(run("history", fact["id"], *DM_ALICE, "--json"))["versions"]
    assert [v["event"] for v in versions] == ["add", "update", "update"]
    assert [v["text"] for v in versions] == [
        "I live in Paris",
        "I live in Lyon",
        "I live in Lyon now",
    ]
    assert versions[1]["previous"] == "I live in Paris" and versions[0]["previous"] is None
    assert set(versions[0]) == {"fact_id", "event", "text", "previous", "at"}
    human = run("history", fact["id"], *DM_ALICE).out
    assert "I live in Paris" in human and "update" in human
    # visibility as `get`: someone else gets not_found, and the text is not shown
    other = run("history", fact["id"], "--as", BOB, "--dm", "--json", ok=False)
    assert other.code == 1 and other.error == "not_found" and "Paris" not in other.out


def test_bad_json_options_are_coded_and_never_echoed(run: Run) -> None:
    secret = "sk_live_51Canary7Qz9Xw2Lm4Np8Kd3Vb6Hs"
    for args, code in [
        (["remember", "x", *DM_ALICE, "--metadata", f'{{"k": "{secret}"'], "invalid_input"),
        (["remember", "x", *DM_ALICE, "--metadata", f'["{secret}"]'], "invalid_input"),
        (["list", *DM_ALICE, "--filter", f"{{{secret}"], "invalid_filter"),
        (
            ["list", *DM_ALICE, "--filter", f'{{"kind": {{"$regex": "{secret}"}}}}'],
            "invalid_filter",
        ),
        (["recall", "x", *DM_ALICE, "--names", f'{{"{secret}"'], "invalid_context"),
        (
            ["remember", "x", *DM_ALICE, "--metadata", f'{{"key": "{secret}"}}'],
            "private_data_refused",
        ),
    ]:
        done = run(*args, "--json", ok=False)
        assert done.code in (1, 3) and done.error == code, (args, done)
        assert "Canary7Qz9" not in done.out + done.err


# --- shared spaces and the people directory --------------------------------------------------


def test_spaces_from_the_command_line(run: Run) -> None:
    made = j(run("space", "create", "home", "--member", ALICE, "--member", BOB, "--json"))
    assert made == {"name": "home", "namespace": "shared:home", "members": [ALICE, BOB]}
    assert "created team (shared:team): no members yet" in run("space", "create", "team").out
    listed = j(run("space", "list", "--json"))["spaces"]
    assert [s["name"] for s in listed] == ["home", "team"]

    bins = j(
        run(
            "remember", "The bins go out on Tuesday night", *DM_ALICE, "-n", "shared:home", "--json"
        )
    )
    assert bins["scope"] == "shared"
    hits = j(run("recall", "bins", "--as", BOB, "--dm", "--json"))["hits"]
    assert [h["fact"]["id"] for h in hits] == [bins["id"]]
    outsider = run("remember", "x", "--as", CAROL, "--dm", "-n", "shared:home", "--json", ok=False)
    assert outsider.code == 3 and outsider.error == "not_a_member"
    assert j(run("recall", "bins", "--as", CAROL, "--dm", "--json"))["hits"] == []

    assert j(run("space", "add", "home", CAROL, "--json"))["members"] == [ALICE, BOB, CAROL]
    assert [
        h["fact"]["id"] for h in j(run("recall", "bins", "--as", CAROL, "--dm", "--json"))["hits"]
    ] == [bins["id"]]
    assert j(run("space", "remove", "home", BOB, "--json"))["members"] == [ALICE, CAROL]
    assert j(run("recall", "bins", "--as", BOB, "--dm", "--json"))["hits"] == []

    gone = j(run("space", "delete", "home", "--json"))
    assert gone["deleted"] == "home"
    assert j(run("recall", "bins", "--as", ALICE, "--dm", "--json"))["hits"] == []
    assert [s["name"] for s in j(run("space", "list", "--json"))["spaces"]] == ["team"]

    # the owner's, in private: another context is refused by the core, with exit 3
    refused = run("space", "create", "x", "--as", ALICE, "--dm", "--json", ok=False)
    assert refused.code == 3 and refused.error == "owner_required"
    refused = run("space", "list", "--as", OWNER, "--guild", "g1", "--json", ok=False)
    assert refused.code == 3 and refused.error == "owner_private_context_required"
    # and never for an agent host
    host = {"CONFIDANTE_CONTEXT": json.dumps({"surface": "dm", "actor": OWNER})}
    for argv in (["space", "list"], ["space", "create", "y"], ["people"]):
        done = run(*argv, "--json", ok=False, **host)
        assert done.code == 3 and done.error == "agent_context_forbids", argv


def test_names_and_about_guild_flags(run: Run) -> None:
    names = json.dumps({ALICE: "Alice", BOB: "Bob"})
    run("remember", "I am allergic to peanuts", *DM_ALICE, "--names", json.dumps({ALICE: "Alice"}))
    run(
        "remember",
        "Saturday picnic at the lake",
        "--as",
        BOB,
        "--guild",
        "g1",
        "-n",
        "guild",
        "--participants",
        ALICE,
        "--names",
        names,
    )
    people = j(run("people", "--json"))["people"]
    assert people[ALICE] == ["Alice"] and people[BOB] == ["Bob"]
    assert "Alice" in run("people").out
    refused = run("people", *DM_ALICE, "--json", ok=False)
    assert refused.code == 3 and refused.error == "owner_required"

    # the owner asks by name, in their DM: Alice's own fact joins the recall
    hits = j(run("recall", "what is Alice allergic to?", *DM_OWNER, "--json"))["hits"]
    assert [h["fact"]["text"] for h in hits] == ["I am allergic to peanuts"]
    # a guild's memory joins only when the owner's context is tied to it
    assert j(run("recall", "picnic", *DM_OWNER, "--json"))["hits"] == []
    for flags in (["--dm"], ["--local"], ["--owner-dashboard"]):
        hits = j(run("recall", "picnic", "--as", OWNER, *flags, "--about-guild", "g1", "--json"))[
            "hits"
        ]
        assert [h["fact"]["text"] for h in hits] == ["Saturday picnic at the lake"], flags
    # ... and means nothing in anyone else's DM
    hits = j(run("recall", "picnic", *DM_ALICE, "--about-guild", "g1", "--json"))["hits"]
    assert all("picnic" not in h["fact"]["text"] for h in hits)

    for args in (
        ["--as", OWNER, "--local", "--names", names],
        ["--as", BOB, "--guild", "g1", "--about-guild", "g1"],
        ["--background", "digest", "--names", names],
    ):
        done = run("list", *args, "--json", ok=False)
        assert done.code == 1 and done.error == "invalid_context", args


# --- the public stats, and the old skill's cleanup log ---------------------------------------


def test_stats_record_pattern_and_read(run: Run) -> None:
    assert j(run("stats", "--json")) == {"skill_stats": {}, "patterns_observed": []}
    assert j(run("stats", "record", "weather-brief", "--json")) == {
        "recorded": "skill_use",
        "skill": "weather-brief",
        "ok": True,
        "count": 1,
    }
    assert (
        "recorded 2 failed calls"
        in run("stats", "record", "weather-brief", "--failed", "--count", "2").out
    )
    run("stats", "pattern", "--skills", "weather-brief,calendar", stdin="morning request\n")
    run("stats", "pattern", "morning request", "--skills", "calendar,weather-brief")
    data = j(run("stats", "--json"))
    assert data["skill_stats"]["weather-brief"]["calls"] == 3
    assert data["skill_stats"]["weather-brief"]["success_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert data["patterns_observed"] == [
        {"trigger": "morning request", "skills_used": ["calendar", "weather-brief"], "count": 2}
    ]
    # an agent host may count and read, as its context (no identifiers can get in)
    host = {"CONFIDANTE_CONTEXT": json.dumps({"surface": "dm", "actor": ALICE})}
    run("stats", "record", "calendar", "--json", **host)
    assert j(run("stats", "--json", **host))["skill_stats"]["calendar"]["calls"] == 1
    for args, code in [
        (["stats", "record", "alice@example.org"], "private_data_refused"),
        (["stats", "pattern", "--skills", "calendar"], "invalid_input"),  # no trigger on stdin
        (["stats", "pattern", "x"], "invalid_input"),  # no --skills
        (["stats", "record", "calendar", "--count", "0"], None),  # a usage error
    ]:
        done = run(*args, "--json", ok=False)
        if code is None:
            assert done.code == 2
        else:
            assert done.code in (1, 3) and done.error == code, (args, done)
    assert "alice" not in json.dumps(j(run("stats", "--json")))


def test_cleanup_appends_the_old_skills_log_line(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "logs" / "cleanup.log"
    log.parent.mkdir()
    log.write_text("[2025-01-01] Memory cleanup: 1 archived, 0 deleted, 0 merged\n")
    first = j(run("cleanup", "--log-file", str(log), "--json"))
    run("cleanup", "--log-file", str(log))
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and lines[1] == first["line"] and first["log_file"] == str(log)
    pattern = r"\[\d{4}-\d{2}-\d{2}\] Memory cleanup: \d+ archived, \d+ deleted, \d+ merged"
    assert all(re.fullmatch(pattern, line) for line in lines)
    for args in (["--dry-run"], ["--history"]):
        done = run("cleanup", "--log-file", str(log), *args, "--json", ok=False)
        assert done.error == "invalid_input"
    done = run("cleanup", "--log-file", str(tmp_path), "--json", ok=False)
    assert done.error == "invalid_input" and "folder" in done.json()["error"]["message"]
    assert len(log.read_text().splitlines()) == 3


# --- papercuts -------------------------------------------------------------------------------


def test_a_db_that_is_no_database_says_so(run: Run, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: milk, eggs\n")
    before = sorted(tmp_path.rglob("*"))
    for target, said in [(tmp_path, "is a folder"), (notes, "not a confidante database")]:
        for argv in (["list", "--dashboard"], ["init"], ["stats"]):
            done = run(*argv, "--db", str(target), "--json", ok=False)
            assert done.code == 1 and done.error == "not_a_database", (argv, done)
            assert said in done.json()["error"]["message"]
    assert notes.read_text() == "shopping: milk, eggs\n"
    assert sorted(tmp_path.rglob("*")) == before  # no key file, no database made anywhere


def test_forget_subject_json_has_one_shape(run: Run) -> None:
    run("remember", "I like tea", *DM_ALICE)
    run("remember", "I like coffee", "--as", BOB, "--dm")
    by_owner = j(run("forget-subject", ALICE, "--as", OWNER, "--local", "--json"))
    by_self = j(run("forget-subject", "--as", BOB, "--dm", "--json"))
    assert set(by_owner) == set(by_self)
    assert by_owner["forgotten"] == by_self["forgotten"] == 1
    assert by_owner["subject"] == ALICE and by_self["subject"] == BOB
    assert by_owner["facts_deleted"] == 1 and by_owner["keys_destroyed"] >= 1
    assert all(v is None for k, v in by_self.items() if k not in ("forgotten", "subject"))


def test_export_to_an_existing_file_names_force(run: Run, tmp_path: Path) -> None:
    run("remember", "Dentist on Thursday", *DM_OWNER, "-n", "owner")
    dest = tmp_path / "out.jsonl"
    dest.write_text("keep me\n")
    tree = tmp_path / "tree"
    (tree / "x").mkdir(parents=True)
    for target, fmt in [(dest, "jsonl"), (tree, "silo-tree"), (dest, "memory-facts")]:
        done = run("export", str(target), "--to", fmt, "--as", OWNER, "--local", "--json", ok=False)
        assert done.error == "invalid_input" and "--force" in done.json()["error"]["message"]
    assert dest.read_text() == "keep me\n"
    run("export", str(dest), "--as", OWNER, "--local", "--force")
    assert "Dentist" in dest.read_text()


def test_config_show_lists_lifetimes_and_checks_the_embedder(run: Run) -> None:
    from confidante.config import lifetimes, load_settings

    shown = j(run("config", "--show", "--json"))
    assert shown["lifetimes_days"] == lifetimes(load_settings())
    assert shown["lifetimes_days"]["session"] == 30 and shown["lifetimes_days"]["owner"] == 365
    assert "lifetimes (days" in run("config", "--show").out
    for name in ("auto", "static", "minilm", "none", "default", "Static-Multilingual"):
        run("config", "--show", "--json", CONFIDANTE_EMBEDDER=name)
    bad = run("config", "--show", "--json", ok=False, CONFIDANTE_EMBEDDER="bogus")
    assert bad.code == 1 and bad.error == "config_error"
    message = bad.json()["error"]["message"]
    assert "CONFIDANTE_EMBEDDER" in message and "bogus" not in message
    assert run("list", "--dashboard", ok=False, CONFIDANTE_EMBEDDER="bogus").code == 1


def test_the_readme_and_the_reference_name_the_same_embedders(run: Run) -> None:
    from confidante.recall.embedding import EMBEDDER_NAMES

    reference = run("config", "--reference").out
    row = next(line for line in reference.splitlines() if "CONFIDANTE_EMBEDDER" in line)
    readme = (ROOT / "README.md").read_text().split("## Embedders", 1)[1].split("\n## ", 1)[0]
    for name in EMBEDDER_NAMES:
        assert f"`{name}`" in readme, name
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", row), name


def test_a_bare_owner_id_on_the_default_platform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CONFIDANTE_DB", str(tmp_path / "bare.db"))
    monkeypatch.setenv("CONFIDANTE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setattr(sys, "argv", ["confidante", "init", "--owner", "123456789", "--json"])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 1 and json.loads(capsys.readouterr().out)["error"]["code"] == (
        "invalid_actor"
    )
    monkeypatch.setenv("CONFIDANTE_DEFAULT_PLATFORM", "discord")
    main()
    assert json.loads(capsys.readouterr().out)["owners"] == ["discord:123456789"]


# --- what only a fresh process shows ---------------------------------------------------------


def _fresh(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confidante", *args],
        env=base_env(tmp_path, CONFIDANTE_DB=str(tmp_path / "p.db"), **env),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_usage_errors_name_what_was_mistyped(tmp_path: Path) -> None:
    p = _fresh(tmp_path, "remmber", "x")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "no such command remmber (did you mean remember?)" in p.stderr
    p = _fresh(tmp_path, "list", "--dashboard", "--lmit", "3")
    assert p.returncode == 2 and "no such option --lmit (did you mean --limit?)" in p.stderr
    p = _fresh(tmp_path, "space", "crate", "home")
    assert p.returncode == 2 and "no such command crate (did you mean create?)" in p.stderr
    # a value typed where a name goes is never repeated, but the nearest name still is
    p = _fresh(tmp_path, "list", "--dashboard", "--token=hunter2-Secret9")
    assert p.returncode == 2 and "Secret9" not in p.stderr and "no such option" in p.stderr
    p = _fresh(tmp_path, "sk_live_51Canary7Qz9Xw2Lm4Np8Kd3Vb6Hs")
    assert p.returncode == 2 and "Canary7Qz9" not in p.stderr + p.stdout
    p = _fresh(tmp_path, "recall", "two", "words", "--dashboard")
    assert p.returncode == 2 and "unexpected extra argument" in p.stderr and "words" not in p.stderr
    # exit codes are in the help
    assert "Exit codes" in _fresh(tmp_path, "--help").stdout


def test_selftest_against_a_server_that_is_down(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    for extra in ([], ["--json"]):
        p = _fresh(tmp_path, "selftest", "--url", url, "--token", "cf_x", "--owner", OWNER, *extra)
        assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
        shown = json.loads(p.stdout)["error"] if extra else {"message": p.stderr}
        assert "server_unreachable" in (shown.get("code", "") + p.stderr)
        assert "127.0.0.1" in shown["message"]
    p = _fresh(tmp_path, "selftest", "--url", "not a url", "--token", "cf_x", "--owner", OWNER)
    assert p.returncode == 1 and "server_unreachable" in p.stderr and "Traceback" not in p.stderr


def test_serve_on_a_busy_port_says_so_before_anything(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        p = _fresh(tmp_path, "serve", "--port", str(port), "--owner", OWNER)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "port_in_use" in p.stderr and str(port) in p.stderr
    assert p.stdout == ""  # no banner, no URLs, no credentials printed
    assert not (tmp_path / "p.db").exists()  # and nothing set up


def test_serve_banner_names_every_owner(tmp_path: Path) -> None:
    env = base_env(tmp_path, CONFIDANTE_DB=str(tmp_path / "b.db"))
    env["CONFIDANTE_OWNER_IDS"] = f"{OWNER},telegram:7"
    assert cli(env, "init", "--no-credentials").code == 0
    server = serve(env, tmp_path / "serve.log")
    try:
        banner = next(x for x in server.output().splitlines() if x.startswith("confidante "))
    finally:
        code = server.stop()  # SIGINT, then SIGKILL if it hangs
    assert f"owner {OWNER}, telegram:7" in banner and code == 0


def test_what_a_process_imports(tmp_path: Path) -> None:
    """`import confidante` and `confidante --help` load none of the heavy parts; the names
    of the package root still resolve (lazily), for people and for type checkers."""
    heavy = ["pydantic", "numpy", "fastapi", "uvicorn", "mcp", "psycopg", "cryptography"]
    ours = ["confidante.engine", "confidante.memory", "confidante.privacy", "confidante.config"]
    probe = (
        "import sys, runpy, io, contextlib\n"
        "import confidante\n"
        "after_import = set(sys.modules)\n"
        "sys.argv = ['confidante', '--help']\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    runpy.run_module('confidante', run_name='__main__')\n"
        "import json\n"
        "print(json.dumps([sorted(after_import), sorted(sys.modules)]))\n"
    )
    env = base_env(tmp_path)
    p = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    after_import, after_help = (set(x) for x in json.loads(p.stdout))
    for loaded in (after_import, after_help):
        for name in heavy + ours:
            assert name not in loaded, name
    assert not any(m.startswith("confidante.") for m in after_import - {"confidante._version"})
    lazy = subprocess.run(
        [
            sys.executable,
            "-c",
            "from confidante import Memory, Context, NotFound, __version__;"
            "import confidante; print(Memory.__name__, Context.__module__, sorted(dir(confidante))"
            "[:1])",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert lazy.returncode == 0 and lazy.stdout.split()[:2] == ["Memory", "confidante.model"]


def test_interop_formats_are_the_librarys() -> None:
    from confidante.interop import FORMATS
    from confidante.surfaces.cli.interop import IMPORT_FORMATS

    assert IMPORT_FORMATS == FORMATS


def test_the_root_resolves_every_public_name() -> None:
    import confidante

    for name in confidante.__all__:
        assert getattr(confidante, name) is not None
    with pytest.raises(AttributeError):
        confidante.NoSuchThing  # noqa: B018
    assert os.fspath(Path(confidante.__file__)).endswith("__init__.py")
