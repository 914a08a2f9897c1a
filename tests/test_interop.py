"""Moving in and out: every importer on fixtures written here from the formats as the old
systems wrote them, dated history, exports and the round trip. Real SQLite files, the real
privacy guard, the real CLI as a subprocess."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from confidante import AccessDenied, Context, InvalidInput, Memory, Scope
from confidante.interop import (
    SenderMap,
    export_jsonl,
    export_silo_tree,
    import_from,
    silo_hash,
    unmapped_silos,
)
from confidante.interop.legacy_xor import derive_key, encrypt

from conftest import ALICE, BOB, OWNER, Clock

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def imem(tmp_path: Path, key: bytes, clock: Clock):
    m = Memory.open(tmp_path / "mem.db", owner_ids=[OWNER], master_key=key, clock=clock)
    yield m
    m.close()


OWNER_CTX = Context.local(OWNER)


def texts(mem: Memory, ctx: Context) -> set[str]:
    return {f.text for f in mem.list(ctx)}


# --- engine: dated history --------------------------------------------------------------


def test_dated_history_is_the_owners_and_expiry_counts_from_it(imem: Memory) -> None:
    alice = Context.dm(ALICE)
    then = NOW - timedelta(days=10)
    with pytest.raises(AccessDenied) as e:
        imem.remember_many(alice, ["I like tea"], created_at=then)
    assert e.value.code == "owner_required"
    with pytest.raises(AccessDenied):  # the authority must itself be owner-private
        imem.remember_many(
            alice, ["I like tea"], created_at=then, authority=Context.guild(OWNER, "g1")
        )
    facts = imem.remember_many(
        alice,
        ["I like tea", "I used to like coffee"],
        created_at=[then, NOW - timedelta(days=40)],
        authority=OWNER_CTX,
        ttl=timedelta(days=30),
    )
    assert facts[0].created_at == then and facts[0].expires_at == then + timedelta(days=30)
    assert facts[1].expires_at < NOW  # past its lifetime: archived, never recalled
    assert texts(imem, alice) == {"I like tea"}
    assert imem.store.count_archive() == 1
    assert facts[0].author == ALICE and facts[0].origin == f"dm:{ALICE}"
    with pytest.raises(InvalidInput):  # the future is not history
        imem.remember_many(OWNER_CTX, ["x"], "owner", created_at=NOW + timedelta(days=2))


# --- tiered folder with the old XOR scheme ---------------------------------------------------


def _note(skill: str, month: str, text: str, *, hyphen: bool, created: str, expires: str) -> str:
    key = derive_key(skill, month, hyphen=hyphen)
    return (
        f"---\ntier: internal\nsource_skill: {skill}\nkey_hint: {skill}-{month}\n"
        f"created: {created}\nexpires: {expires}\n---\n\n## Encrypted Entry\n"
        f"> {encrypt(text, key)}\n\n## Decryption Note\nKey = sha256(...)[:8]\n"
    )


def test_old_encoder_is_faithful() -> None:
    with pytest.raises(ValueError):  # the old scheme could not encode above U+00FF
        encrypt("咖啡", derive_key("s", "2026-05"))
    # one byte per character: accented Latin is not UTF-8 in the old files
    raw = base64.b64decode(encrypt("é", "00000000"))
    assert raw == bytes([0xE9 ^ ord("0")])


def test_tiered_import(tmp_path: Path, imem: Memory) -> None:
    mem_dir = tmp_path / "agent" / "memory"
    (mem_dir / "tier1-public").mkdir(parents=True)
    (mem_dir / "tier2-internal").mkdir()
    (mem_dir / "archive" / "2026-01").mkdir(parents=True)
    (mem_dir / "tier1-public" / "stats.json").write_text(
        json.dumps(
            {
                "skill_stats": {
                    "morning-news": {"calls": 40, "success_rate": 0.75, "last_used": "2026-06-01"},
                    "mail-jane.doe@example.org": {"calls": 3, "success_rate": 1.0},
                },
                "patterns_observed": [
                    {"trigger": "morning request", "skills_used": ["morning-news"], "count": 30}
                ],
            }
        )
    )
    t2 = mem_dir / "tier2-internal"
    t2.joinpath("a.md").write_text(
        _note(
            "req-comprehend",
            "2026-06",
            "Prefers bullet points over prose",
            hyphen=False,
            created="2026-06-01",
            expires="2026-07-01",
        )
    )
    t2.joinpath("b.md").write_text(
        _note(
            "fr-skill",
            "2026-06",
            "Préfère les réponses courtes, sans émojis",
            hyphen=True,
            created="2026-06-02",
            expires="2026-07-02",
        )
    )
    t2.joinpath("c.md").write_text(
        _note(
            "de-skill",
            "2026-06",
            "Mag Käse und Brötchen zum Frühstück",
            hyphen=True,
            created="2026-06-03",
            expires="2026-07-03",
        )
    )
    # encrypted under a skill name the front matter does not give: no candidate key opens it
    bad = _note(
        "ghost-skill",
        "2026-06",
        "Some secret plan",
        hyphen=False,
        created="2026-06-01",
        expires="2026-07-01",
    ).replace("ghost-skill", "other-skill")
    t2.joinpath("d.md").write_text(bad)  # no candidate key opens it
    (mem_dir / "archive" / "2026-01" / "old.md").write_text(
        _note(
            "req-comprehend",
            "2026-01",
            "Old preference for dark mode",
            hyphen=False,
            created="2026-01-03",
            expires="2026-02-02",
        )
    )
    report = import_from(imem, "tiered", tmp_path / "agent", OWNER_CTX)
    owner_facts = {f.text: f for f in imem.list(OWNER_CTX) if f.scope is Scope.OWNER}
    assert set(owner_facts) == {
        "Prefers bullet points over prose",
        "Préfère les réponses courtes, sans émojis",
        "Mag Käse und Brötchen zum Frühstück",
    }
    f = owner_facts["Préfère les réponses courtes, sans émojis"]
    assert f.source_skill == "fr-skill"
    assert f.created_at.date().isoformat() == "2026-06-02"
    assert f.expires_at.date().isoformat() == "2026-07-02"
    assert ("memory/tier2-internal/d.md:10", "undecryptable") in report.skipped
    assert report.archived == ["memory/archive/2026-01/old.md:10"]
    stats = imem.public_stats()
    assert stats["skill_stats"]["morning-news"] == {
        "calls": 40,
        "success_rate": 0.75,
        "last_used": "2026-06-01",
    }
    assert stats["patterns_observed"] == [
        {"trigger": "morning request", "skills_used": ["morning-news"], "count": 30}
    ]
    assert [r.code for r in report.refused] == ["private_data_refused"]  # the email skill name
    assert "jane" not in json.dumps(report.to_dict())
    # the owner's notes are the owner's: nobody else sees them
    assert texts(imem, Context.dm(ALICE)) == set()
    # a repeat adds nothing, public stats included; stats that grew add what grew
    again = import_from(imem, "tiered", tmp_path / "agent", OWNER_CTX)
    assert (again.imported, again.stats) == (0, {"skills": 0, "patterns": 0})
    assert imem.public_stats() == stats
    grown = json.loads((mem_dir / "tier1-public" / "stats.json").read_text())
    grown["skill_stats"]["morning-news"]["calls"] = 50
    grown["skill_stats"]["morning-news"]["success_rate"] = 0.8
    (mem_dir / "tier1-public" / "stats.json").write_text(json.dumps(grown))
    import_from(imem, "tiered", tmp_path / "agent", OWNER_CTX)
    assert imem.public_stats()["skill_stats"]["morning-news"]["calls"] == 50
    assert imem.public_stats()["skill_stats"]["morning-news"]["success_rate"] == 0.8


def test_tiered_stats_that_are_not_numbers_are_skipped(tmp_path: Path, imem: Memory) -> None:
    """NaN and Infinity are valid JSON to Python's reader: each such stat is one reported
    skip, and the rest of the import goes on."""
    public = tmp_path / "agent" / "memory" / "tier1-public"
    public.mkdir(parents=True)
    (public / "stats.json").write_text(
        '{"skill_stats": {"a": {"calls": NaN}, "b": {"calls": Infinity}, '
        '"c": {"calls": 4, "success_rate": NaN, "last_used": -1e400}, "d": {"calls": 1e400}, '
        '"e": {"calls": 2, "last_used": "0001-01-01T00:00:00+05:00"}}, '
        '"patterns_observed": [{"trigger": "morning request", "skills_used": ["x"], '
        '"count": NaN}, {"trigger": "evening request", "skills_used": ["x"], "count": 2}]}'
    )
    report = import_from(imem, "tiered", tmp_path / "agent", OWNER_CTX)
    assert sorted(p for p, why in report.skipped if why == "invalid") == [
        "memory/tier1-public/stats.json: patterns_observed[0]",
        "memory/tier1-public/stats.json: skill_stats[0]",
        "memory/tier1-public/stats.json: skill_stats[1]",
        "memory/tier1-public/stats.json: skill_stats[2]",
        "memory/tier1-public/stats.json: skill_stats[3]",
    ]
    stats = imem.public_stats()
    assert stats["skill_stats"] == {
        "e": {"calls": 2, "success_rate": 1.0, "last_used": "1970-01-01"}
    }
    assert [p["trigger"] for p in stats["patterns_observed"]] == ["evening request"]


def test_times_before_1970_and_huge_lifetimes(tmp_path: Path, imem: Memory, cli) -> None:
    """A zero date with an offset (no UTC time exists for it) is read as 1970 and archived
    with the rest of old history; a lifetime past a hundred years is refused up front."""
    export = tmp_path / "mem0.json"
    export.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "memory": "Likes tea",
                        "user_id": "u1",
                        "created_at": "0001-01-01T00:00+05:00",
                    },
                    {"memory": "Likes jazz", "user_id": "u1", "created_at": -(10**10)},
                    {"memory": "Keeps bees", "user_id": "u1", "created_at": "2026-06-01"},
                ]
            }
        )
    )
    report = import_from(imem, "mem0", export, OWNER_CTX, ttl_days=365)
    # old history keeps its dates and lives a year from the import
    assert (report.imported, len(report.archived), report.refused) == (3, 0, [])
    shown = {f.text: f for f in imem.list(Context.dm("mem0:u1"))}
    assert set(shown) == {"Likes tea", "Likes jazz", "Keeps bees"}
    assert shown["Likes tea"].created_at == datetime(1970, 1, 1, tzinfo=UTC)
    assert shown["Likes jazz"].created_at == datetime(1970, 1, 1, tzinfo=UTC)
    assert shown["Likes tea"].expires_at == NOW + timedelta(days=365)
    for days in (5_000_000, 10**8, float("inf"), float("nan"), 36_526):
        with pytest.raises(InvalidInput):
            import_from(imem, "mem0", export, OWNER_CTX, ttl_days=days)
    assert cli("init").returncode == 0
    p = cli(
        "import",
        str(export),
        "--from",
        "mem0",
        "--as",
        OWNER,
        "--local",
        "--ttl-days",
        "5000000",
        "--json",
    )
    assert p.returncode == 1 and json.loads(p.stdout)["error"]["code"] == "invalid_input", p.stderr


# --- per-user silo tree ------------------------------------------------------------------


def _silo_tree(base: Path) -> None:
    (base / "users" / silo_hash("42")).mkdir(parents=True)  # hash of the raw id
    (base / "users" / silo_hash(BOB)).mkdir(parents=True)  # hash of the whole actor
    (base / "users" / silo_hash("telegram:555")).mkdir(parents=True)  # nobody we know
    (base / "sessions").mkdir()
    (base / "MEMORY.md").write_text(
        "# MEMORY\n\n## 咖啡\n喜欢燕麦拿铁\uff0c不加糖\n#偏好 #咖啡\n\n## Dentist\nMoved to Thursday\n"
    )
    (base / "users" / silo_hash("42") / "MEMORY.md").write_text(
        "## Food\nAllergic to peanuts\n\n## Contact\nWrite to alice.w@example.org\n\n"
        "## Music\nLoves modal jazz\n#music\n"
    )
    (base / "users" / silo_hash(BOB) / "MEMORY.md").write_text("## Hobby\nKeeps three beehives\n")
    (base / "users" / silo_hash("telegram:555") / "MEMORY.md").write_text("## Pets\nHas two cats\n")
    (base / "2026-06-10.md").write_text(
        "# 2026-06-10\n\n- The weekly backup finished early\n- Met Jennifer Alvarez for lunch\n"
    )
    (base / "sessions" / "chat.json").write_text(
        json.dumps(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": "what was that jazz album?",
                        "sender_id": "42",
                        "timestamp": "2026-06-14T10:00:00Z",
                    },
                    {
                        "role": "assistant",
                        "content": "Kind of Blue, I think.",
                        "timestamp": "2026-06-14T10:00:03Z",
                    },
                ]
            }
        )
    )


def test_silo_tree_import(tmp_path: Path, imem: Memory) -> None:
    base = tmp_path / "tree"
    _silo_tree(base)
    senders = tmp_path / "senders.txt"
    senders.write_text(f"# who is who\n{ALICE}\n{BOB}\n")
    report = import_from(imem, "silo-tree", base, OWNER_CTX, sender_ids=senders)

    owner = {f.text for f in imem.list(OWNER_CTX) if f.scope is Scope.OWNER}
    assert owner == {"咖啡: 喜欢燕麦拿铁\uff0c不加糖 #偏好 #咖啡", "Dentist: Moved to Thursday"}
    alice = Context.dm(ALICE)
    assert {f.text for f in imem.list(alice) if f.scope is Scope.USER} == {
        "Food: Allergic to peanuts",
        "Music: Loves modal jazz #music",
    }
    assert {f.text for f in imem.list(alice) if f.scope is Scope.SESSION} == {
        "what was that jazz album?",
        "Kind of Blue, I think.",
    }
    assert {f.text for f in imem.list(Context.dm(BOB)) if f.scope is Scope.USER} == {
        "Hobby: Keeps three beehives"
    }
    # the refused line in the middle is reported by category and position; the rest went in
    assert [
        (r.position, r.categories) for r in report.refused if r.code == "private_data_refused"
    ] == [(f"users/{silo_hash('42')}/MEMORY.md:4", ("email",))]
    # daily notes are global: identifiers refused, the rest readable by everyone
    assert "The weekly backup finished early" in texts(imem, Context.dm(BOB))
    assert any(
        r.code == "identifier_refused" and r.position == "2026-06-10.md:4" for r in report.refused
    )
    assert "alice.w" not in json.dumps(report.to_dict()) and "Jennifer" not in json.dumps(
        report.to_dict()
    )
    # the silo nobody maps to is its own subject, recorded
    orphan = silo_hash("telegram:555")
    assert report.unmapped_silos == [orphan]
    assert unmapped_silos(imem) == [orphan]
    placeholder = [f for f in imem.list(OWNER_CTX) if f.subject == f"silo:{orphan}"]
    assert [f.text for f in placeholder] == ["Pets: Has two cats"]

    # a later mapping merges it; re-importing adds no duplicates
    senders.write_text(f"{ALICE}\n{BOB}\ntelegram:555\n")
    again = import_from(imem, "silo-tree", base, OWNER_CTX, sender_ids=senders)
    assert again.merged_silos == [orphan]
    assert again.imported == 1  # the cats, now under their person; nothing doubled
    tg = Context.dm("telegram:555")
    assert {f.text for f in imem.list(tg) if f.scope is Scope.USER} == {"Pets: Has two cats"}
    assert not [f for f in imem.list(OWNER_CTX) if f.subject == f"silo:{orphan}"]
    assert unmapped_silos(imem) == []


def test_a_session_with_several_senders_is_the_owners_alone(tmp_path: Path, imem: Memory) -> None:
    """Each message has its own sender: a conversation only Alice spoke in is her DM's
    history; one where Bob or the owner spoke too is nobody's DM: it is kept as the owner's
    private history (and the report says so), never shown in Alice's DM."""
    base = tmp_path / "tree"
    (base / "sessions").mkdir(parents=True)

    def session(name: str, messages: list[dict], **top: str) -> None:
        (base / "sessions" / name).write_text(json.dumps({**top, "messages": messages}))

    session(
        "group.json",
        [
            {"role": "user", "sender_id": "42", "content": "hi all"},
            {"role": "user", "sender_id": "1", "content": "my bank reminder is in the blue folder"},
            {"role": "user", "sender_id": "43", "content": "I have been diagnosed with diabetes"},
            {"role": "assistant", "content": "noted"},
        ],
    )
    session(
        "top.json",  # a sender for the file, and one message from someone else
        [
            {"role": "user", "content": "what was that jazz album?"},
            {"role": "user", "sender_id": "43", "content": "Bob here, borrowing the laptop"},
        ],
        sender_id="42",
    )
    session(
        "alice.json",
        [
            {"role": "user", "sender_id": "42", "content": "remind me about the oboe lesson"},
            {"role": "assistant", "content": "Thursday at five"},
        ],
    )
    report = import_from(
        imem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE, BOB, OWNER])
    )
    assert report.imported == 8 and report.refused == []
    history = lambda ctx: {f.text for f in imem.list(ctx) if f.scope is Scope.SESSION}  # noqa: E731
    assert history(Context.dm(ALICE)) == {"remind me about the oboe lesson", "Thursday at five"}
    assert history(Context.dm(BOB)) == set()
    assert {"hi all", "I have been diagnosed with diabetes", "Bob here, borrowing the laptop"} <= (
        history(OWNER_CTX)
    )
    assert sorted(n for n in report.notes if "senders" in n) == [
        "sessions/group.json: 3 senders: kept as the owner's private history",
        "sessions/top.json: 2 senders: kept as the owner's private history",
    ]


