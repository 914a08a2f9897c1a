"""Which layout a file or folder looks like: an import that found nothing in the layout it
was told names the one it probably is (a Mem0 export read as JSON Lines, say)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

_SQLITE_MAGIC = b"SQLite format 3\x00"
_PEEK = 65_536


def guess_format(path: Path) -> str | None:
    """The supported layout `path` looks like, or None. Reads at most 64 KiB of a file and
    follows no link inside a folder."""
    try:
        if path.is_dir():
            return _folder(path)
        if not path.is_file():
            return None
        with path.open("rb") as f:
            head = f.read(_PEEK)
    except OSError:
        return None
    if head.startswith(_SQLITE_MAGIC):
        return "memory-facts" if _has_memory_facts(path) else None
    text = head.decode("utf-8-sig", errors="replace").lstrip()
    if text.startswith("{") or text.startswith("["):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("results"), list):
            return "mem0"
        if (
            isinstance(whole, list)
            and whole
            and all(isinstance(x, dict) and "memory" in x for x in whole[:20])
        ):
            return "mem0"
    lines = [ln for ln in text.splitlines()[:20] if ln.strip()]
    if lines and all(_json_line_with_text(ln) for ln in lines[:-1] or lines):
        return "jsonl"
    return None


def _folder(path: Path) -> str | None:
    memory = path / "memory"
    for root in (memory, path):
        if any(
            (root / d).is_dir() and not (root / d).is_symlink()
            for d in ("tier1-public", "tier2-internal")
        ):
            return "tiered"
    if (path / "MEMORY.md").is_file() or (path / "users").is_dir():
        return "silo-tree"
    return None


def _json_line_with_text(line: str) -> bool:
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(row, dict) and isinstance(row.get("text"), str)


def _has_memory_facts(path: Path) -> bool:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        rows = con.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_facts'"
        ).fetchall()
    except sqlite3.Error:
        return False
    finally:
        con.close()
    return bool(rows)


__all__ = ["guess_format"]
