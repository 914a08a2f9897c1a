"""Bounded parsing: every importer's reads have a size limit per file and per import, YAML
front matter is read without aliases, and FIFOs, deep nesting and links inside a tiered
folder are reported, never a hang, an out-of-memory or a crash. Real files, real FIFOs,
real memories on both engines."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from confidante import Context, InvalidInput, Memory, Scope
from confidante.interop import SKIP_REASONS, ReadLimits, SenderMap, import_from, silo_hash
from confidante.interop.files import DEFAULT_LIMITS, MIB
from confidante.interop.legacy_xor import derive_key, encrypt
from confidante.interop.tiered import front_matter

from conftest import ALICE, BOB, CAROL, OWNER

OWNER_CTX = Context.local(OWNER)
LONG = 3650  # days: a lifetime that keeps dated history from being archived at once

# "Billion laughs": 9 levels of lists of 9 aliases, ~600 bytes for 9**9 (387 million) nodes.
BOMB = (
    "lol1: &lol1 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(f"lol{n}: &lol{n} [{','.join([f'*lol{n - 1}'] * 9)}]\n" for n in range(2, 10))
    + "source_skill: *lol9\n"  # what the note's reader turns into text: 9**9 "lol"s
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _note(text: str, front: str | None = None, *, month: str = "2026-11") -> str:
    skill = "req-comprehend"
    key = derive_key(skill, month)
    front = front or f"tier: internal\nsource_skill: {skill}\nkey_hint: {skill}-{month}\n"
    return f"---\n{front}---\n\n## Encrypted Entry\n> {encrypt(text, key)}\n"


def _owner_texts(mem: Memory) -> set[str]:
    return {f.text for f in mem.list(OWNER_CTX)}


# --- YAML front matter ------------------------------------------------------------------------


def test_the_alias_bomb_is_refused_and_reported(tmp_path: Path, mem: Memory) -> None:
    """The review's ~600-byte bomb in a tiered note's front matter: refused at the first
    alias (`front_matter_refused`), and the folder's other notes still come in."""
    assert 550 < len(BOMB.encode()) < 700  # the review's ~600 bytes
    t2 = tmp_path / "agent" / "memory" / "tier2-internal"
    _write(t2 / "bomb.md", _note("Never decrypted", BOMB))
    _write(t2 / "good.md", _note("Prefers bullet points over prose"))
    report = import_from(mem, "tiered", tmp_path / "agent", OWNER_CTX, ttl_days=LONG)
    assert report.skipped == [("memory/tier2-internal/bomb.md", "front_matter_refused")]
    assert _owner_texts(mem) == {"Prefers bullet points over prose"}


@pytest.mark.parametrize(
    "front",
    [
        pytest.param(BOMB, id="alias bomb"),
        pytest.param("a: &x 1\nb: *x\n", id="one alias"),
        pytest.param("base: &b {k: 1}\nother:\n  <<: *b\n", id="merge key"),
        pytest.param("x: " + "[" * 20_000 + "]" * 20_000 + "\n", id="nested past the depth"),
        pytest.param("".join(f"k{n}: v\n" for n in range(12_000)), id="longer than 64 KiB"),
    ],
)
def test_front_matter_refusals(front: str) -> None:
    assert front_matter(front, DEFAULT_LIMITS.front_matter_bytes) is None


def test_plain_front_matter_still_reads() -> None:
    raw = "tier: internal\nsource_skill: s\ncreated: 2026-06-01\nanchor_like: '&not an anchor'\n"
    got = front_matter(raw, DEFAULT_LIMITS.front_matter_bytes)
    assert got is not None and got["source_skill"] == "s" and got["anchor_like"] == "&not an anchor"
    assert front_matter("just a string", 1024) == {}


# --- size limits, per file and per import ----------------------------------------------------


def test_a_file_over_the_limit_is_skipped_unread(tmp_path: Path, mem: Memory) -> None:
    """The default per-file limit: a (sparse) 16 MiB + 1 byte file is reported as
    `too_large` from its size, without being read; the rest of the tree comes in."""
    base = tmp_path / "tree"
    base.mkdir()
    with (base / "MEMORY.md").open("wb") as f:
        f.truncate(DEFAULT_LIMITS.file_bytes + 1)
    _write(base / "users" / silo_hash(ALICE) / "MEMORY.md", "##\nI like tea\n")
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE]))
    assert report.skipped == [("MEMORY.md", "too_large")]
    assert report.imported == 1


