"""Sentence-level accuracy and speed of ``confidante.privacy.classify``.

    python benchmarks/pii.py [--data PATH] [--errors]

Each JSONL line is ``{"text": ..., "labels": [categories]}``. A sentence's predicted set is
the categories ``classify`` finds in it. A sentence is *refused* when that set holds any T3
category.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from confidante.privacy import IDENTIFIER_CATEGORIES, T3_CATEGORIES, classify

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared/data/pii/pii_dev.jsonl"


def load(path: Path) -> list[tuple[str, frozenset[str]]]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows.append((row["text"], frozenset(row.get("labels", []))))
    return rows


def evaluate(rows: list[tuple[str, frozenset[str]]], show_errors: bool) -> dict[str, float]:
    predictions = [frozenset(f.category for f in classify(text)) for text, _ in rows]
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for (text, labels), predicted in zip(rows, predictions, strict=True):
        for category in predicted & labels:
            tp[category] += 1
        for category in predicted - labels:
            fp[category] += 1
        for category in labels - predicted:
            fn[category] += 1
        if show_errors and predicted != labels:
            print(f"  want {sorted(labels)} got {sorted(predicted)}: {text}")

    print(f"{'category':<18} {'precision':>9} {'recall':>7} {'support':>8}")
    for category in sorted(T3_CATEGORIES) + sorted(IDENTIFIER_CATEGORIES):
        support = tp[category] + fn[category]
        predicted = tp[category] + fp[category]
        precision = tp[category] / predicted if predicted else 1.0
        recall = tp[category] / support if support else 1.0
        print(f"{category:<18} {precision:>9.3f} {recall:>7.3f} {support:>8}")

    t3_rows = [
        bool(p & T3_CATEGORIES)
        for (_, labels), p in zip(rows, predictions, strict=True)
        if labels & T3_CATEGORIES
    ]
    clean_rows = [
        bool(p & T3_CATEGORIES)
        for (_, labels), p in zip(rows, predictions, strict=True)
        if not labels
    ]
    refusal_recall = sum(t3_rows) / len(t3_rows) if t3_rows else 1.0
    false_refusal = sum(clean_rows) / len(clean_rows) if clean_rows else 0.0
    print(f"\nT3 refusal recall      {refusal_recall:.3f}  ({sum(t3_rows)}/{len(t3_rows)})")
    print(f"false refusals (clean) {false_refusal:.3f}  ({sum(clean_rows)}/{len(clean_rows)})")
    return {"refusal_recall": refusal_recall, "false_refusal": false_refusal}


def throughput(texts: list[str], min_seconds: float = 1.0) -> float:
    classify(texts[0])  # load the bundled lists outside the timing
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < min_seconds:
        for text in texts:
            classify(text)
        done += len(texts)
    return done / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="JSONL file to score")
    parser.add_argument("--errors", action="store_true", help="print mis-classified sentences")
    args = parser.parse_args(argv)
    rows = load(args.data)
    print(f"{args.data} ({len(rows)} sentences)\n")
    evaluate(rows, args.errors)
    rate = throughput([text for text, _ in rows])
    print(f"throughput             {rate:,.0f} sentences/s ({1e6 / rate:.0f} µs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
