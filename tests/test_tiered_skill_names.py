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
