"""docs/howto/moving-in.md: its example runs in a fresh folder and prints what the page
says (the imports, the repeat that adds nothing, the round trip)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_moving_in_example_runs_as_printed(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "howto" / "moving-in.md").read_text()
    script = page.split("<!-- moving-in:example -->\n```python\n", 1)[1].split("```", 1)[0]
    printed = page.split("It prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    (tmp_path / "example.py").write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFIDANTE_")}
    env |= {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    p = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == printed
    assert (tmp_path / "everything.jsonl").stat().st_mode & 0o777 == 0o600
