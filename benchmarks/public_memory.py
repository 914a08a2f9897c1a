"""Public memory (the ``global`` scope, read by every audience): does an identifier survive?

    python benchmarks/public_memory.py [PATH ...]

Each JSONL line is ``{"text": ..., "ident": [identifying substrings]}``; a line with no
``ident`` is a control that must be stored unchanged. Every text goes through the guard as
an owner's global write (``guard.check_text(text, Scope.GLOBAL)``): it is refused, stored
generalised, or stored as written. An identifier *leaks* when one of its substrings is still
in the stored text. Default data: ``benchmarks/data/public_heldout_self.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import unicodedata
from collections import Counter
from pathlib import Path

from confidante import PrivateDataRefused
from confidante.model import Scope
from confidante.privacy import guard

HERE = Path(__file__).resolve().parent
DEFAULT = [HERE / "data/public_heldout_self.jsonl"]


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def judge(text: str, ident: list[str]) -> tuple[str, str]:
    """(outcome, stored text): refused, generalised, leaked, unchanged or changed."""
    try:
        stored = guard.check_text(text, Scope.GLOBAL).text
    except PrivateDataRefused:  # IdentifierRefused is a subclass
        return "refused", ""
    if ident:
        leaked = any(_norm(i) in _norm(stored) for i in ident)
        return ("leaked" if leaked else "generalised"), stored
    return ("unchanged" if stored == text else "changed"), stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULT)
    args = parser.parse_args()
    for path in args.paths:
        rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        outcomes: Counter[str] = Counter()
        print(f"== {path.name} ({len(rows)} texts)")
        for row in rows:
            outcome, stored = judge(row["text"], row.get("ident", []))
            kind = "identifier" if row.get("ident") else "control"
            outcomes[(kind, outcome)] += 1
            if outcome in ("leaked", "changed") or (kind == "control" and outcome == "refused"):
                print(f"  {outcome:<11} {row['text']!r} -> {stored!r}")
            elif kind == "identifier" and outcome == "generalised":
                print(f"  generalised {row['text']!r} -> {stored!r}")
        ids = sum(n for (k, _), n in outcomes.items() if k == "identifier")
        controls = sum(n for (k, _), n in outcomes.items() if k == "control")
        print(
            f"identifiers: {ids}, refused {outcomes['identifier', 'refused']}, generalised "
            f"{outcomes['identifier', 'generalised']}, leaked {outcomes['identifier', 'leaked']}"
        )
        print(
            f"controls: {controls}, unchanged {outcomes['control', 'unchanged']}, changed "
            f"{outcomes['control', 'changed']}, refused {outcomes['control', 'refused']}"
        )


if __name__ == "__main__":
    main()