def test_dry_run_changes_nothing(tmp_path: Path, imem: Memory) -> None:
    base = tmp_path / "tree"
    _silo_tree(base)
    dry = import_from(imem, "silo-tree", base, OWNER_CTX, dry_run=True)
    assert dry.dry_run and dry.imported > 0 and dry.refused
    assert imem.list(OWNER_CTX) == [] and imem.store.count_archive() == 0
    real = import_from(imem, "silo-tree", base, OWNER_CTX)
    assert (real.imported, len(real.refused)) == (dry.imported, len(dry.refused))


def test_imports_other_than_jsonl_are_the_owners(tmp_path: Path, imem: Memory) -> None:
    base = tmp_path / "tree"
    _silo_tree(base)
    for ctx, code in [
        (Context.dm(ALICE), "owner_required"),
        (Context.guild(OWNER, "g1"), "owner_private_context_required"),
    ]:
        with pytest.raises(AccessDenied) as e:
            import_from(imem, "silo-tree", base, ctx)
        assert e.value.code == code
    assert imem.list(OWNER_CTX) == []


def test_exported_jsonl_lines_are_the_owners_and_refusals_are_logged(
    tmp_path: Path, imem: Memory
) -> None:
    lines = tmp_path / "x.jsonl"
    lines.write_text(
        json.dumps({"text": "I like tea"}) + "\n" + json.dumps({"text": "hi", "scope": "owner"})
    )
    for ctx, code in [
        (Context.dm(ALICE), "owner_required"),
        (Context.guild(OWNER, "g1"), "owner_private_context_required"),
    ]:
        with pytest.raises(AccessDenied) as e:
            import_from(imem, "jsonl", lines, ctx)
        assert e.value.code == code
    assert imem.store.count_facts() == 0  # refused whole: not even the plain line
    logged = [(d.code, d.surface) for d in imem.denials(OWNER_CTX)]
    assert ("owner_required", "dm") in logged
    assert ("owner_private_context_required", "guild_text") in logged
    with pytest.raises(AccessDenied):  # every other layout, likewise logged
        import_from(imem, "mem0", lines, Context.dm(BOB))
    assert sum(d.count for d in imem.denials(OWNER_CTX)) == 3
    assert import_from(imem, "jsonl", lines, OWNER_CTX).imported == 2


