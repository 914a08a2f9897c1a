"""How the suite runs, wired into pytest by `tests/conftest.py`.

- **The system tier.** The long system tests (`SYSTEM` below: many processes on one file,
  SIGKILL at chosen points, two servers under load, erasure checked on the PostgreSQL
  cluster's own files, the 5,000-fact browser run) carry the `system` marker. A run without
  `-m` leaves them out and says so in one line; `python -m pytest -m system` runs them, and
  `.ci/run` runs both.
- **Workers.** A whole-suite run spreads over pytest-xdist workers (`-n auto` in
  pyproject.toml: one per core, `WORKERS_PER_CORE`); a run that names test files or ids runs
  in one process, as before. `PYTEST_XDIST_AUTO_NUM_WORKERS` or `-n N` overrides.
- **Threads.** One BLAS thread a process (`OPENBLAS_NUM_THREADS=1`): the workers already
  use the cores, and idle OpenBLAS threads spin.
- **Byte code.** This machine sets PYTHONDONTWRITEBYTECODE=1, so every `confidante` process a
  test started compiled the package from source again. The run compiles it once and lets
  its processes write and read byte code as usual (in `__pycache__`, git-ignored).
- **Processes.** Every process a test starts is in its own group and killed after the test,
  pass or fail; at the end, anything the suite started that is still alive fails the run
  (`suite_processes`).
- **Hypothesis, quick and full.** Each property test runs twice: `[quick]` in the default
  run (at most `QUICK_EXAMPLES` examples) and `[full]`, at the settings its file gives, in
  the system tier. Tests that drive Hypothesis from their body (a state machine) are named
  in `HYPOTHESIS`; `@given` tests are found by themselves.
- **No timing thresholds.** Hypothesis runs without deadlines or its too-slow health check:
  a busy machine is not a failing test.
"""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.internal.conjecture.engine import ConjectureRunner

import suite_processes

# Node ids (or their prefixes: a file, a test, a test with some of its parameters), relative
# to the repository root. One list: tests are marked here, not in their files.
SYSTEM = (
    # a real server, MCP over HTTP and stdio, and every CLI command on one SQLite file; other
    # programs holding the WAL or the write lock beside a running server
    "tests/test_multiprocess.py",
    # SIGKILL in the middle of bursts, rotations, cleanups and erasures (SQLite, PostgreSQL)
    "tests/test_crashes.py",
    # two servers on one PostgreSQL under load, with key rotations
    "tests/test_postgres_servers.py",
    # erasure racing rotations in two processes, checked on the cluster's own files and WAL
    "tests/test_erasure_races.py",
    # the dashboard with 5,000 facts in Chromium
    "tests/test_dashboard_scale.py",
    # the README's first hour from a fresh install: a new venv, the package and its
    # dependencies installed by pip, then serve, curl, MCP, the dashboard and selftest
    "tests/test_newcomer.py::test_the_readme_first_hour",
)
# Tests that run Hypothesis inside their body (run_state_machine_as_test), not as @given.
HYPOTHESIS = (
    "tests/test_policy_model.py::test_policy_matches_the_reference_model",
    "tests/test_policy_model.py::test_policy_matches_the_reference_model_on_postgres",
)
QUICK_EXAMPLES = 10

# The longest files of a default run, started first (longest first) so that no worker is left
# with one of them at the end while the others sit idle. Measured with --durations.
LONG_FIRST = (
    "tests/test_reader_isolation.py",
    "tests/test_cli_setup.py",
    "tests/test_skill_compat.py",
    "tests/test_cli.py",
    "tests/test_agent_host.py",
    "tests/test_no_echo.py",
    "tests/test_interop.py",
)

SYSTEM_NOTE = (
    "system tests (processes, SIGKILL, load, scale, a fresh install) not run here: "
    "python -m pytest -m system"
)

WORKERS_PER_CORE = 1

