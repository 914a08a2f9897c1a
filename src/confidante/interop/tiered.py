"""The tiered folder (`memory/`) of an agent skill's memory manager.

`memory/tier1-public/*.json` holds public stats (`skill_stats`, `patterns_observed`; the
older `common_flows` too); they become T1 stats, through the same identifier checks as
`record_skill_use`. `memory/tier2-internal/*.md` and `memory/archive/YYYY-MM/*.md` are
notes with YAML front matter (`tier, source_skill, key_hint, created, expires`) and
bodies in the old XOR scheme: decrypted here, then written as the owner's memory (they are
the owner's agent's notes), encrypted properly, keeping `source_skill`, `created` and
`expires`.

No symlink inside the named folder is followed (`memory/`, the tier folders, `archive/*/`,
the files), every read is bounded (`files`), and front matter is read without YAML aliases
(a few hundred bytes of nested aliases expand to gigabytes): one with an alias, nested too
deep, or longer than `ReadLimits.front_matter_bytes` is skipped as `front_matter_refused`."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidInput
from ..model import Context
from . import legacy_xor
from .entries import Entry, Item, PatternSeen, SkillUses, Skip, parse_time
from .files import Budget, ReadLimits, Tree

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)
_B64_LINE = re.compile(r"^[A-Za-z0-9+/=]{4,}$")


def memory_root(path: Path, budget: Budget | None = None) -> Tree:
    """PATH is the folder holding `memory/` (or `memory/` itself)."""
    tree = Tree(path, budget, prefix=path.name)
    kind = tree.kind("memory")
    if kind == "folder":
        return tree.child("memory", prefix="memory")
    if kind == "symlink":
        raise InvalidInput("memory/ here is a symlink, which an import never follows")
    if any(tree.kind(d) in ("folder", "symlink") for d in ("tier1-public", "tier2-internal")):
        return tree
    raise InvalidInput("no memory/ folder with tier1-public or tier2-internal here")


def read_tiered(path: Path, owner_ctx: Context, budget: Budget | None = None) -> list[Item]:
    tree = memory_root(path, budget)
    items: list[Item] = []

    def names(*parts: str, want: str = "file", suffix: str = "") -> list[str]:
        found, links = tree.contents(*parts, want=want, match=lambda n: n.endswith(suffix))
        items.extend(links)
        return found

    for name in names("tier1-public", suffix=".json"):
        text = tree.read("tier1-public", name)
        if isinstance(text, str):
            items += _public_stats(text, tree.position("tier1-public", name))
        elif text is not None:
            items.append(text)
    notes = [("tier2-internal", n) for n in names("tier2-internal", suffix=".md")]
    for month in names("archive", want="folder"):
        notes += [("archive", month, n) for n in names("archive", month, suffix=".md")]
    for parts in notes:
        text = tree.read(*parts)
        if isinstance(text, str):
            month = parts[1] if parts[0] == "archive" else None
            items += _note(text, tree.position(*parts), owner_ctx, month, tree.limits)
        elif text is not None:
            items.append(text)
    return items + tree.limit_skips


# --- T1 ------------------------------------------------------------------------------------


def _public_stats(text: str, where: str) -> list[Item]:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return [Skip(where, "invalid")]
    if not isinstance(data, dict):
        return [Skip(where, "invalid")]
    out: list[Item] = []
    stats = data.get("skill_stats") or {}
    if isinstance(stats, dict):
        for i, (skill, s) in enumerate(stats.items()):
            pos = f"{where}: skill_stats[{i}]"
            calls = _count(s.get("calls") if isinstance(s, dict) else None)
            rate = _number(s.get("success_rate", 1.0) if isinstance(s, dict) else None)
            if calls is None or rate is None:
                out.append(Skip(pos, "invalid"))
                continue
            rate = min(1.0, max(0.0, rate))
            last = parse_time(s.get("last_used"))
            out.append(SkillUses(pos, str(skill), calls, round(calls * rate), last))
    for key, skills_key in (("patterns_observed", "skills_used"), ("common_flows", "skills")):
        patterns = data.get(key) or []
        if not isinstance(patterns, list):
            continue
        for i, p in enumerate(patterns):
            pos = f"{where}: {key}[{i}]"
            skills = p.get(skills_key) if isinstance(p, dict) else None
            count = _count(p.get("count", 1)) if isinstance(p, dict) else None
            trigger = p.get("trigger") if isinstance(p, dict) else None
            if not isinstance(trigger, str) or not isinstance(skills, list) or not count:
                out.append(Skip(pos, "invalid"))
                continue
            out.append(
                PatternSeen(
                    pos,
                    trigger,
                    tuple(str(s) for s in skills),
                    count,
                    parse_time(p.get("last_seen")),
                )
            )
    return out


def _number(v: Any) -> float | None:
    """A finite number (JSON as Python reads it also has NaN and Infinity), else None."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v) if math.isfinite(v) else None


