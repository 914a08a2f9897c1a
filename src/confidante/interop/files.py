"""Reading what an import names: never through a link, never without a bound.

The folder (or file) the owner names may itself be a symlink: that is their choice, and it
is followed once, when the import starts. Everything found inside a folder is opened
relative to its parent folder's descriptor with `O_NOFOLLOW`, one component at a time, so
no symlink inside (a file or a folder) is ever followed, not even one swapped in after the
folder was listed: it is reported as `symlink`. FIFOs, sockets and devices are opened
non-blocking and never read (`not_a_file`), so none can stall an import.

Every read is bounded: a file larger than `ReadLimits.file_bytes` is skipped as
`too_large` without being read, and one import reads at most `import_bytes` in all and
lists at most `entries` names in the folders it walks (`import_limit` past either)."""

from __future__ import annotations

import copy
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import InvalidInput
from .entries import Skip

MIB = 1 << 20


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much one import may read. The defaults hold years of an agent's notes, and an
    export of tens of thousands of facts in one file."""

    file_bytes: int = 16 * MIB  # one file
    import_bytes: int = 256 * MIB  # every file of one import together
    entries: int = 200_000  # names listed in the folders one import walks
    front_matter_bytes: int = 64 * 1024  # a note's YAML front matter

    def __post_init__(self) -> None:
        for name in ("file_bytes", "import_bytes", "entries", "front_matter_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"read limit {name} must be a positive whole number")


DEFAULT_LIMITS = ReadLimits()


class Budget:
    """What one import has spent of its limits so far."""

    def __init__(self, limits: ReadLimits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self.bytes = 0
        self.entries = 0

    def look(self) -> bool:
        """Count one more name listed; False once the import's share is spent."""
        if self.entries >= self.limits.entries:
            return False
        self.entries += 1
        return True

    def fits(self, size: int) -> bool:
        return self.bytes + size <= self.limits.import_bytes


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class _Unreadable(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Node:
    """One name in a folder, as the folder lists it (links are not followed)."""

    name: str
    kind: str  # "file", "folder", "symlink" or "other"


def _kind_of_mode(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _check_name(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise ValueError("a tree path is a list of single names")


class Tree:
    """A folder the owner named, read without following any link inside it. Positions are
    paths relative to the folder (with `prefix` before them), never file contents."""

    def __init__(self, root: Path, budget: Budget | None = None, *, prefix: str = "") -> None:
        self.root = os.path.realpath(os.fspath(root))  # the named path: followed once, here
        self.budget = budget or Budget()
        self.prefix = prefix
        self._base: tuple[str, ...] = ()  # folders inside `root` this tree stands for
        self.limit_skips: list[Skip] = []  # where the import's limits cut a listing short

    @property
    def limits(self) -> ReadLimits:
        return self.budget.limits

    def child(self, name: str, prefix: str | None = None) -> Tree:
        """The folder `name` inside this one, as a tree of its own (same budget)."""
        _check_name(name)
        sub = copy.copy(self)  # the same root, budget and list of limit skips
        sub._base = (*self._base, name)
        sub.prefix = self.position(name) if prefix is None else prefix
        return sub

    def position(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def skip(self, reason: str, *parts: str) -> Skip:
        return Skip(self.position(*parts), reason)

    # --- walking ---------------------------------------------------------------------

    def _open_folder(self, parts: tuple[str, ...]) -> int:
        """A descriptor of the folder at `parts`, every component opened without following
        a link (`_Unreadable("symlink")` if one is)."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for name in (*self._base, *parts):
                _check_name(name)
                try:
                    nxt = os.open(name, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
                except OSError:
                    raise _Unreadable(self._why(fd, name, "folder")) from None
                os.close(fd)
                fd = nxt
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def _why(dir_fd: int, name: str, expected: str) -> str:
        """Why `name` could not be opened as the `expected` kind: a link, missing, not that
        kind, or unreadable (permissions)."""
        try:
            kind = _kind_of_mode(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            return "missing"
        except OSError:
            return "unreadable"
        if kind == "symlink":
            return "symlink"
        if kind == expected:
            return "unreadable"
        if expected == "folder" or kind == "folder":
            return "missing"  # not a folder where one is looked for: nothing there to read
        return "not_a_file"

    def kind(self, *parts: str) -> str:
        """`file`, `folder`, `symlink`, `other` or `missing`, without following a link (a
        link on the way there counts as `symlink` too)."""
        *folders, name = parts
        try:
            fd = self._open_folder(tuple(folders))
        except _Unreadable as e:
            return "symlink" if e.reason == "symlink" else "missing"
        except OSError:
            return "missing"
        try:
            _check_name(name)
            return _kind_of_mode(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
        except OSError:
            return "missing"
        finally:
            os.close(fd)

    def list(self, *parts: str) -> list[Node]:
        """The names in the folder at `parts`, sorted; empty when it is missing, not a
        folder, or reached through a link. Links are listed as `symlink`, not followed."""
        try:
            fd = self._open_folder(parts)
        except (_Unreadable, OSError):
            return []
        nodes: list[Node] = []
        try:
            with os.scandir(fd) as it:
                for entry in it:
                    if not self.budget.look():
                        self.limit_skips.append(self.skip("import_limit", *parts))
                        break
                    if entry.is_symlink():
                        kind = "symlink"
                    elif entry.is_dir(follow_symlinks=False):
                        kind = "folder"
                    elif entry.is_file(follow_symlinks=False):
                        kind = "file"
                    else:
                        kind = "other"
                    nodes.append(Node(entry.name, kind))
        except OSError:
            pass
        finally:
            os.close(fd)
        return sorted(nodes, key=lambda n: n.name)

    def contents(
        self, *parts: str, want: str, match: Callable[[str], object] = bool
    ) -> tuple[list[str], list[Skip]]:
        """The names of the `want` kind (`file` or `folder`) in the folder at `parts` that
        `match`, and a `symlink` skip for each link among those names (or for the folder
        itself when it is one): reported, never followed. `file` includes FIFOs and the
        like, which `read` then reports."""
        if parts and self.kind(*parts) == "symlink":
            return [], [self.skip("symlink", *parts)]
        kinds = ("file", "other") if want == "file" else ("folder",)
        names: list[str] = []
        skips: list[Skip] = []
        for node in self.list(*parts):
            if not match(node.name):
                continue
            if node.kind == "symlink":
                skips.append(self.skip("symlink", *parts, node.name))
            elif node.kind in kinds:
                names.append(node.name)
        return names, skips

    def read(self, *parts: str) -> str | Skip | None:
        """The UTF-8 text of the file at `parts`; a `Skip` (symlink, not_a_file, too_large,
        import_limit, not_utf8, unreadable) when it may not or cannot be read; None when
        there is no such file (or it is a folder)."""
        *folders, name = parts
        try:
            data = self._read_bytes(tuple(folders), name)
        except _Unreadable as e:
            if e.reason == "missing":
                return None
            return self.skip(e.reason, *parts)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return self.skip("not_utf8", *parts)

    def _read_bytes(self, folders: tuple[str, ...], name: str) -> bytes:
        _check_name(name)
        try:
            dir_fd = self._open_folder(folders)
        except FileNotFoundError:
            raise _Unreadable("missing") from None
        except OSError:
            raise _Unreadable("unreadable") from None
        try:
            try:
                fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
            except OSError:
                raise _Unreadable(self._why(dir_fd, name, "file")) from None
        finally:
            os.close(dir_fd)
        with os.fdopen(fd, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise _Unreadable("missing")  # a folder where a file is looked for
            if not stat.S_ISREG(mode):
                raise _Unreadable("not_a_file")
            return _bounded(f, self.budget)


def _bounded(f: BinaryIO, budget: Budget) -> bytes:
    """At most the per-file limit, and only while the import's total allows it (a file
    that grows while it is read counts at its read size)."""
    limit = budget.limits.file_bytes
    size = os.fstat(f.fileno()).st_size
    if size > limit:
        raise _Unreadable("too_large")
    if not budget.fits(size):
        raise _Unreadable("import_limit")
    data = f.read(limit + 1)
    if len(data) > limit:
        raise _Unreadable("too_large")
    if not budget.fits(len(data)):
        raise _Unreadable("import_limit")
    budget.bytes += len(data)
    return data


def read_named_file(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> bytes:
    """A file the owner named (a link they name is their choice, and followed): regular
    files only, at most `limits.file_bytes`. InvalidInput otherwise, naming the file only."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path.name}") from None
    except OSError:
        raise InvalidInput(f"cannot read {path.name}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InvalidInput(f"no such file: {path.name}")
        try:
            return _bounded(f, Budget(limits))
        except _Unreadable:
            raise InvalidInput(
                f"too_large: {path.name} is larger than an import reads in one file "
                f"({limits.file_bytes:,} bytes)"
            ) from None


__all__ = ["DEFAULT_LIMITS", "MIB", "Budget", "Node", "ReadLimits", "Tree", "read_named_file"]
