"""The tiered skill's own naming: a note named `skill-a_preferences.md` is that skill's,
when its front matter names none (its old XOR key is derived from that name too)."""

from __future__ import annotations

from pathlib import Path

from confidante import Context, Memory, Scope
from confidante.interop import import_from
from confidante.interop.legacy_xor import derive_key, encrypt

from conftest import OWNER

OWNER_CTX = Context.local(OWNER)


def _note(text: str, skill: str, *, front: str) -> str:
    return (
        f"---\n{front}---\n\n## Encrypted Entry\n> {encrypt(text, derive_key(skill, '2026-06'))}\n"
    )


def test_the_file_name_names_the_skill(tmp_path: Path, key: bytes) -> None:
    notes = tmp_path / "agent" / "memory" / "tier2-internal"
    notes.mkdir(parents=True)
    (notes / "skill-a_preferences.md").write_text(
        _note(
            "Prefers tea in the afternoon", "skill-a", front="tier: internal\ncreated: 2026-06-03\n"
        )
    )
    (notes / "weather_notes.md").write_text(
        _note(
            "Likes the rain",
            "other",
            front="tier: internal\nsource_skill: other\ncreated: 2026-06-03\n",
        )
    )
    (notes / "plain.md").write_text(
        _note(
            "Keeps a diary",
            "skill-b",
            front="tier: internal\nkey_hint: skill-b-2026-06\ncreated: 2026-06-03\n",
        )
    )
    with Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=key) as mem:
        report = import_from(mem, "tiered", tmp_path / "agent", OWNER_CTX)
        assert report.imported == 3, report.to_dict()
        skills = {f.text: f.source_skill for f in mem.list(OWNER_CTX) if f.scope is Scope.OWNER}
        assert skills == {
            "Prefers tea in the afternoon": "skill-a",  # from the file name
            "Likes the rain": "other",  # the front matter wins
            "Keeps a diary": "skill-b",  # from the key hint
        }
        assert [f.text for f in mem.list(OWNER_CTX, filters={"source_skill": "skill-a"})] == [
            "Prefers tea in the afternoon"
        ]


def test_export_to_the_bots_table_and_back(tmp_path: Path, key: bytes) -> None:
    """The bot's layout: owner facts under its `__owner__` marker, a person's by their raw
    id (with the guild they were said in), community lore by guild; read back whole."""
    import sqlite3

    from confidante.interop import export_memory_facts

    alice = "discord:42"
    with Memory.open(tmp_path / "a.db", owner_ids=[OWNER], master_key=key) as mem:
        mem.remember(Context.dm(OWNER), "The owner drinks dark roast", "owner")
        mem.remember(Context.guild(alice, "g1"), "I run marathons", "me")
        mem.remember(Context.dm(alice), "I am learning the cello")
        mem.remember(Context.guild(alice, "g1"), "The server mascot is a heron")
        export_memory_facts(mem, OWNER_CTX, tmp_path / "bot.sqlite")
    assert (tmp_path / "bot.sqlite").stat().st_mode & 0o777 == 0o600
    con = sqlite3.connect(tmp_path / "bot.sqlite")
    rows = set(con.execute("SELECT scope, guild_id, user_id, subject, fact FROM memory_facts"))
    con.close()
    assert rows == {
        ("owner", None, None, "__owner__", "The owner drinks dark roast"),
        ("user", "g1", "42", "42", "I run marathons"),
        ("user", None, "42", "42", "I am learning the cello"),
        ("guild", "g1", "42", "__lore__", "The server mascot is a heron"),
    }
    with Memory.open(tmp_path / "b.db", owner_ids=[OWNER], master_key=key) as mem:
        report = import_from(mem, "memory-facts", tmp_path / "bot.sqlite", OWNER_CTX)
        assert report.imported == 4
        in_g1 = {f.text for f in mem.list(Context.guild("discord:43", "g1", participants=[alice]))}
        assert in_g1 == {"I run marathons", "The server mascot is a heron"}
        assert {f.text for f in mem.list(Context.dm(alice))} == {
            "I run marathons",
            "I am learning the cello",
        }