# --- memory_facts -----------------------------------------------------------------------


def test_memory_facts_import(tmp_path: Path, imem: Memory) -> None:
    db = tmp_path / "bot.sqlite"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE memory_facts (id INTEGER PRIMARY KEY, scope TEXT, guild_id TEXT, "
        "channel_id TEXT, user_id TEXT, subject TEXT, fact TEXT, fact_type TEXT, "
        "evidence_text TEXT, source_message_id TEXT, confidence REAL, is_active INTEGER, "
        "created_at TEXT)"
    )
    rows = [
        (
            "owner",
            None,
            None,
            "1",
            "__owner__",
            "Owner prefers dark roast",
            "preference",
            None,
            None,
            0.9,
            1,
            "2026-06-01T08:00:00Z",
        ),
        (
            "user",
            "g1",
            "c1",
            "42",
            "42",
            "Alice runs marathons",
            "hobby",
            "I run marathons!",
            "m1",
            0.8,
            1,
            "2026-06-02T09:00:00Z",
        ),
        (
            "user",
            None,
            None,
            "43",
            "43",
            "Bob is learning Rust",
            "fact",
            None,
            None,
            0.7,
            1,
            "2026-06-03 10:00:00",
        ),
        (
            "user",
            None,
            None,
            "43",
            "43",
            "Bob's card is 4111 1111 1111 1111",
            "fact",
            None,
            None,
            1.0,
            1,
            "2026-06-03",
        ),
        (
            "guild",
            "g1",
            "c1",
            "42",
            "__lore__",
            "The server's mascot is a heron",
            "lore",
            None,
            None,
            1.0,
            1,
            1780000000,
        ),
        (
            "user",
            None,
            None,
            "42",
            "42",
            "Alice used to live in Oslo",
            "fact",
            None,
            None,
            1.0,
            0,
            "2026-05-01",
        ),
        ("user", "g1", "c1", "42", "42", "An old fact", "fact", None, None, 1.0, 1, "2025-01-01"),
    ]
    con.executemany(
        "INSERT INTO memory_facts (scope, guild_id, channel_id, user_id, subject, fact, fact_type, evidence_text, source_message_id, confidence, is_active, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        rows,
    )
    con.commit()
    con.close()
    report = import_from(imem, "memory-facts", db, OWNER_CTX)
    # the bot's facts keep theirs: a fact from 2025 lives from the import, not archived
    assert report.imported == 5
    assert ("row 6", "inactive") in report.skipped
    assert report.archived == []
    assert [(r.position, r.categories) for r in report.refused] == [
        ("row 4", ("card_number",))
    ] or [r.position for r in report.refused] == ["row 4"]
    owner = [f for f in imem.list(OWNER_CTX) if f.scope is Scope.OWNER]
    assert [(f.text, f.kind, f.confidence) for f in owner] == [
        ("Owner prefers dark roast", "preference", 0.9)
    ]
    assert owner[0].created_at == datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
    in_g1 = Context.guild(BOB, "g1", participants=[ALICE])
    assert texts(imem, in_g1) == {
        "Alice runs marathons",
        "The server's mascot is a heron",
        "An old fact",
    }
    assert texts(imem, Context.guild(ALICE, "g2")) == set()  # what was said in g1 stays there
    # her own, learned in g1
    assert texts(imem, Context.dm(ALICE)) == {"Alice runs marathons", "An old fact"}
    old = next(f for f in imem.list(OWNER_CTX) if f.text == "An old fact")
    assert old.created_at == datetime(2025, 1, 1, 12, 0, tzinfo=UTC)  # its date kept
    assert old.expires_at == NOW + timedelta(days=365)  # a year from the import
    assert texts(imem, Context.dm(BOB)) == {"Bob is learning Rust"}
    assert "I run marathons!" not in {f.text for f in imem.list(OWNER_CTX)}  # evidence not kept


