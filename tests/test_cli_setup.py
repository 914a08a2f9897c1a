"""The command line as a newcomer meets it: set-up, settings, ids as tables show them, a
mistyped --db, restore onto a new machine, key rotation and backups. Real subprocesses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from confidante import Context, Memory
from confidante.services.credentials import AgentKeys, check_password

from conftest import ALICE, BOB, OWNER


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def run(home: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFIDANTE_", "XDG_"))}
    env["HOME"] = str(home)

    def _run(*args: str, ok: bool = True, **extra: str) -> subprocess.CompletedProcess[str]:
        p = subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env | extra,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        if ok:
            assert p.returncode == 0, p.stderr + p.stdout
        return p

    return _run


def j(p: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(p.stdout)


def db_of(home: Path) -> Path:
    return home / ".local/share/confidante/memory.db"


def test_init_without_an_owner_explains_and_creates_nothing(run, home: Path) -> None:
    p = run("init", ok=False)
    assert p.returncode != 0
    assert "owner_missing" in p.stderr and "confidante init --owner" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1  # one line
    assert not db_of(home).exists()


def test_init_stores_the_owner_and_prints_credentials_once(run, home: Path) -> None:
    data = j(run("init", "--owner", OWNER, "--json"))
    assert data["created"] is True and data["owners"] == [OWNER]
    assert data["owner_source"] == "database"
    password, token = data["dashboard_password"], data["agent_key"]["token"]
    assert len(password) >= 16 and token.startswith("cf_")
    again = j(run("init", "--json"))  # the owner now comes from the database itself
    assert again["owners"] == [OWNER] and again["dashboard_password"] is None
    assert again["agent_key"] is None
    with Memory.open(db_of(home)) as mem:  # no owner_ids given: the stored ones
        assert mem.owners == {OWNER} and mem.owner_source == "database"
        assert check_password(mem, password)
        assert AgentKeys(mem).verify(token) is not None
        assert OWNER.encode() not in db_of(home).read_bytes()  # sealed, not plaintext
    # configuration still wins over what the database stores
    with Memory.open(db_of(home), owner_ids=[BOB]) as mem:
        assert mem.owners == {BOB}


def test_init_human_output_and_env_owner(run, home: Path) -> None:
    p = run("init", CONFIDANTE_OWNER_IDS=OWNER)
    assert "dashboard password: " in p.stdout and "export TOKEN=cf_" in p.stdout
    assert f"owner: {OWNER}" in p.stdout
    # the env owner was kept in the database: a bare environment still has it
    assert j(run("config", "--json"))["owners"] == {"ids": [OWNER], "source": "database"}


def test_a_missing_database_is_an_error_unless_created(run, home: Path) -> None:
    run("init", "--owner", OWNER)
    typo = str(home / "memroy.db")
    p = run("remember", "x", "--as", ALICE, "--dm", "--db", typo, "--json", ok=False)
    assert j(p)["error"]["code"] == "database_missing"
    assert not Path(typo).exists() and not Path(typo + ".key").exists()
    made = j(
        run("remember", "tea please", "--as", ALICE, "--dm", "--db", typo, "--create", "--json")
    )
    assert made["scope"] == "user" and Path(typo).exists()


def test_ids_as_tables_show_them(run, home: Path) -> None:
    run("init", "--owner", OWNER)
    fact = j(run("remember", "alice grows tomatoes", "--as", ALICE, "--dm", "--json"))
    listing = run("list", "--as", ALICE, "--dm").stdout
    short = fact["id"][:12]
    assert short in listing and fact["id"] not in listing
    assert j(run("get", short, "--as", ALICE, "--dm", "--json"))["id"] == fact["id"]
    assert (
        j(run("update", short, "alice grows peppers", "--as", ALICE, "--dm", "--json"))["text"]
        == "alice grows peppers"
    )
    # someone who cannot see it gets not_found for the prefix too
    p = run("get", short, "--as", BOB, "--dm", "--json", ok=False)
    assert j(p)["error"]["code"] == "not_found"
    run("forget", short, "--as", ALICE, "--dm")
    p = run("get", short, "--as", ALICE, "--dm", "--json", ok=False)
    assert j(p)["error"]["code"] == "not_found"


def test_prefixes_never_count_what_the_context_cannot_see(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An invisible fact sharing a prefix neither makes it ambiguous nor shows it exists."""
    import uuid

    from confidante import AmbiguousId, NotFound

    ids = iter(
        uuid.UUID(h)
        for h in (
            "abcd1111000000000000000000000001",  # Alice's
            "abcd1111000000000000000000000002",  # Bob's: same 8-character prefix
            "abcd2222000000000000000000000003",  # Alice's second
        )
    )
    monkeypatch.setattr("confidante.engine.writes.uuid.uuid4", lambda: next(ids))
    with Memory.open(db_path, owner_ids=[OWNER]) as mem:
        alice = mem.remember(Context.dm(ALICE), "alice fact one")
        bob = mem.remember(Context.dm(BOB), "bob fact")
        alice2 = mem.remember(Context.dm(ALICE), "alice fact two")
        assert (alice.id[:8], bob.id[:8]) == ("abcd1111", "abcd1111")
        assert mem.get(Context.dm(ALICE), "abcd1111").id == alice.id  # Bob's does not count
        assert mem.get(Context.dm(BOB), "abcd1111").id == bob.id
        with pytest.raises(AmbiguousId) as e:
            mem.get(Context.dm(ALICE), "abcd")  # two of Alice's own
        assert e.value.code == "ambiguous_id" and "2 facts" in e.value.message
        with pytest.raises(AmbiguousId):
            mem.get(Context.local(OWNER), "abcd1111")  # the owner sees both silos
        assert mem.get(Context.dm(BOB), "abcd").id == bob.id  # Alice's two are invisible
        with pytest.raises(NotFound):
            mem.get(Context.dm("discord:99"), "abcd")
        with pytest.raises(NotFound):
            mem.forget(Context.dm("discord:99"), "abcd2222")
        with pytest.raises(NotFound):
            mem.get(Context.dm(ALICE), "abc")  # too short to be a prefix
        mem.forget(Context.dm(ALICE), "abcd2222")
        with pytest.raises(NotFound):
            mem.get(Context.dm(ALICE), alice2.id)


