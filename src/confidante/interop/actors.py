"""Who the people in an old layout are: silo directories are named by a hash of the
sender's id, and an export names people by their raw ids."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from ..errors import InvalidActor, InvalidInput
from ..model import normalize_actor, parse_actor
from ..policy import SILO_PLATFORM
from .files import DEFAULT_LIMITS, ReadLimits, read_named_file

UNMAPPED_PLATFORM = SILO_PLATFORM
"""A silo no known sender matches becomes the actor `silo:<hash>`, its own subject, until
a later mapping merges it into the real person (`merge_silo`)."""


def silo_hash(sender: str) -> str:
    """The silo directory name: the first 16 hex chars of SHA-256 of the sender id."""
    return hashlib.sha256(sender.encode("utf-8")).hexdigest()[:16]


def read_text(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> str:
    """A file the owner named, as text: at most `limits.file_bytes` (else `too_large`)."""
    data = read_named_file(path, limits)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path.name} is not UTF-8 text") from None


class SenderMap:
    """Actors (`platform:id`), findable by the hash of their raw id or of the whole actor
    string. A raw id shared by two platforms maps by the whole string only."""

    def __init__(self, actors: Iterable[str] = ()) -> None:
        self.actors: list[str] = []
        self._by_hash: dict[str, str | None] = {}
        for a in actors:
            self.add(a)

    def add(self, actor: str) -> None:
        actor = normalize_actor(actor)
        if actor in self.actors:
            return
        self.actors.append(actor)
        _, raw = parse_actor(actor)
        self._by_hash[silo_hash(actor)] = actor
        h = silo_hash(raw)
        # two platforms, one raw id: that hash names nobody for sure
        self._by_hash[h] = actor if self._by_hash.get(h, actor) == actor else None

    def __len__(self) -> int:
        return len(self.actors)

    def for_hash(self, name: str) -> str | None:
        return self._by_hash.get(name.lower()[:16])

    def resolve(self, sender: str) -> str | None:
        """An actor for a sender as a layout wrote it: `platform:id`, a raw id, or a hash."""
        sender = sender.strip()
        if sender in self.actors:
            return sender
        return self.for_hash(silo_hash(sender)) or self.for_hash(sender)

    @classmethod
    def from_file(cls, path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> SenderMap:
        """One actor (`platform:id`) a line; blank lines and `#` comments are ignored."""
        return cls.from_text(read_text(path, limits))

    @classmethod
    def from_text(cls, text: str) -> SenderMap:
        out = cls()
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                out.add(line)
            except InvalidActor:
                raise InvalidActor(f"line {n} of the sender list is not platform:id") from None
        return out


def read_user_map(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, str]:
    """Mem0 user ids to actors: a JSON object, or one `user_id actor` pair a line
    (separated by whitespace, `=`, `,` or a tab)."""
    text = read_text(path, limits)
    pairs: dict[str, str] = {}
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise InvalidInput("the user map is not valid JSON") from None
        if not isinstance(data, dict):
            raise InvalidInput("the user map is not a JSON object")
        items = list(data.items())
    else:
        items = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            for sep in ("=", "\t", ",", None):
                parts = line.split(sep, 1)
                if len(parts) == 2 and parts[0].strip() and parts[1].strip():
                    break
            else:
                raise InvalidInput(f"line {n} of the user map is not `user_id actor`")
            items.append((parts[0].strip(), parts[1].strip()))
    for n, (uid, actor) in enumerate(items, 1):
        if not isinstance(uid, str) or not isinstance(actor, str):
            raise InvalidInput(f"entry {n} of the user map is not `user_id: actor`")
        try:
            pairs[uid] = normalize_actor(actor)
        except InvalidActor:
            raise InvalidActor(f"entry {n} of the user map is not platform:id") from None
    return pairs