def test_limits_per_file_and_per_import(tmp_path: Path, mem: Memory) -> None:
    base = tmp_path / "tree"
    people = [ALICE, BOB, CAROL]
    for n, person in enumerate(people):
        _write(base / "users" / silo_hash(person) / "MEMORY.md", f"##\nPlays chess, game {n}\n")
    big = _write(base / "2026-11-30.md", "- a note\n" * 200)
    senders = SenderMap(people)
    small = ReadLimits(file_bytes=1024)
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=senders, limits=small)
    assert report.skipped == [("2026-11-30.md", "too_large")] and big.stat().st_size > 1024
    assert report.imported == 3
    # one import reads at most `import_bytes` in all: the files past it are reported
    size = len(b"##\nPlays chess, game 0\n")
    tight = ReadLimits(import_bytes=2 * size)
    again = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=senders, limits=tight)
    assert again.skipped_by_reason() == {"import_limit": 2, "duplicate": 2}


def test_a_listing_stops_at_the_import_limit(tmp_path: Path, mem: Memory) -> None:
    base = tmp_path / "tree"
    for n in range(30):
        (base / "users" / silo_hash(f"x:{n}")).mkdir(parents=True)
    report = import_from(mem, "silo-tree", base, OWNER_CTX, limits=ReadLimits(entries=10))
    assert ("users", "import_limit") in report.skipped


def test_single_file_importers_are_bounded_too(tmp_path: Path, mem: Memory) -> None:
    """JSON Lines, Mem0 exports, user maps and sender lists share the per-file limit; too
    large is an error naming the file, never a partial read."""
    lines = _write(tmp_path / "a.jsonl", '{"text": "I like tea"}\n' * 100)
    mem0 = _write(tmp_path / "m.json", json.dumps({"results": [{"memory": "x" * 5000}]}))
    senders = _write(tmp_path / "senders.txt", f"{ALICE}\n" * 500)
    _write(tmp_path / "tree" / "MEMORY.md", "##\nDentist moved to Thursday\n")
    small = ReadLimits(file_bytes=1000)
    for fmt, path, kw in [
        ("jsonl", lines, {}),
        ("mem0", mem0, {}),
        ("mem0", mem0, {"user_map": senders}),
        ("silo-tree", tmp_path / "tree", {"sender_ids": senders}),
    ]:
        with pytest.raises(InvalidInput) as e:
            import_from(mem, fmt, path, OWNER_CTX, limits=small, **kw)
        assert "too_large" in str(e.value)
    assert mem.list(OWNER_CTX) == []


def test_a_memory_facts_table_is_read_within_the_limits(tmp_path: Path, mem: Memory) -> None:
    """A row holding a value over the per-file limit never leaves SQLite (`too_large`); the
    rows past the import's total are one `import_limit`."""
    db = tmp_path / "bot.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE memory_facts (scope TEXT, user_id TEXT, fact TEXT)")
    rows = [
        ("user", "42", "Plays the oboe"),
        ("user", "4" * 5000, "x"),
        ("owner", None, "y" * 5000),
    ]
    rows += [("user", "43", f"Keeps bees, hive {n}") for n in range(10)]
    con.executemany("INSERT INTO memory_facts VALUES (?, ?, ?)", rows)
    con.commit()
    con.close()
    limits = ReadLimits(file_bytes=1000, import_bytes=200)
    report = import_from(mem, "memory-facts", db, OWNER_CTX, limits=limits)
    assert report.skipped[:2] == [("row 2", "too_large"), ("row 3", "too_large")]
    assert [why for _, why in report.skipped[2:]] == ["import_limit"]
    assert 1 <= report.imported < 11
    assert "Plays the oboe" in {f.text for f in mem.list(Context.dm(ALICE))}


def test_read_limits_must_be_positive() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidInput):
            ReadLimits(file_bytes=bad)  # type: ignore[arg-type]
    assert ReadLimits().file_bytes == 16 * MIB


# --- nothing can stall or crash an import -------------------------------------------------


def test_fifos_are_never_opened_for_reading(tmp_path: Path, mem: Memory) -> None:
    """A FIFO where a file is expected would block a plain `open()` forever."""
    base = tmp_path / "tree"
    silo = base / "users" / silo_hash(ALICE)
    silo.mkdir(parents=True)
    (base / "sessions").mkdir()
    os.mkfifo(silo / "MEMORY.md")
    os.mkfifo(base / "sessions" / "chat.json")
    os.mkfifo(base / "MEMORY.md")
    _write(base / "users" / silo_hash(BOB) / "MEMORY.md", "##\nKeeps bees\n")
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE, BOB]))
    assert sorted(report.skipped) == [
        ("MEMORY.md", "not_a_file"),
        ("sessions/chat.json", "not_a_file"),
        (f"users/{silo_hash(ALICE)}/MEMORY.md", "not_a_file"),
    ]
    assert report.imported == 1
    tiered = tmp_path / "agent" / "memory" / "tier2-internal"
    tiered.mkdir(parents=True)
    os.mkfifo(tiered / "pipe.md")
    report = import_from(mem, "tiered", tmp_path / "agent", OWNER_CTX)
    assert report.skipped == [("memory/tier2-internal/pipe.md", "not_a_file")]