def _count(v: Any) -> int | None:
    if isinstance(v, int) and not isinstance(v, bool):
        return v if v >= 0 else None
    n = _number(v)
    return None if n is None or n < 0 else int(n)


# --- T2 ------------------------------------------------------------------------------------


class _NoAliases(yaml.SafeLoader):
    """YAML's safe subset, less aliases: `*a` repeats what `&a` named, so a few hundred
    bytes of nested aliases stand for billions of nodes ("billion laughs"). The old notes'
    front matter never used one."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise _Refused
        return super().compose_node(parent, index)


class _Refused(yaml.YAMLError):
    pass


def front_matter(raw: str, limit: int) -> dict[str, Any] | None:
    """A note's front matter as a mapping ({} when it is not one); None when it is
    refused: an alias, nested past the parser's depth, or longer than `limit` bytes."""
    if len(raw.encode()) > limit:
        return None
    try:
        loaded = yaml.load(raw, Loader=_NoAliases)  # the safe loader, less aliases
    except (_Refused, RecursionError):
        return None
    return loaded if isinstance(loaded, dict) else {}


def _note(
    text: str, where: str, owner_ctx: Context, month_folder: str | None, limits: ReadLimits
) -> list[Item]:
    m = _FRONT.match(text)
    front: dict[str, Any] = {}
    offset = 0
    if m:
        try:
            loaded = front_matter(m.group(1), limits.front_matter_bytes)
        except yaml.YAMLError:
            return [Skip(where, "invalid")]
        if loaded is None:
            return [Skip(where, "front_matter_refused")]
        front = loaded
        offset = text[: m.end()].count("\n")
        text = text[m.end() :]
    blocks = _encrypted_blocks(text, offset)
    if not blocks:
        return [Skip(where, "no_entry")]
    created = parse_time(front.get("created"))
    expires = None if front.get("persist") is True else parse_time(front.get("expires"))
    skill = front.get("source_skill")
    skill = str(skill).strip() if skill else None
    skill = skill or _skill_of_file(where)
    skills, months = [skill] if skill else [], []
    hint = front.get("key_hint")
    if isinstance(hint, str) and (split := legacy_xor.split_key_hint(hint)):
        skills.append(split[0])
        months.append(split[1])
        skill = skill or split[0]
    if created is not None:
        months.append(created.strftime("%Y-%m"))
    if month_folder is not None and re.fullmatch(r"\d{4}-\d{2}", month_folder):
        months.append(month_folder)
    keys = legacy_xor.candidate_keys(skills, months)
    out: list[Item] = []
    for line, encoded in blocks:
        pos = f"{where}:{line}"
        plain = legacy_xor.recover(encoded, keys) if keys else None
        if plain is None:
            out.append(Skip(pos, "undecryptable"))
            continue
        out.append(
            Entry(
                plain.strip(),
                owner_ctx,
                "owner",
                pos,
                created_at=created,
                expires_at=expires,
                source_skill=skill,
            )
        )
    return out


_SKILL_PREFIX = re.compile(r"^([a-z0-9]+(?:[-.][a-z0-9]+)*)_[^/]+\.md$")


def _skill_of_file(where: str) -> str | None:
    """The skill a note's file is named for (`skill-a_preferences.md`: the skill's own
    naming convention), for a note whose front matter names none."""
    m = _SKILL_PREFIX.match(where.rsplit("/", 1)[-1].lower())
    return m.group(1) if m else None


def _encrypted_blocks(body: str, offset: int) -> list[tuple[int, str]]:
    """Each `> base64` quote (lines joined) is one entry; without quotes, bare Base64 lines.
    Lines are numbered within the whole file (`offset` lines of front matter before)."""
    quoted: list[tuple[int, str]] = []
    current: list[str] | None = None
    for n, raw in enumerate(body.splitlines(), 1 + offset):
        line = raw.strip()
        if line.startswith(">"):
            chunk = line.lstrip(">").strip()
            if current is None:
                current = []
                quoted.append((n, ""))
            current.append(chunk)
            quoted[-1] = (quoted[-1][0], "".join(current))
        else:
            current = None
    if quoted:
        return quoted
    return [
        (n, line.strip())
        for n, line in enumerate(body.splitlines(), 1 + offset)
        if _B64_LINE.match(line.strip()) and len(line.strip()) >= 8
    ]