# --- Mem0 ---------------------------------------------------------------------------------


def test_mem0_import(tmp_path: Path, imem: Memory) -> None:
    export = tmp_path / "mem0.json"
    export.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "id": "a1",
                        "memory": "Likes Italian food",
                        "user_id": "alice",
                        "created_at": "2026-06-10T09:15:00-07:00",
                        "hash": "x",
                        "metadata": None,
                    },
                    {
                        "id": "a2",
                        "memory": "Password is hunter2-Xy9#kq",
                        "user_id": "alice",
                        "created_at": "2026-06-10T09:16:00-07:00",
                    },
                    {
                        "id": "b1",
                        "memory": "Training for a triathlon",
                        "user_id": "u-77",
                        "created_at": "2026-06-11T10:00:00Z",
                    },
                    {
                        "id": "c1",
                        "memory": "Agent prefers short answers",
                        "agent_id": "helper",
                        "created_at": "2026-06-12T10:00:00Z",
                    },
                ]
            }
        )
    )
    users = tmp_path / "users.txt"
    users.write_text(f"alice {ALICE}\n")
    report = import_from(imem, "mem0", export, OWNER_CTX, user_map=users)
    assert report.imported == 3 and [r.position for r in report.refused] == ["results[1]"]
    alice = imem.list(Context.dm(ALICE))
    assert [(f.text, f.created_at) for f in alice] == [
        ("Likes Italian food", datetime(2026, 6, 10, 16, 15, tzinfo=UTC))
    ]
    assert texts(imem, Context.dm("mem0:u-77")) == {"Training for a triathlon"}
    assert "Agent prefers short answers" in {
        f.text for f in imem.list(OWNER_CTX) if f.scope is Scope.OWNER
    }