def test_deep_nesting_is_invalid_not_a_crash(tmp_path: Path, mem: Memory) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    base = tmp_path / "tree"
    (base / "sessions").mkdir(parents=True)
    _write(base / "sessions" / "deep.json", deep)
    _write(
        base / "users" / silo_hash(ALICE) / "MEMORY.md",
        f'##\nI like tea\n<!-- confidante: {{"scope": {deep}}} -->\n',
    )
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE]))
    assert report.skipped == [("sessions/deep.json", "invalid")]
    assert [(f.scope, f.subject, f.text) for f in mem.list(OWNER_CTX)] == [
        (Scope.USER, ALICE, "I like tea")  # an unreadable comment is no comment: its place
    ]
    lines = _write(tmp_path / "a.jsonl", deep + '\n{"text": "Keeps bees"}\n')
    assert import_from(mem, "jsonl", lines, OWNER_CTX).skipped == [("line 1", "invalid_json")]
    for fmt, text in [("mem0", deep), ("mem0", '{"results": ' + deep + "}")]:
        with pytest.raises(InvalidInput):
            import_from(mem, fmt, _write(tmp_path / "m.json", text), OWNER_CTX)
    stats = tmp_path / "agent" / "memory" / "tier1-public"
    _write(stats / "s.json", deep)
    report = import_from(mem, "tiered", tmp_path / "agent", OWNER_CTX)
    assert report.skipped == [("memory/tier1-public/s.json", "invalid")]


# --- the tiered folder follows no link either ------------------------------------------------


def test_no_link_inside_a_tiered_folder_is_followed(tmp_path: Path, mem: Memory) -> None:
    outside = tmp_path / "elsewhere"
    _write(outside / "secret.md", _note("Owner secret from another agent"))
    _write(outside / "2026-10" / "old.md", _note("Another secret", month="2026-10"))
    _write(outside / "stats.json", json.dumps({"skill_stats": {"s": {"calls": 3}}}))
    root = tmp_path / "agent" / "memory"
    _write(root / "tier2-internal" / "mine.md", _note("Prefers bullet points over prose"))
    (root / "tier2-internal" / "linked.md").symlink_to(outside / "secret.md")
    (root / "archive").mkdir()
    (root / "archive" / "2026-10").symlink_to(outside / "2026-10", target_is_directory=True)
    (root / "tier1-public").symlink_to(outside, target_is_directory=True)
    report = import_from(mem, "tiered", tmp_path / "agent", OWNER_CTX, ttl_days=LONG)
    assert sorted(report.skipped) == [
        ("memory/archive/2026-10", "symlink"),
        ("memory/tier1-public", "symlink"),
        ("memory/tier2-internal/linked.md", "symlink"),
    ]
    assert _owner_texts(mem) == {"Prefers bullet points over prose"}
    assert mem.public_stats()["skill_stats"] == {}
    # `memory/` itself a link: refused (name the folder it points at instead)
    other = tmp_path / "other-agent"
    other.mkdir()
    (other / "memory").symlink_to(root, target_is_directory=True)
    with pytest.raises(InvalidInput):
        import_from(mem, "tiered", other, OWNER_CTX)
    # ... which the owner may do: the path they name is theirs to choose
    (tmp_path / "named").symlink_to(root, target_is_directory=True)
    again = import_from(mem, "tiered", tmp_path / "named", OWNER_CTX, ttl_days=LONG)
    assert ("named/tier2-internal/linked.md", "symlink") in again.skipped
    assert again.skipped_by_reason()["duplicate"] == 1


def test_every_skip_reason_is_documented(tmp_path: Path, mem: Memory) -> None:
    """The words a report may carry are listed, with what each means, in one place."""
    for word in (
        "symlink",
        "metadata_widens",
        "front_matter_refused",
        "too_large",
        "import_limit",
        "not_a_file",
    ):
        assert SKIP_REASONS[word]
    assert all(w.isidentifier() and w.islower() for w in SKIP_REASONS)