settings.register_profile(
    "confidante",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("confidante")

# The examples a `[quick]` test may run (None: as many as its settings say). Every Hypothesis
# run goes through ConjectureRunner, whichever way it was started; capped there.
_quick_cap: list[int | None] = [None]
_runner_init = ConjectureRunner.__init__


def _capped_runner_init(self, *args, settings=None, **kw):  # type: ignore[no-untyped-def]
    cap = _quick_cap[0]
    if cap is not None and settings is not None and settings.max_examples > cap:
        settings = type(settings)(settings, max_examples=cap)
    _runner_init(self, *args, settings=settings, **kw)


ConjectureRunner.__init__ = _capped_runner_init  # type: ignore[method-assign]

_DEFAULT_TIER = pytest.StashKey[bool]()
_LEFT = pytest.StashKey[list[str]]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_controller(config: pytest.Config) -> bool:
    """The xdist process that hands tests to workers and runs none itself."""
    return not _is_worker(config) and config.getoption("dist", "no") != "no"


def _in(nodeid: str, prefixes: tuple[str, ...]) -> bool:
    return any(nodeid == p or nodeid.startswith((f"{p}::", f"{p}[")) for p in prefixes)


def _names_tests(config: pytest.Config) -> bool:
    """The command line names test files or ids (not only folders)."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False
    root = config.invocation_params.dir
    return any("::" in a or not (root / a).is_dir() for a in config.args)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    override = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if override:
        return int(override)
    if _names_tests(config):
        return 0  # a few files: one process starts sooner than several
    return max(1, len(os.sched_getaffinity(0)) * WORKERS_PER_CORE)


def _compile_package() -> None:
    import confidante

    compileall.compile_dir(Path(confidante.__file__).parent, quiet=1, workers=1)


def pytest_configure(config: pytest.Config) -> None:
    if not config.option.markexpr:
        config.option.markexpr = "not system"
        config.stash[_DEFAULT_TIER] = True
    if not _is_worker(config):
        # The run's own folder: its processes are known by it (in their environment) and
        # the test processes write down what they started there.
        os.environ[suite_processes.RUN_VAR] = tempfile.mkdtemp(prefix="confidante-tests-")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        sys.dont_write_bytecode = False
        _compile_package()
        # One BLAS thread in each worker and each process a test starts: they share the
        # cores already, and OpenBLAS's idle threads spin (a quarter of a recall test's CPU).
        # The workers and the processes inherit it; this process imported NumPy already.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    elif (folder := suite_processes.run_dir()) is not None:
        (folder / f"worker-{os.getpid()}").touch()
    if not _is_controller(config):
        suite_processes.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = suite_processes.run_dir()
    if folder is not None and not _is_worker(config):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _in(item.nodeid, SYSTEM):
            item.add_marker(pytest.mark.system)

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: every worker collects the same order


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A property test, twice: `[quick]` here, `[full]` in the system tier."""
    hypothesis = getattr(metafunc.function, "is_hypothesis_test", False)
    if hypothesis or _in(metafunc.definition.nodeid, HYPOTHESIS):
        metafunc.parametrize(
            "hypothesis_examples",
            [pytest.param("quick"), pytest.param("full", marks=pytest.mark.system)],
            indirect=True,
        )


@pytest.fixture(autouse=True)
def hypothesis_examples(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """`quick` caps the examples of every Hypothesis run in the test; `full` leaves them."""
    tier = getattr(request, "param", None)
    _quick_cap[0] = QUICK_EXAMPLES if tier == "quick" else None
    try:
        yield tier
    finally:
        _quick_cap[0] = None


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):  # type: ignore[no-untyped-def]
    with suite_processes.fixture_scope(fixturedef.scope):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    with suite_processes.running(item.nodeid):
        try:
            return (yield)
        finally:
            suite_processes.reap_test(item.nodeid)


def _workers(folder: Path) -> set[int]:
    return {int(f.name.split("-")[1]) for f in folder.glob("worker-*")}


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    folder = suite_processes.run_dir()
    if _is_worker(config):
        # only what this worker started: the other workers are still running theirs
        left = suite_processes.leftovers(scan_marked=False)
        if left and folder is not None:
            (folder / f"left-{os.getpid()}").write_text("\n".join(left) + "\n")
        return
    left = [] if _is_controller(config) else suite_processes.leftovers(scan_marked=False)
    if folder is not None:
        workers = _workers(folder)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        for f in folder.glob("left-*"):
            left += f.read_text().splitlines()
        left += suite_processes.leftovers(scan_marked=True, exclude=workers)
    if left:
        config.stash[_LEFT] = left
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    left = config.stash.get(_LEFT, [])
    if left:
        terminalreporter.write_sep("=", "processes the suite started were still running", red=True)
        for line in left:
            terminalreporter.write_line(f"killed {line}")
        # counted in the closing line as an error, and listed by -ra
        terminalreporter.stats.setdefault("error", []).append(
            pytest.TestReport(
                nodeid="tests/conftest.py::processes-left-running",
                location=("tests/conftest.py", 0, "processes left running"),
                keywords={},
                outcome="failed",
                longrepr=f"{len(left)} processes the suite started were still running",
                when="teardown",
            )
        )
    if config.stash.get(_DEFAULT_TIER, False) and not _is_worker(config):
        terminalreporter.write_line(SYSTEM_NOTE)