# --- JSONL, exports, round trip ----------------------------------------------------------


def _populate(mem: Memory) -> None:
    then = NOW - timedelta(days=3)
    mem.remember(OWNER_CTX, "Dentist moved to Thursday", "owner")
    mem.remember_many(
        Context.dm(ALICE),
        ["I'm allergic to peanuts", "Café au lait, s'il vous plaît"],
        created_at=then,
        authority=OWNER_CTX,
    )
    mem.remember(Context.guild(BOB, "g1", participants=[ALICE]), "I keep bees", "me")
    mem.remember(Context.guild(BOB, "g1"), "We read Dune this month")
    mem.remember(Context.group_dm(ALICE, "chat9"), "Trip to Lisbon in May")
    mem.remember(OWNER_CTX, "Alice likes chess", f"user:{ALICE}")
    mem.remember(OWNER_CTX, "Backups run early in the morning", "global")
    mem.remember(OWNER_CTX, "line one\n# not a header\n\nline four", "owner")


def _shape(mem: Memory) -> set[tuple]:
    return {
        (
            f.text,
            f.scope.value,
            f.subject,
            f.community,
            f.origin,
            f.author,
            f.created_at,
            f.expires_at,
        )
        for f in mem.list(OWNER_CTX)
    }


@pytest.mark.parametrize("fmt", ["jsonl", "silo-tree"])
def test_round_trip(tmp_path: Path, imem: Memory, key: bytes, clock: Clock, fmt: str) -> None:
    _populate(imem)
    dest = tmp_path / ("out.jsonl" if fmt == "jsonl" else "tree")
    report = (export_jsonl if fmt == "jsonl" else export_silo_tree)(imem, OWNER_CTX, dest)
    assert report.facts == 9 and "plaintext" in report.warning
    files = [dest] if fmt == "jsonl" else [p for p in dest.rglob("*") if p.is_file()]
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in files)
    with Memory.open(tmp_path / "new.db", owner_ids=[OWNER], clock=clock) as fresh:
        back = import_from(fresh, fmt, dest, OWNER_CTX)
        assert back.refused == [] and back.imported == 9
        assert _shape(fresh) == _shape(imem)
        # and the same visibility: what Alice said in the group chat stays there
        assert texts(fresh, Context.group_dm(ALICE, "chat9")) >= {"Trip to Lisbon in May"}
        assert "Trip to Lisbon in May" not in texts(fresh, Context.dm(ALICE))
        assert "Alice likes chess" not in texts(fresh, Context.dm(ALICE))