def test_version_completion_and_json_everywhere(run, home: Path) -> None:
    assert run("--version").stdout.startswith("confidante ")
    assert j(run("version", "--json"))["version"]
    # Typer detects the shell from the process tree (shellingham): ask from inside bash, as a
    # user would (`; true` keeps bash from exec-ing the command away).
    shown = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m confidante --show-completion; true"],
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    script = shown.stdout
    assert "_CONFIDANTE_COMPLETE" in script
    completed = run(
        ok=False,
        _CONFIDANTE_COMPLETE="complete_bash",
        COMP_WORDS="confidante rec",
        COMP_CWORD="1",
    )
    assert "recall" in completed.stdout
    run("init", "--owner", OWNER)
    stats = j(run("stats", "--json"))
    assert stats == {"skill_stats": {}, "patterns_observed": []}
    assert "no public stats" in run("stats").stdout
    run("remember", "I like tea", "--as", ALICE, "--dm")
    gone = j(run("forget-subject", ALICE, "--as", OWNER, "--local", "--json"))
    assert gone["facts_deleted"] == 1 and gone["keys_destroyed"] >= 1
    human = run("forget-subject", BOB, "--as", OWNER, "--local").stdout
    assert human.startswith(f"forgot {BOB}:") and "{" not in human
    log = j(run("log", "--as", OWNER, "--local", "--json"))["events"]
    assert all("T" in e["at"] and e["at"].endswith("+00:00") for e in log)


@pytest.mark.parametrize(
    ("var", "value", "named"),
    [
        ("CONFIDANTE_TTL_DAYS_BY_SCOPE", "owner=soon", "scope=days"),
        ("CONFIDANTE_TTL_DAYS_BY_SCOPE", "forever=3", "scope=days"),
        ("CONFIDANTE_DEFAULT_TTL_DAYS", "-1", "positive number of days"),
        ("CONFIDANTE_PRIVACY_MODE", "loud", "refuse or redact"),
        ("CONFIDANTE_OWNER_IDS", "nobody", "platform:id"),
    ],
)
def test_settings_errors_are_one_line(run, var: str, value: str, named: str) -> None:
    p = run("list", "--dashboard", "--json", ok=False, **{var: value})
    assert p.returncode == 1
    error = j(p)["error"]
    assert error["code"] == "config_error"
    assert error["message"].startswith(f"{var}: expected") and named in error["message"]
    human = run("list", "--dashboard", ok=False, **{var: value})
    assert len(human.stderr.strip().splitlines()) == 1 and "Traceback" not in human.stderr


