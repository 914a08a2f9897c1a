"""The Markdown of a silo tree: `MEMORY.md` (blocks of `## header`, content, optional
`#tags`) and daily notes (`YYYY-MM-DD.md`: bullets and paragraphs).

Files confidante exports carry one HTML comment after each entry,
`<!-- confidante: {...} -->`, with what Markdown has no place for (dates, origin, author);
a reader that knows it gets back exactly what was exported, and an agent reading the file
as Markdown never sees it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_META = re.compile(r"^\s*<!--\s*confidante:\s*(\{.*\})\s*-->\s*$")
_TAGS = re.compile(r"^\s*#[^\s#]+(\s+#[^\s#]+)*\s*$")
_HEADER = re.compile(r"^##\s+(.*?)\s*#*\s*$|^##\s*$")
_BULLET = re.compile(r"^([-*+]|\d+[.)])\s+(.*)$")


@dataclass
class Block:
    """One entry of a Markdown memory file."""

    line: int  # 1-based line where it starts
    header: str = ""
    body: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    meta: dict[str, Any] | None = None

    def text(self) -> str:
        """The fact: exactly the exported text when the block carries confidante's comment;
        otherwise `header: content`, with the tags kept at the end (they are what the old
        agent searched by)."""
        body = "\n".join(self.body).strip()
        if self.meta is not None:
            return _unescape(body or self.header)
        parts = [p for p in (self.header.strip(), body) if p]
        text = ": ".join(parts) if len(parts) == 2 and "\n" not in body else "\n".join(parts)
        if self.tags:
            text = f"{text} {' '.join(self.tags)}" if text else " ".join(self.tags)
        return text.strip()


def _meta(line: str) -> dict[str, Any] | None:
    m = _META.match(line)
    if not m:
        return None
    try:
        value = json.loads(m.group(1))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def parse_memory_md(text: str) -> list[Block]:
    """`## header` blocks; text before the first one (other than a `# title`) is a block of
    its own. A final line of only `#tags` is the block's tags."""
    blocks: list[Block] = []
    current: Block | None = None
    in_comment = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        meta = _meta(line)
        if meta is not None:
            if current is not None:
                current.meta = meta
            continue
        if in_comment or line.lstrip().startswith("<!--"):  # other comments are not facts
            in_comment = "-->" not in line
            continue
        header = _HEADER.match(line)
        if header:
            current = Block(n, header.group(1) or "")
            blocks.append(current)
            continue
        if current is None:
            if not line.strip() or re.match(r"^#\s", line):
                continue
            current = Block(n)
            blocks.append(current)
        current.body.append(line)
    for b in blocks:
        while b.body and not b.body[-1].strip():
            b.body.pop()
        while b.body and not b.body[0].strip():
            b.body.pop(0)
        if b.meta is None and b.body and _TAGS.match(b.body[-1]):
            b.tags = b.body.pop().split()
            while b.body and not b.body[-1].strip():
                b.body.pop()
    return [b for b in blocks if b.text()]


def parse_daily_note(text: str) -> list[Block]:
    """Bullets (with their indented continuation lines) and paragraphs; headings are
    section titles, not entries."""
    blocks: list[Block] = []
    current: Block | None = None
    bullet = False
    in_comment = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        meta = _meta(line)
        if meta is not None:
            if current is not None:
                current.meta = meta
            current = None
            continue
        if in_comment or line.lstrip().startswith("<!--"):
            in_comment = "-->" not in line
            continue
        if not line.strip():
            if current is not None and bullet and raw.startswith("  "):
                current.body.append("")  # a blank line inside one bullet
            else:
                current = None
            continue
        if re.match(r"^#{1,6}\s", line):
            current = None
            continue
        m = _BULLET.match(line)
        if m:
            current, bullet = Block(n, body=[m.group(2)]), True
            blocks.append(current)
        elif current is not None and (not bullet or raw.startswith((" ", "\t"))):
            current.body.append(line[2:] if bullet and line.startswith("  ") else line.strip())
        else:
            current, bullet = Block(n, body=[line.strip()]), False
            blocks.append(current)
    return [b for b in blocks if b.text()]


# --- writing ---------------------------------------------------------------------------


def _escape(text: str) -> str:
    """A line starting with `#` would read as a header or tags: escape it."""
    return "\n".join("\\" + ln if ln.startswith(("#", "\\#")) else ln for ln in text.split("\n"))


def _unescape(text: str) -> str:
    return "\n".join(ln[1:] if ln.startswith("\\#") else ln for ln in text.split("\n"))


def meta_comment(meta: dict[str, Any]) -> str:
    body = json.dumps(meta, ensure_ascii=False, sort_keys=True).replace("--", "-\\u002d")
    return f"<!-- confidante: {body} -->"


def render_memory_md(title: str, entries: list[tuple[str, str, dict[str, Any]]]) -> str:
    """`# title`, then one `## header` block per (header, text, meta)."""
    out = [f"# {title}", ""]
    for header, text, meta in entries:
        out += [f"## {header}", _escape(text), meta_comment(meta), ""]
    return "\n".join(out)


def render_daily_note(day: str, entries: list[tuple[str, dict[str, Any]]]) -> str:
    out = [f"# {day}", ""]
    for text, meta in entries:
        lines = _escape(text).split("\n")
        out.append(f"- {lines[0]}")
        out += [f"  {ln}" if ln else "  " for ln in lines[1:]]
        out.append("  " + meta_comment(meta))
    out.append("")
    return "\n".join(out)