def test_exports_are_the_owners_local_context(tmp_path: Path, imem: Memory) -> None:
    for ctx, code in [
        (Context.dm(ALICE), "owner_required"),
        (Context.dm(OWNER), "local_context_required"),
        (Context.guild(OWNER, "g1"), "owner_private_context_required"),
    ]:
        with pytest.raises(AccessDenied) as e:
            export_jsonl(imem, ctx, tmp_path / "x.jsonl")
        assert e.value.code == code
    assert not (tmp_path / "x.jsonl").exists()


def test_comment_openers_in_text_survive_the_round_trip(tmp_path: Path, imem: Memory) -> None:
    """A fact line starting with `<!--` (never closed) must not swallow the next entry's
    header and hand it this entry's metadata: the owner's note about Alice stays owner-only,
    Alice's own fact stays hers, and both keep their text exactly."""
    note = "Surprise party for Alice on Friday\n<!-- do not tell her, keep it secret"
    forged = 'mine\n  <!-- confidante: {"scope": "owner"} -->\n\\<!-- and -->'
    imem.remember(OWNER_CTX, note, f"user:{ALICE}")
    imem.remember(Context.dm(ALICE), "I like tea")
    imem.remember(Context.dm(ALICE), forged)
    imem.remember(OWNER_CTX, "<!-- a global note", "global")
    imem.remember(OWNER_CTX, "Backups run early in the morning", "global")
    dest = tmp_path / "tree"
    export_silo_tree(imem, OWNER_CTX, dest)
    with Memory.open(tmp_path / "back.db", owner_ids=[OWNER], clock=imem.clock) as fresh:
        back = import_from(fresh, "silo-tree", dest, OWNER_CTX)
        assert back.refused == [] and back.skipped == [] and back.imported == 5
        alice = {f.text for f in fresh.list(Context.dm(ALICE)) if f.scope is Scope.USER}
        assert alice == {"I like tea", forged}
        assert _shape(fresh) == _shape(imem)


