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
    """One entry of a Markdown memory file, or (`problem` set) a place where one was lost."""

    line: int  # 1-based line where it starts
    header: str = ""
    body: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    meta: dict[str, Any] | None = None
    problem: str | None = None  # e.g. "unclosed_comment": reported, never guessed at
    # while parsing: body lines that sat in an HTML comment, and where the metadata came
    hidden: set[int] = field(default_factory=set, repr=False)
    meta_at: int = 0

    def text(self) -> str:
        """The fact: exactly the exported text when the block carries confidante's comment;
        otherwise `header: content`, with the tags kept at the end (they are what the old
        agent searched by)."""
        if self.problem is not None:
            return ""
        body = "\n".join(self.body).strip()
        if self.meta is not None:
            return _unescape(body or self.header)
        parts = [p for p in (self.header.strip(), body) if p]
        text = ": ".join(parts) if len(parts) == 2 and "\n" not in body else "\n".join(parts)
        if self.tags:
            text = f"{text} {' '.join(self.tags)}" if text else " ".join(self.tags)
        return text.strip()

    def settle(self) -> None:
        """Drop the commented-out lines, except those before confidante's own metadata:
        confidante never writes a comment inside an entry, so there they are the entry's
        text (an export made before such lines were escaped)."""
        self.body = [
            ln
            for i, ln in enumerate(self.body)
            if i not in self.hidden or (self.meta is not None and i < self.meta_at)
        ]
        self.hidden = set()


def _meta(line: str) -> dict[str, Any] | None:
    m = _META.match(line)
    if not m:
        return None
    try:
        value = json.loads(m.group(1))
    except (json.JSONDecodeError, RecursionError):  # nested past the parser's depth
        return None
    return value if isinstance(value, dict) else None


@dataclass
class _Comment:
    """An open HTML comment: where it started, and whether it swallowed an entry's start."""

    line: int
    swallowed_entry: bool = False


class _Parse:
    """What both file kinds share: entries, confidante's metadata line after each entry, and
    HTML comments. Metadata always closes a comment left open (an unescaped `<!--` in an
    entry's text); if that comment swallowed the start of another entry, or the metadata
    has no entry of its own, the place is reported instead of attributed to a neighbour."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.current: Block | None = None
        self.comment: _Comment | None = None

    def metadata(self, n: int, meta: dict[str, Any]) -> None:
        b, c = self.current, self.comment
        if c is not None and c.swallowed_entry:
            self.blocks.append(Block(c.line, problem="unclosed_comment"))
        elif b is None or b.meta is not None:
            self.blocks.append(Block(c.line if c else n, problem="stray_metadata"))
        else:
            b.meta, b.meta_at = meta, len(b.body)
        self.comment = None

    def commented(self, n: int, line: str, starts_entry: bool, kept: str) -> bool:
        """True when `line` is inside (or opens) an HTML comment, and was consumed."""
        if self.comment is None and not line.lstrip().startswith("<!--"):
            return False
        if self.comment is None:
            self.comment = _Comment(n)
        elif starts_entry:
            self.comment.swallowed_entry = True
        if self.current is not None:
            self.current.hidden.add(len(self.current.body))
            self.current.body.append(kept)
        if "-->" in line:
            self.comment = None
        return True

    def finish(self) -> list[Block]:
        if self.comment is not None:
            self.blocks.append(Block(self.comment.line, problem="unclosed_comment"))
        for b in self.blocks:
            b.settle()
        self.blocks.sort(key=lambda b: b.line)
        return self.blocks


def parse_memory_md(text: str) -> list[Block]:
    """`## header` blocks; text before the first one (other than a `# title`) is a block of
    its own. A final line of only `#tags` is the block's tags."""
    p = _Parse()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        meta = _meta(line)
        if meta is not None:
            p.metadata(n, meta)
            continue
        header = _HEADER.match(line)
        if p.commented(n, line, header is not None, line):  # other comments are not facts
            continue
        if header:
            p.current = Block(n, header.group(1) or "")
            p.blocks.append(p.current)
            continue
        if p.current is None:
            if not line.strip() or re.match(r"^#\s", line):
                continue
            p.current = Block(n)
            p.blocks.append(p.current)
        p.current.body.append(line)
    blocks = p.finish()
    for b in blocks:
        while b.body and not b.body[-1].strip():
            b.body.pop()
        while b.body and not b.body[0].strip():
            b.body.pop(0)
        if b.meta is None and b.body and _TAGS.match(b.body[-1]):
            b.tags = b.body.pop().split()
            while b.body and not b.body[-1].strip():
                b.body.pop()
    return [b for b in blocks if b.problem or b.text()]


def parse_daily_note(text: str) -> list[Block]:
    """Bullets (with their indented continuation lines) and paragraphs; headings are
    section titles, not entries."""
    p = _Parse()
    bullet = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        meta = _meta(line)
        if meta is not None:
            p.metadata(n, meta)
            p.current = None
            continue
        starts = bool(_BULLET.match(line) or re.match(r"^#{1,6}\s", line))
        kept = line[2:] if bullet and line.startswith("  ") else line.strip()
        if p.commented(n, line, starts, kept):
            continue
        current = p.current
        if not line.strip():
            if current is not None and bullet and raw.startswith("  "):
                current.body.append("")  # a blank line inside one bullet
            else:
                p.current = None
            continue
        if re.match(r"^#{1,6}\s", line):
            p.current = None
            continue
        m = _BULLET.match(line)
        if m:
            p.current, bullet = Block(n, body=[m.group(2)]), True
            p.blocks.append(p.current)
        elif current is not None and (not bullet or raw.startswith((" ", "\t"))):
            current.body.append(kept)
        else:
            p.current, bullet = Block(n, body=[line.strip()]), False
            p.blocks.append(p.current)
    return [b for b in p.finish() if b.problem or b.text()]


# --- writing ---------------------------------------------------------------------------


def _needs_escape(line: str) -> bool:
    """A line that would read as markup: a header or tags (`#`), an HTML comment (`<!--`,
    which would hide what follows, or forge confidante's metadata), or such a line already
    escaped (so the escape itself round-trips)."""
    bare = line.lstrip("\\")
    return bare.startswith("#") or bare.lstrip().startswith("<!--")


def _escape(text: str) -> str:
    """A backslash before every line that would read as markup."""
    return "\n".join("\\" + ln if _needs_escape(ln) else ln for ln in text.split("\n"))


def _unescape(text: str) -> str:
    return "\n".join(
        ln[1:] if ln.startswith("\\") and _needs_escape(ln[1:]) else ln for ln in text.split("\n")
    )


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
