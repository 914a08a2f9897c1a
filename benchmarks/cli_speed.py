"""How quickly the `confidante` command answers: what an agent host pays on every message it
shells out for.

Each figure is the median wall time of a fresh process (`python -m confidante ...`, as the
console script runs it), beside bare `python -c pass` in the same run: the time, the time
over bare Python, and the ratio to bare Python. The targets (issue 24): `import confidante`
within 0.3 s over bare Python, `confidante --help` within 0.5 s, one `remember` and one
`recall` on a small store within 1 s.

Two bytecode settings, each with its own cache folder (PYTHONPYCACHEPREFIX) filled by a
warm-up run, so the source tree is never written to:

- `compiled`: every module has its bytecode, as after a normal `pip install` (which compiles
  the package): what a user sees.
- `source`: the dependencies have their bytecode but confidante's own modules are compiled
  from source on every run (PYTHONDONTWRITEBYTECODE=1 with an editable install, as this
  machine's environment sets it): what the test suite sees.

    python benchmarks/cli_speed.py [--runs 7] [--facts 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import confidante

ACTOR = ["--as", "discord:42", "--dm"]
TARGETS = {  # seconds: (over bare Python, or the whole command)
    "import confidante": ("over", 0.3),
    "confidante --help": ("total", 0.5),
    "confidante remember": ("total", 1.0),
    "confidante recall": ("total", 1.0),
}


def _env(home: Path, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env.update(
        {
            "CONFIDANTE_DB": str(home / "memory.db"),
            "CONFIDANTE_OWNER_IDS": "discord:1",
            "CONFIDANTE_CONFIG": str(home / "none.toml"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "PYTHONPYCACHEPREFIX": str(cache),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    return env


def _commands(i: int) -> dict[str, list[str]]:
    py = [sys.executable]
    cli = [*py, "-m", "confidante"]
    return {
        "python -c pass": [*py, "-c", "pass"],
        "import confidante": [*py, "-c", "import confidante"],
        "confidante --help": [*cli, "--help"],
        "confidante remember": [*cli, "remember", f"I water the ferns on day {i}", *ACTOR],
        "confidante recall": [*cli, "recall", "ferns", *ACTOR, "--json"],
    }


def _run(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:])} failed:\n{done.stderr}")
    return took


def _seed(home: Path, env: dict[str, str], facts: int) -> None:
    cli = [sys.executable, "-m", "confidante"]
    subprocess.run([*cli, "init", "--json"], env=env, check=True, capture_output=True)
    for n in range(facts):
        text = f"Note {n}: the plant on shelf {n} wants water every {n % 7 + 1} days"
        subprocess.run([*cli, "remember", text, *ACTOR], env=env, check=True, capture_output=True)


def measure(runs: int, facts: int) -> dict[str, dict[str, list[float]]]:
    package = Path(confidante.__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        compiled, source = root / "pyc-all", root / "pyc-deps"
        # warm-up: bytecode for everything these commands import, written into `compiled`
        warm = _env(root / "warm", compiled)
        del warm["PYTHONDONTWRITEBYTECODE"]
        (root / "warm").mkdir()
        _seed(root / "warm", warm, 2)
        for argv in _commands(0).values():
            _run(argv, warm)
        # the same cache without confidante's own modules
        shutil.copytree(compiled, source)
        shutil.rmtree(source / package.relative_to(package.anchor), ignore_errors=True)
        results: dict[str, dict[str, list[float]]] = {}
        for mode, cache in (("compiled", compiled), ("source", source)):
            home = root / mode
            home.mkdir()
            _seed(home, _env(home, compiled), facts)  # seeding is not measured
            env = _env(home, cache)
            times: dict[str, list[float]] = {name: [] for name in _commands(0)}
            for i in range(runs):  # interleaved: a busy moment weighs on every command alike
                for name, argv in _commands(i).items():
                    times[name].append(_run(argv, env))
            results[mode] = times
    return results


def report(results: dict[str, dict[str, list[float]]]) -> None:
    for mode, times in results.items():
        bare = statistics.median(times["python -c pass"])
        print(f"\n{mode} bytecode (median of {len(times['python -c pass'])} runs)")
        print(f"{'command':<22} {'seconds':>8} {'over bare':>10} {'x bare':>7}   target")
        for name, xs in times.items():
            t = statistics.median(xs)
            line = f"{name:<22} {t:8.3f} {t - bare:10.3f} {t / bare:7.1f}"
            if name in TARGETS:
                kind, limit = TARGETS[name]
                value = t - bare if kind == "over" else t
                verdict = "met" if value <= limit else "NOT met"
                line += f"   <= {limit:g} s {'over bare' if kind == 'over' else ''} {verdict}"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--facts", type=int, default=20, help="facts in the small store")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    report(measure(args.runs, args.facts))


if __name__ == "__main__":
    main()