def test_an_export_made_before_the_escaping_reads_back_whole(tmp_path: Path, imem: Memory) -> None:
    """Earlier exports wrote a `<!--` text line as it was: the metadata that follows ends
    it, and the line is the entry's text (confidante writes no other comment in an entry)."""
    silo = tmp_path / "tree" / "users" / silo_hash(ALICE)
    silo.mkdir(parents=True)
    head = '<!-- confidante: {"author": "%s", "origin": "%s", "scope": "user", "subject": "%s"} -->'
    (silo / "MEMORY.md").write_text(
        f"# MEMORY\n\n## 2026-06-01\nSurprise party for Alice on Friday\n"
        f"<!-- do not tell her, keep it secret\n{head % (OWNER, 'owner', ALICE)}\n\n"
        f"## 2026-06-02\nI like tea\n{head % (ALICE, 'dm:' + ALICE, ALICE)}\n"
    )
    report = import_from(imem, "silo-tree", tmp_path / "tree", OWNER_CTX)
    assert report.imported == 2 and report.skipped == []
    assert {f.text for f in imem.list(Context.dm(ALICE)) if f.scope is Scope.USER} == {"I like tea"}
    assert "Surprise party for Alice on Friday\n<!-- do not tell her, keep it secret" in texts(
        imem, OWNER_CTX
    )


def test_unclosed_comments_never_lose_an_entry_silently(tmp_path: Path, imem: Memory) -> None:
    """Hand-edited files: an unclosed comment, and metadata that would land on the wrong
    entry, are reported by position; nothing is attributed to the wrong block."""
    base = tmp_path / "tree"
    silo = base / "users" / silo_hash(ALICE)
    silo.mkdir(parents=True)
    meta = '<!-- confidante: {"scope": "user", "origin": "dm:%s", "author": "%s"} -->'
    (silo / "MEMORY.md").write_text(
        "## one\nKeeps bees\n" + meta % (ALICE, ALICE) + "\n<!-- a note\n\n## two\n"
        "Plays the oboe\n" + '<!-- confidante: {"scope": "owner"} -->\n'
    )
    (base / "MEMORY.md").write_text("## Dentist\nMoved to Thursday\n\n<!-- draft\n## Lost\nx\n")
    report = import_from(imem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE]))
    assert {f.text for f in imem.list(Context.dm(ALICE)) if f.scope is Scope.USER} == {"Keeps bees"}
    owner = {f.text for f in imem.list(OWNER_CTX) if f.scope is Scope.OWNER}
    assert owner == {"Dentist: Moved to Thursday"}
    assert sorted(report.skipped) == [
        ("MEMORY.md:4", "unclosed_comment"),
        (f"users/{silo_hash(ALICE)}/MEMORY.md:4", "unclosed_comment"),
    ]


