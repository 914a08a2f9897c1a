"""Issue 3 through the library: T3 refused on every write path without echoing the value,
identifiers kept out of what every audience reads, the T1 stats store and the audit."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from confidante import AccessDenied, Context, Memory
from confidante.config import Settings
from confidante.errors import IdentifierRefused, PrivateDataRefused

from conftest import ALICE, BOB, OWNER

SECRETS = [
    ("my password is Tr0ub4dor&3xyz", "credential", "Tr0ub4dor&3xyz"),
    (
        "use this token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
        "credential",
        "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
    ),
    ("email me at jane.doe@example.org", "email", "jane.doe@example.org"),
    ("my cell is +1 415 555 0132", "phone", "415 555 0132"),
    ("my SSN is 123-45-6789", "gov_id", "123-45-6789"),
    ("card 4111 1111 1111 1111 exp 09/29", "financial_account", "4111 1111 1111 1111"),
    ("I live at 42 Wallaby Way, Sydney", "street_address", "42 Wallaby Way"),
]

ORDINARY = [
    "My friend Maria is coming over on Saturday",
    "Bob and I went climbing last weekend",
    "I upgraded to Python 3.11.7 yesterday",
    "the bug was fixed in commit 3f9a2c71e4b8d05f6a1c2e3d4b5a6978c0d1e2f3",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "my birthday is March 3rd and I love hiking",
    "we have 42 open orders and 7 returns this week",
    "reset your password from the settings page",
    "the meeting moved to 3pm on Thursday",
    "I'm learning to play the cello",
]


@pytest.mark.parametrize(("text", "category", "value"), SECRETS)
def test_t3_is_refused_without_echo(mem: Memory, caplog, text: str, category: str, value: str):
    caplog.set_level(logging.DEBUG)
    for ctx, ns in [
        (Context.dm(ALICE), None),
        (Context.guild(ALICE, "g1"), None),
        (Context.dm(OWNER), "owner"),
        (Context.dm(OWNER), "global"),
    ]:
        with pytest.raises(PrivateDataRefused) as e:
            mem.remember(ctx, text, ns)
        assert e.value.code in ("private_data_refused", "identifier_refused")
        assert category in e.value.categories
        for shown in (str(e.value), repr(e.value), e.value.message, str(e.value.args)):
            assert value not in shown
    assert mem.store.count_facts() == 0
    assert value not in caplog.text
    report = mem.audit()
    assert value not in json.dumps(report)


def test_refused_value_reaches_no_file(db_path: Path, key: bytes) -> None:
    with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
        for text, _, _ in SECRETS:
            with pytest.raises(PrivateDataRefused):
                m.remember(Context.dm(ALICE), text)
        m.remember(Context.dm(ALICE), "an ordinary fact to make files")
    for p in db_path.parent.iterdir():
        blob = p.read_bytes()
        for _, _, value in SECRETS:
            assert value.encode() not in blob


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_conversation_is_kept(mem: Memory, text: str) -> None:
    assert mem.remember(Context.dm(ALICE), text).text == text
    assert mem.remember(Context.guild(BOB, "g1"), text).text == text


def test_metadata_passes_the_guard_too(mem: Memory) -> None:
    with pytest.raises(PrivateDataRefused):
        mem.remember(Context.dm(ALICE), "fine", source_skill="mail jane.doe@example.org")
    with pytest.raises(PrivateDataRefused):
        mem.remember(Context.dm(ALICE), "fine", kind="sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUv")
    f = mem.remember(Context.dm(ALICE), "fine")
    with pytest.raises(PrivateDataRefused):
        mem.update(Context.dm(ALICE), f.id, "now my password is hunter2hunter2")
    assert mem.get(Context.dm(ALICE), f.id).text == "fine"


def test_redact_mode_stores_placeholders(backend: str, key: bytes) -> None:
    s = Settings(privacy_mode="redact")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        f = m.remember(Context.dm(ALICE), "email me at jane.doe@example.org about the trip")
        assert "jane.doe@example.org" not in f.text and "[EMAIL]" in f.text
        assert any("email" in c for c in f.changes)
        assert m.get(Context.dm(ALICE), f.id).text == f.text


def test_global_notes_are_generalised_or_refused(mem: Memory) -> None:
    f = mem.remember(Context.dm(OWNER), "the team standup is at 9:30am", "global")
    assert "9:30" not in f.text and "morning" in f.text
    assert f.changes
    with pytest.raises(IdentifierRefused) as e:
        mem.remember(Context.dm(OWNER), "ask Jennifer Alvarez about the launch", "global")
    assert "person_name" in e.value.categories
    assert "Jennifer" not in str(e.value)
    # the same text is fine in a scoped partition
    assert mem.remember(Context.dm(OWNER), "ask Jennifer Alvarez about the launch", "owner")


def test_public_stats(mem: Memory) -> None:
    mem.record_skill_use("weather", ok=True)
    mem.record_skill_use("weather", ok=False)
    mem.record_skill_use("calendar")
    mem.record_pattern("I wake at 6am and ask for the briefing", ["weather", "calendar"])
    mem.record_pattern("I wake at 6am and ask for the briefing", ["calendar", "weather"])
    stats = mem.public_stats()
    assert set(stats) == {"skill_stats", "patterns_observed"}
    w = stats["skill_stats"]["weather"]
    assert w["calls"] == 2 and w["success_rate"] == 0.5 and len(w["last_used"]) == 10
    (p,) = stats["patterns_observed"]
    assert p["count"] == 2 and p["skills_used"] == ["calendar", "weather"]
    assert "6am" not in p["trigger"]  # generalised
    with pytest.raises(PrivateDataRefused):
        mem.record_skill_use("mail-jane.doe@example.org")
    with pytest.raises(PrivateDataRefused):
        mem.record_pattern("send to bob@example.com", ["mail"])
    with pytest.raises(IdentifierRefused):
        mem.record_pattern("ask Jennifer Alvarez for the report", ["mail"])


def test_audit_clean_and_dirty(mem: Memory, monkeypatch) -> None:
    mem.remember(Context.dm(ALICE), "I like tea")
    mem.record_skill_use("weather")
    report = mem.audit()
    assert report["ok"] is True and report["facts_checked"] == 1
    assert {c["name"] for c in report["checks"]} >= {"t3_data", "expiry", "plaintext_at_rest"}

    import confidante.privacy.guard as guard

    monkeypatch.setattr(guard, "classify", lambda *a, **k: [])  # an older, weaker detector
    bad = mem.remember(Context.dm(ALICE), "my password is Zebra-Crossing-991")
    monkeypatch.undo()
    report = mem.audit()
    assert report["ok"] is False
    (finding,) = [f for f in report["findings"] if f["check"] == "t3_data"]
    assert finding["id"] == bad.id and finding["categories"] == ["credential"]
    assert "Zebra-Crossing-991" not in json.dumps(report)


def test_audit_cli_exits_non_zero_on_findings(tmp_path: Path, key: bytes, monkeypatch) -> None:
    import base64

    db = tmp_path / "audit.db"
    with Memory.open(db, owner_ids=[OWNER], master_key=key) as m:
        m.remember(Context.dm(ALICE), "clean fact")
    env = {
        "CONFIDANTE_DB": str(db),
        "CONFIDANTE_MASTER_KEY": base64.b64encode(key).decode(),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    ok = subprocess.run(
        [sys.executable, "-m", "confidante", "audit", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    import confidante.privacy.guard as guard

    monkeypatch.setattr(guard, "classify", lambda *a, **k: [])
    with Memory.open(db, owner_ids=[OWNER], master_key=key) as m:
        m.remember(Context.dm(ALICE), "my pin is 4821 and password is Octopus-Ink-77")
    monkeypatch.undo()
    bad = subprocess.run(
        [sys.executable, "-m", "confidante", "audit"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    assert "t3_data" in bad.stdout and "Octopus-Ink-77" not in bad.stdout + bad.stderr


def test_denied_write_is_still_denied_before_privacy(mem: Memory) -> None:
    # A non-owner's owner write is refused by policy; the secret in it is not echoed either.
    with pytest.raises(AccessDenied) as e:
        mem.remember(Context.dm(ALICE), "my password is Secret-Value-123", "owner")
    assert "Secret-Value-123" not in str(e.value)