def test_settings_spellings_and_masked_show(run, home: Path) -> None:
    run("init", "--owner", OWNER)
    ttl = j(run("config", "--json", CONFIDANTE_TTL_DAYS_BY_SCOPE="owner=365,user=30"))
    by_name = {s["name"]: s for s in ttl["settings"]}
    assert by_name["ttl_days_by_scope"]["value"] == {"owner": 365.0, "user": 30.0}
    cfg = home / ".config/confidante/config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(
        'CONFIDANTE_OWNER_IDS = "discord:1,telegram:7"\n'
        "ttl-days-by-kind = { profile = 180 }\n"
        'master_key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="\n'
    )
    cfg.chmod(0o644)  # a secret in a file others may read is refused, as a key file is
    exposed = run("config", "--json", ok=False)
    assert j(exposed)["error"]["code"] == "key_file_permissions"
    assert "AAAAAAAA" not in exposed.stdout + exposed.stderr
    cfg.chmod(0o600)
    shown = j(run("config", "--json"))
    by_name = {s["name"]: s for s in shown["settings"]}
    assert by_name["owner_ids"] == {
        "name": "owner_ids",
        "env": "CONFIDANTE_OWNER_IDS",
        "value": [OWNER, "telegram:7"],
        "source": "config file",
    }
    assert by_name["ttl_days_by_kind"]["value"] == {"profile": 180.0}
    assert by_name["master_key"]["value"] == "********"
    assert "AAAAAAAA" not in run("config").stdout
    cfg.write_text("owner_idz = 1\n")
    p = run("config", "--json", ok=False)
    assert j(p)["error"]["code"] == "config_error" and "owner_idz" in j(p)["error"]["message"]
    reference = run("config", "--reference").stdout
    for var in ("CONFIDANTE_OWNER_IDS", "CONFIDANTE_TTL_DAYS_BY_SCOPE", "CONFIDANTE_EMBEDDER"):
        assert var in reference


def test_config_show_masks_a_database_password(run) -> None:
    """A postgresql:// URL may carry a password (in the user part or as a parameter):
    `config` shows the URL with every password masked, in both renderings."""
    url = "postgresql://app:pw-s3cret-1@127.0.0.1:1/memory?sslmode=disable&password=pw-other-2"
    for args in (("config", "--json"), ("config",)):
        p = run(*args, CONFIDANTE_DB=url, CONFIDANTE_OWNER_IDS=OWNER)
        assert p.returncode == 0, p.stderr
        assert "pw-s3cret-1" not in p.stdout + p.stderr and "pw-other-2" not in p.stdout + p.stderr
    shown = {s["name"]: s for s in j(run("config", "--json", CONFIDANTE_DB=url))["settings"]}
    assert shown["db"]["value"] == (
        "postgresql://app:********@127.0.0.1:1/memory?sslmode=disable&password=********"
    )


