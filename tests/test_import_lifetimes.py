"""Imports bring in long-term memory: each entry keeps its date and lives from the import
(unless its source kept an expiry); an entry dated today is today; a file in another layout
than the one named gets a hint and a non-zero exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from confidante import Context, Memory
from confidante.interop import import_from

from conftest import OWNER, Clock

OWNER_CTX = Context.local(OWNER)


def _mem0_export(path: Path, *dates: str) -> Path:
    path.write_text(
        json.dumps(
            {
                "results": [
                    {"memory": f"Remembered thing number {i}", "user_id": "u1", "created_at": d}
                    for i, d in enumerate(dates)
                ]
            }
        )
    )
    return path


@pytest.mark.parametrize("hour", [0, 6, 11, 13, 23])
def test_an_old_export_lives_from_the_import_and_today_is_today(
    tmp_path: Path, key: bytes, hour: int
) -> None:
    now = datetime(2026, 12, 2, hour, 30, tzinfo=UTC)
    with Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=key, clock=Clock(now)) as mem:
        export = _mem0_export(tmp_path / "mem0.json", "2026-09-01", "2026-10-15", "2026-12-02")
        report = import_from(mem, "mem0", export, OWNER_CTX)
        assert (report.imported, report.archived, report.refused) == (3, [], [])
        facts = {f.text: f for f in mem.list(Context.dm("mem0:u1"))}
        assert facts["Remembered thing number 0"].created_at.date().isoformat() == "2026-09-01"
        for f in facts.values():
            assert f.expires_at == now + timedelta(days=365)
        today = facts["Remembered thing number 2"]
        assert today.created_at <= now and today.created_at.date() == now.date()


def test_a_source_expiry_is_kept(tmp_path: Path, key: bytes) -> None:
    now = datetime(2026, 12, 2, 12, tzinfo=UTC)
    export = tmp_path / "facts.jsonl"
    rows = [
        {
            "text": "Kept as long as it said",
            "scope": "owner",
            "created_at": "2026-11-01",
            "expires_at": "2026-12-20T00:00:00+00:00",
        },
        {
            "text": "Gone already at the source",
            "scope": "owner",
            "created_at": "2026-10-01",
            "expires_at": "2026-11-01T00:00:00+00:00",
        },
    ]
    export.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=key, clock=Clock(now)) as mem:
        report = import_from(mem, "jsonl", export, OWNER_CTX)
        assert report.imported == 1 and len(report.archived) == 1
        (kept,) = mem.list(OWNER_CTX)
        assert kept.expires_at == datetime(2026, 12, 20, tzinfo=UTC)


def test_the_wrong_layout_gets_a_hint_and_a_non_zero_exit(tmp_path: Path) -> None:
    export = _mem0_export(tmp_path / "mem0.json", "2026-09-01", "2026-10-15")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")} | {
        "CONFIDANTE_DB": str(tmp_path / "cli.db"),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "HOME": str(tmp_path),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert run("init", "--no-credentials").returncode == 0
    plain = run("import", str(export), "--as", OWNER, "--local")
    assert plain.returncode == 1
    assert "--from mem0" in plain.stderr
    js = run("import", str(export), "--as", OWNER, "--local", "--json")
    assert js.returncode == 1 and json.loads(js.stdout)["looks_like"] == "mem0"
    right = run("import", str(export), "--from", "mem0", "--as", OWNER, "--local", "--json")
    assert right.returncode == 0 and json.loads(right.stdout)["imported"] == 2
