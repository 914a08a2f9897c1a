"""Every process the test suite starts, accounted for.

`subprocess.Popen` is wrapped once per test process (the single process, or each pytest-xdist
worker): every child it starts (`subprocess.run`, asyncio and anyio subprocesses, Playwright's
driver, an MCP stdio server) goes into a process group of its own unless the caller chose one,
and is recorded with the scope it was started in (a test, or a fixture's scope).

- After each test, whatever the test or its function-scoped fixtures started and left running
  is killed, group and all: pass or fail, nothing outlives its test (`reap_test`).
- At the end of the session, whatever the suite started that is still alive (a module or
  session fixture's server never stopped, a child whose parent was killed, a daemon that left
  its group) is killed and reported, and the run fails (`leftovers`).

"Started by the suite" is decided without guessing from names: each run sets
`PYTEST_CONFIDANTE_RUN` to a directory of its own, which every child inherits in its
environment (a test that builds an environment from scratch passes it on: `RUN_VAR`); and a
recorded child is known by its pid *and* its start time, so a recycled pid is never taken for
it. A developer's own `confidante serve`, started outside the run, is never touched.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

RUN_VAR = "PYTEST_CONFIDANTE_RUN"  # not CONFIDANTE_*: tests strip those from environments

_PROC = Path("/proc")


@dataclass(frozen=True)
class Started:
    pid: int
    pgid: int  # its own group, unless the caller chose otherwise
    start: int  # clock ticks since boot: with the pid, this one process and no other
    scope: str  # "function" (the test or a function fixture), "module", "session", ...
    nodeid: str | None


def run_dir() -> Path | None:
    value = os.environ.get(RUN_VAR)
    return Path(value) if value else None


def run_env() -> dict[str, str]:
    """What an environment built from scratch must carry for its processes to be known."""
    value = os.environ.get(RUN_VAR)
    return {RUN_VAR: value} if value else {}


# --- /proc --------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgid, start time) of a live process, or None."""
    try:
        raw = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[2]), int(fields[19])


def _alive(pid: int, start: int | None = None) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X") and (start is None or st[3] == start)


def _marked(pid: int, marker: str) -> bool:
    try:
        env = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{RUN_VAR}={marker}".encode() in env.split(b"\0")


def _cmdline(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()[:200]


def _pids() -> list[int]:
    return [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]


def _ancestors() -> set[int]:
    out, pid = set(), os.getpid()
    while pid > 1:
        out.add(pid)
        st = _stat(pid)
        if st is None:
            break
        pid = st[1]
    return out


# --- recording ----------------------------------------------------------------------------------

_started: list[Started] = []
_scopes: list[str] = []  # fixture scopes being set up, innermost last
_current: list[str | None] = [None]  # the test being run
_original_init = subprocess.Popen.__init__
_installed = False


def _own_group_unless_chosen(args: tuple, kw: dict) -> None:
    # preexec_fn is Popen's 6th positional argument after `args`; nobody passes it that way
    if len(args) >= 6 or kw.get("preexec_fn") is not None:
        return
    if kw.get("start_new_session") or kw.get("process_group") is not None:
        return
    kw["process_group"] = 0


def _recording_init(self: subprocess.Popen, cmd, *args, **kw) -> None:  # type: ignore[no-untyped-def]
    _own_group_unless_chosen(args, kw)
    _original_init(self, cmd, *args, **kw)
    st = _stat(self.pid)
    if st is None:
        return  # gone already (or not on Linux): nothing to account for
    scope = _scopes[-1] if _scopes else "function"
    _started.append(Started(self.pid, st[2], st[3], scope, _current[0]))
    folder = run_dir()
    if folder is not None and folder.is_dir():
        with (folder / f"started-{os.getpid()}").open("a") as f:
            f.write(f"{self.pid} {st[2]} {st[3]}\n")


def install() -> None:
    """Wrap `subprocess.Popen` in this process (once)."""
    global _installed
    if not _installed:
        subprocess.Popen.__init__ = _recording_init  # type: ignore[method-assign]
        _installed = True


@contextlib.contextmanager
def fixture_scope(scope: str):  # type: ignore[no-untyped-def]
    _scopes.append(scope)
    try:
        yield
    finally:
        _scopes.pop()


@contextlib.contextmanager
def running(nodeid: str):  # type: ignore[no-untyped-def]
    _current[0] = nodeid
    forked = {p.pid for p in multiprocessing.active_children()}
    try:
        yield
    finally:
        _current[0] = None
        for p in multiprocessing.active_children():  # forked children of this test
            if p.pid not in forked:
                p.kill()
                p.join(30)


# --- killing ------------------------------------------------------------------------------------


def _snapshot() -> dict[int, tuple[str, int, int, int]]:
    """Every process, zombies included: pid -> (state, ppid, pgid, start time). A zombie
    holds its pid (and the group it leads) until its parent reaps it."""
    out = {}
    for pid in _pids():
        st = _stat(pid)
        if st is not None:
            out[pid] = st
    return out


def _live(st: tuple[str, int, int, int]) -> bool:
    return st[0] not in ("Z", "X")


def _members(
    s: Started, procs: dict[int, tuple[str, int, int, int]], marker: str | None
) -> list[int]:
    """The live processes of `s`'s group that are certainly the suite's: all of them while
    the leader is the very process recorded; otherwise those carrying the run's marker."""
    leader = s.pid in procs and procs[s.pid][3] == s.start
    if s.pgid != s.pid:  # the caller kept it in another group: the process alone
        return [s.pid] if leader and _live(procs[s.pid]) else []
    return [
        pid
        for pid, st in procs.items()
        if st[2] == s.pgid
        and _live(st)
        and (leader or (marker is not None and _marked(pid, marker)))
    ]


def _kill(pids: list[int], groups: list[int] = ()) -> None:  # type: ignore[assignment]
    for pgid in groups:  # first the groups, so nothing in them forks past the list
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)