def test_restore_onto_a_new_machine_and_rotation_warning(run, home: Path, tmp_path: Path) -> None:
    run("init", "--owner", OWNER)
    fact = j(run("remember", "alice likes jazz", "--as", ALICE, "--dm", "--json"))
    backup = tmp_path / "backup.db"
    run("backup", str(backup))
    old_key_file = Path(str(db_of(home)) + ".key")
    # on this machine, into a new path: the configured database's key opens it
    here = tmp_path / "restored-here.db"
    run("restore", str(backup), "--db", str(here))
    got = run("get", fact["id"][:8], "--as", ALICE, "--dm", "--db", str(here), "--json")
    assert j(got)["text"] == "alice likes jazz"
    # on a new machine (another home): the key must be given
    new_home = {"HOME": str(tmp_path / "new-home")}
    elsewhere = tmp_path / "new-machine" / "memory.db"
    p = run("restore", str(backup), "--db", str(elsewhere), "--json", ok=False, **new_home)
    assert j(p)["error"]["code"] == "master_key_missing"
    assert "--key-file" in j(p)["error"]["message"]
    restore = ["restore", str(backup), "--db", str(elsewhere), "--key-file", str(old_key_file)]
    done = j(run(*restore, "--json", **new_home))
    assert Path(done["key_file"]).exists()
    got = run(
        "get", fact["id"], "--as", ALICE, "--dm", "--db", str(elsewhere), "--json", **new_home
    )
    assert j(got)["text"] == "alice likes jazz"
    p = run(
        "restore", str(backup), "--db", str(elsewhere), "--key-file", str(old_key_file), ok=False
    )
    assert "database_exists" in p.stderr and "--force" in p.stderr

    # rotating warns that earlier backups need the old key, and can keep it
    rotated = run("keys", "rotate")
    assert "backups made before this rotation" in rotated.stderr
    kept = tmp_path / "old.key"
    out = j(run("keys", "rotate", "--keep-old-key", str(kept), "--json"))
    assert out["warning"] is None and oct(kept.stat().st_mode & 0o777) == "0o600"
    # the backup opens with neither current key, but with --key from the first one
    first_key = old_key_file.read_text().strip()  # now the rotated key
    p = run("restore", str(backup), "--db", str(tmp_path / "x.db"), "--key", first_key, ok=False)
    assert "wrong_master_key" in p.stderr


def test_restore_reads_the_key_from_stdin(run, home: Path, tmp_path: Path) -> None:
    """The key need not be on the command line (where `ps` shows it to every local user)."""
    run("init", "--owner", OWNER)
    fact = j(run("remember", "alice likes jazz", "--as", ALICE, "--dm", "--json"))
    backup = tmp_path / "backup.db"
    run("backup", str(backup))
    key = Path(str(db_of(home)) + ".key").read_text().strip()
    new_home = tmp_path / "new-home"
    elsewhere = tmp_path / "new-machine" / "memory.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFIDANTE_", "XDG_"))}

    def restore(*extra: str, stdin: str) -> subprocess.CompletedProcess[str]:
        args = ["restore", str(backup), "--db", str(elsewhere), "--json", *extra]
        return subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env | {"HOME": str(new_home)},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )

    p = restore("--key-stdin", "--key", key, stdin=key)
    assert j(p)["error"]["code"] == "invalid_input"  # one way only
    p = restore("--key-stdin", stdin="not a key\n")
    assert j(p)["error"]["code"] == "invalid_master_key" and "not a key" not in p.stdout
    p = restore("--key-stdin", stdin=key + "\n")
    assert p.returncode == 0, p.stderr
    got = run(
        "get",
        fact["id"],
        "--as",
        ALICE,
        "--dm",
        "--db",
        str(elsewhere),
        "--json",
        HOME=str(new_home),
    )
    assert j(got)["text"] == "alice likes jazz"
    help_text = run("restore", "--help", COLUMNS="200").stdout
    assert "--key-stdin" in help_text and "process list" in help_text


def _mcp_call(env: dict[str, str], args: list[str]) -> str:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "confidante", "mcp", *args], env=env
    )

    async def main() -> str:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                tools = {t.name for t in (await s.list_tools()).tools}
                assert "memory_write" in tools
                result = await s.call_tool("memory_search", {"query": "tea"})
                assert result.is_error
                return " ".join(getattr(c, "text", "") for c in result.content)

    return anyio.run(main)


def test_mcp_stdio_explains_a_missing_set_up(run, home: Path) -> None:
    """MCP clients start `confidante mcp` with a bare environment: instead of exiting (the
    client would only see a closed connection) it serves tools that say what to run."""
    bare = {"HOME": str(home), "PATH": os.environ["PATH"]}
    text = _mcp_call(bare, [])
    assert "database_missing" in text and "confidante init" in text
    with Memory.open(db_of(home)):  # a database, but nobody is owner
        pass
    text = _mcp_call(bare, [])
    assert "owner_missing" in text and "confidante init --owner" in text
    run("init", "--owner", OWNER)
    # the owner stored by init is found with the same bare environment
    params_ok = _mcp_ok(bare)
    assert params_ok["scope"] == "owner"