def test_export_writes_only_inside_its_folder(tmp_path: Path, imem: Memory) -> None:
    """Ids are never paths: a subject such as `silo:/abs/path` or `silo:../../x` (the
    library accepts any `\\S` id) lands in a hashed folder inside the export, and back."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "MEMORY.md").write_text("# another agent's memory\n")
    odd = [f"silo:{victim}", "silo:../../escape", "silo:..", "silo:0123456789abcdef"]
    for n, actor in enumerate(odd):
        imem.remember(Context.dm(actor), f"odd person number {n} plays the oboe")
    dest = tmp_path / "deep" / "out"
    export_silo_tree(imem, OWNER_CTX, dest)
    assert (victim / "MEMORY.md").read_text() == "# another agent's memory\n"
    written = {p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith("mem.db")}
    assert written - {victim / "MEMORY.md"} == {p for p in dest.rglob("*") if p.is_file()}
    assert (dest / "users" / "0123456789abcdef" / "MEMORY.md").is_file()  # a real placeholder
    with Memory.open(tmp_path / "back.db", owner_ids=[OWNER], clock=imem.clock) as fresh:
        back = import_from(fresh, "silo-tree", dest, OWNER_CTX)
        assert back.refused == [] and back.imported == 4
        assert {(f.subject, f.text) for f in fresh.list(OWNER_CTX)} == {
            (a, f"odd person number {n} plays the oboe") for n, a in enumerate(odd)
        }


def test_export_refuses_a_symlink_out_of_its_folder(tmp_path: Path, imem: Memory) -> None:
    imem.remember(Context.dm(ALICE), "Alice plays the oboe")
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "users").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InvalidInput):
        export_silo_tree(imem, OWNER_CTX, dest, force=True)
    assert list(outside.iterdir()) == []


def test_export_files_are_0600_even_over_old_files_and_symlinks(
    tmp_path: Path, imem: Memory
) -> None:
    imem.remember(Context.dm(ALICE), "Alice plays the oboe")
    old = tmp_path / "old.jsonl"
    old.write_text("stale\n")
    old.chmod(0o644)
    export_jsonl(imem, OWNER_CTX, old, force=True)
    assert oct(old.stat().st_mode & 0o777) == "0o600" and "oboe" in old.read_text()
    other = tmp_path / "someone-elses.txt"
    other.write_text("keep me\n")
    other.chmod(0o644)
    link = tmp_path / "link.jsonl"
    link.symlink_to(other)
    export_jsonl(imem, OWNER_CTX, link, force=True)
    assert other.read_text() == "keep me\n"  # the link was replaced, not followed
    assert not link.is_symlink() and oct(link.stat().st_mode & 0o777) == "0o600"
    tree = tmp_path / "tree"
    (tree / "users" / silo_hash(ALICE)).mkdir(parents=True)
    stale = tree / "users" / silo_hash(ALICE) / "MEMORY.md"
    stale.write_text("old\n")
    stale.chmod(0o644)
    export_silo_tree(imem, OWNER_CTX, tree, force=True)
    assert oct(stale.stat().st_mode & 0o777) == "0o600" and "oboe" in stale.read_text()
    assert not [p for p in tree.rglob("*.tmp")]


@pytest.fixture
def cli(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")} | {
        "CONFIDANTE_DB": str(tmp_path / "cli.db"),
        "CONFIDANTE_OWNER_IDS": OWNER,
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "confidante", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


def test_cli_import_and_export(tmp_path: Path, cli) -> None:
    assert cli("init").returncode == 0
    lines = tmp_path / "a.jsonl"
    lines.write_text(
        '{"text": "I like tea"}\n{"text": "reach me at +1 415 555 0100"}\nnot json\n"I like green tea too"\n'
    )
    dry = cli("import", str(lines), "--from", "jsonl", "--as", ALICE, "--dm", "--dry-run", "--json")
    assert json.loads(dry.stdout)["imported"] == 2
    assert json.loads(cli("list", "--as", ALICE, "--dm", "--json").stdout)["facts"] == []
    p = cli("import", str(lines), "--as", ALICE, "--dm", "--json")
    out = json.loads(p.stdout)
    assert (out["imported"], out["refused_by_category"], out["skipped_by_reason"]) == (
        2,
        {"phone": 1},
        {"invalid_json": 1},
    )
    assert "415" not in p.stdout + p.stderr
    tree = tmp_path / "tree"
    _silo_tree(tree)
    p = cli("import", str(tree), "--from", "silo-tree", "--as", ALICE, "--dm", "--json")
    assert json.loads(p.stdout)["error"]["code"] == "owner_required" and p.returncode == 3
    p = cli(
        "import", str(tree), "--from", "silo-tree", "--as", OWNER, "--local", "--ttl-days", "365"
    )
    assert p.returncode == 0, p.stderr
    assert "refused by category" in p.stdout and "matched no sender" in p.stdout
    p = cli("export", str(tmp_path / "out.jsonl"), "--as", OWNER, "--local", "--json")
    assert p.returncode == 0 and "plaintext" in p.stderr
    exported = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert "The weekly backup finished early" in {e["text"] for e in exported}
    p = cli("export", str(tmp_path / "t2"), "--to", "silo-tree", "--as", ALICE, "--dm", "--json")
    assert p.returncode != 0 and not (tmp_path / "t2").exists()