def _own_groups(records: list[Started], procs: dict[int, tuple[str, int, int, int]]) -> list[int]:
    """The groups led by a recorded process that is still that process."""
    return [
        s.pgid for s in records if s.pgid == s.pid and s.pid in procs and procs[s.pid][3] == s.start
    ]


def reap_test(nodeid: str) -> list[str]:
    """Kill what this test (or its function-scoped fixtures) started and left running."""
    mine = [s for s in _started if s.nodeid == nodeid and s.scope == "function"]
    if not mine:
        return []
    marker = os.environ.get(RUN_VAR)
    procs = _snapshot()
    pids = sorted({pid for s in mine for pid in _members(s, procs, marker)})
    described = [_cmdline(p) for p in pids]
    _kill(pids, _own_groups(mine, procs))
    for s in mine:
        _started.remove(s)
    return described


def _recorded() -> list[Started]:
    """This process's records, and every record the run's test processes wrote down."""
    out = {(s.pid, s.start): s for s in _started}
    folder = run_dir()
    if folder is not None and folder.is_dir():
        for f in folder.glob("started-*"):
            for line in f.read_text().splitlines():
                pid, pgid, start = map(int, line.split())
                out.setdefault((pid, start), Started(pid, pgid, start, "?", None))
    return list(out.values())


def leftovers(*, scan_marked: bool, exclude: set[int] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """What the suite started that is still alive: killed, and described for the report.

    Without `scan_marked`, only the groups this process started (a worker: the others are
    still running theirs). With it, once every test process has finished: the run's records
    too, and any process carrying the run's marker. The test processes themselves
    (`exclude`, this process and its ancestors) are spared."""
    marker = os.environ.get(RUN_VAR)
    spared = _ancestors() | set(exclude)
    procs = {pid: st for pid, st in _snapshot().items() if pid not in spared}
    records = _recorded() if scan_marked else list(_started)
    found = {pid for s in records for pid in _members(s, procs, marker)}
    if scan_marked and marker is not None:
        found |= {pid for pid, st in procs.items() if _live(st) and _marked(pid, marker)}
    described = [f"pid {pid}: {_cmdline(pid)}" for pid in sorted(found)]
    _kill(sorted(found), _own_groups(records, procs))
    _started.clear()
    return described