def _mcp_ok(env: dict[str, str]) -> dict:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "confidante", "mcp"], env=env
    )

    async def main() -> dict:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                wrote = await s.call_tool(
                    "memory_write", {"text": "note to self", "namespace": "owner"}
                )
                assert not wrote.is_error, wrote
                return wrote.structured_content

    return anyio.run(main)


def test_an_owner_piped_in_is_read_and_an_idle_pipe_never_waited_on(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONFIDANTE_", "XDG_"))}
    env["HOME"] = str(home)
    cmd = [sys.executable, "-m", "confidante", "init", "--no-credentials", "--json"]
    p = subprocess.run(cmd, env=env, input=f"{OWNER}\n", capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["owners"] == [OWNER]
    # a pipe that stays open and says nothing: an explanation, not a hang
    idle = subprocess.Popen(
        cmd,
        env=dict(env, HOME=str(home / "second")),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert idle.wait(timeout=30) != 0
        assert json.loads(idle.stdout.read())["error"]["code"] == "owner_missing"
    finally:
        idle.stdin.close()
        if idle.poll() is None:
            idle.kill()


def _snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Name -> (mode, sha256) of every file in a folder (hashed by another process)."""
    names = sorted(p.name for p in folder.iterdir())
    out = subprocess.run(
        ["sha256sum", *names], cwd=folder, capture_output=True, text=True, check=True
    ).stdout
    sums = {line.split()[1]: line.split()[0] for line in out.splitlines()}
    return {n: ((folder / n).stat().st_mode & 0o777, sums[n]) for n in names}


def _as_first_schema(db: Path) -> None:
    """Turn a database file back into the first schema (what confidante 0.1 wrote)."""
    con = sqlite3.connect(db)
    for index in ("events_same", "partitions_erase", "facts_partition_rev", "facts_text_key"):
        con.execute(f"DROP INDEX {index}")
    for table, column in [
        ("partitions", "erase_pending"),
        ("memory_facts", "ttl_ms"),
        ("memory_archive", "ttl_ms"),
        ("events", "count"),
        ("memory_facts", "rev"),  # schema 3
        ("memory_archive", "rev"),
        ("memory_facts", "text_key"),
        ("memory_archive", "text_key"),
    ]:
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("UPDATE meta SET value = CAST('1' AS BLOB) WHERE key = 'schema_version'")
    con.commit()
    con.close()


def test_restore_reads_the_backup_without_changing_it_and_warns_about_the_old_key(
    run, home: Path, tmp_path: Path
) -> None:
    """The backup is opened read-only (no migration, no -wal or -shm beside it), and the key
    of the database a forced restore replaced is kept, with a warning saying what it opens."""
    run("init", "--owner", OWNER)
    run("remember", "alice likes jazz", "--as", ALICE, "--dm")
    key_file = Path(str(db_of(home)) + ".key")
    first_key = key_file.read_text().strip()
    backups = tmp_path / "backups"
    backups.mkdir()
    backup = backups / "backup.db"
    run("backup", str(backup))
    _as_first_schema(backup)  # a backup made by an earlier confidante: never migrated in place
    before = _snapshot(backups)
    assert list(before) == ["backup.db"]

    # Every key this machine knows is tried on the backup: none opens it after a rotation.
    run("keys", "rotate")
    p = run("restore", str(backup), "--force", "--json", ok=False)
    assert j(p)["error"]["code"] == "wrong_master_key"
    assert _snapshot(backups) == before

    replaced_key = key_file.read_text()
    done = j(run("restore", str(backup), "--force", "--key", first_key, "--json"))
    assert _snapshot(backups) == before
    kept = Path(done["previous_key_file"])
    assert kept.name == "memory.db.key.before-restore"
    assert kept.read_text() == replaced_key and oct(kept.stat().st_mode & 0o777) == "0o600"
    assert "backups of the replaced database" in done["warning"]
    got = j(run("list", "--as", ALICE, "--dm", "--json"))["facts"]
    assert [f["text"] for f in got] == ["alice likes jazz"]
