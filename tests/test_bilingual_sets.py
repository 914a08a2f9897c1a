"""The bilingual recall sets under benchmarks/data (dev, held-out, second held-out) are what
the per-language figures are read from: every file parses, every question's gold turns
exist, and every turn and question is in English and Chinese."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
FILES = sorted(p for d in ("dev", "heldout", "heldout2") for p in (DATA / d).glob("*.json"))


def test_the_sets_are_there() -> None:
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_conversation_is_well_formed(path: Path) -> None:
    conv = json.loads(path.read_text(encoding="utf-8"))
    dates = [datetime.fromisoformat(s["date"].replace("Z", "+00:00")) for s in conv["sessions"]]
    assert dates == sorted(dates)
    assert datetime.fromisoformat(conv["asked_at"].replace("Z", "+00:00")) > dates[-1]
    turns = {
        f"{si}:{ti}": t
        for si, s in enumerate(conv["sessions"], start=1)
        for ti, t in enumerate(s["turns"], start=1)
    }
    assert all(t.get("en") and t.get("zh") for t in turns.values())
    assert conv["questions"]
    for q in conv["questions"]:
        assert q.get("en") and q.get("zh")
        assert q["evidence"] and all(e in turns for e in q["evidence"]), q["en"]
