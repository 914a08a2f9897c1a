"""The privacy guard: accuracy per category and per language, false refusals on real chat,
the cost of each detector, and ingest speed with every detector on.

    python benchmarks/pii.py [--data PATH ...] [--locomo PATH] [--errors] [--facts N]

Each JSONL line is ``{"text": ..., "labels": [categories], "lang": "zh"}`` (``lang``
optional). A sentence's predicted set is the categories ``classify`` finds in it; it is
*refused* when that set holds a T3 category. The default data are the shared labelled set
(``shared/data/pii/pii_dev.jsonl``, when present) and the multilingual set shipped here
(``benchmarks/data/pii_multilingual.jsonl``: zh, de, fr, es, en; T3 and ordinary chat that
looks risky: prices, order numbers, versions, dates, scores).

Real chat comes from LoCoMo (read from the shared data folder, CC BY-NC, never shipped):
every turn is ordinary conversation, so any refusal there is a false refusal; turns are read
as "speaker: text" and again as "speaker (session date time): text". Speed is
measured on those turns as facts/s and as a ratio against the same engine with the guard
switched off, in the same run (the machine is shared; `uptime` is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from confidante import Context, Memory
from confidante.privacy import IDENTIFIER_CATEGORIES, T3_CATEGORIES, classify, guard
from confidante.recall.ranking import BM25
from confidante.vault.crypto import new_key

HERE = Path(__file__).resolve().parent


def _shared(*parts: str) -> Path:
    """The shared data folder: beside the checkout, or the machine's /work/shared."""
    for root in (HERE.parents[1] / "shared", Path("/work/shared")):
        if (root / Path(*parts)).exists():
            return root / Path(*parts)
    return HERE.parents[1] / "shared" / Path(*parts)


DEFAULT_DATA = [_shared("data/pii/pii_dev.jsonl"), HERE / "data/pii_multilingual.jsonl"]
DEFAULT_LOCOMO = _shared("data/locomo/locomo10.json")

Row = tuple[str, frozenset[str], str]
STRUCTURED = frozenset({"email", "financial_account", "gov_id", "phone"})
ADDRESS = frozenset({"street_address"})


def load(path: Path) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                labels = frozenset(row.get("labels", []))
                rows.append((row["text"], labels, row.get("lang", "en")))
    return rows


def evaluate(rows: list[Row], show_errors: bool) -> dict[str, float]:
    predictions = [frozenset(f.category for f in classify(text)) for text, _, _ in rows]
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for (text, labels, _), predicted in zip(rows, predictions, strict=True):
        for category in predicted & labels:
            tp[category] += 1
        for category in predicted - labels:
            fp[category] += 1
        for category in labels - predicted:
            fn[category] += 1
        if show_errors and (predicted & T3_CATEGORIES) != (labels & T3_CATEGORIES):
            print(f"  want {sorted(labels)} got {sorted(predicted)}: {text!r}")

    print(f"{'category':<18} {'precision':>9} {'recall':>7} {'support':>8}")
    for category in sorted(T3_CATEGORIES) + sorted(IDENTIFIER_CATEGORIES):
        support = tp[category] + fn[category]
        predicted = tp[category] + fp[category]
        if not support and not predicted:
            continue
        precision = tp[category] / predicted if predicted else 1.0
        recall = tp[category] / support if support else float("nan")
        print(f"{category:<18} {precision:>9.3f} {recall:>7.3f} {support:>8}")

    refused = [bool(p & T3_CATEGORIES) for p in predictions]
    by_lang: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"t3": [], "clean": []})
    for (_, labels, lang), r in zip(rows, refused, strict=True):
        if labels & T3_CATEGORIES:
            by_lang[lang]["t3"].append(r)
        elif not labels:
            by_lang[lang]["clean"].append(r)
    print(f"\n{'language':<9} {'T3 refused':>16} {'false refusals':>20}")
    totals = {"t3": [], "clean": []}
    for lang in sorted(by_lang):
        t3, clean = by_lang[lang]["t3"], by_lang[lang]["clean"]
        totals["t3"] += t3
        totals["clean"] += clean
        print(f"{lang:<9} {_rate(t3):>16} {_rate(clean):>20}")
    print(f"{'all':<9} {_rate(totals['t3']):>16} {_rate(totals['clean']):>20}")
    # The two figures earlier closing notes report: lines holding structured T3 (an email,
    # an account or card, a government id, a phone number) and lines holding a street
    # address, each counted as refused when any T3 category is found in them.
    for label, wanted in (("structured T3", STRUCTURED), ("street addresses", ADDRESS)):
        hits = [r for (_, labels, _), r in zip(rows, refused, strict=True) if labels & wanted]
        print(f"{label:<17} {_rate(hits):>8}")
    t3_all, clean_all = totals["t3"], totals["clean"]
    return {
        "refusal_recall": sum(t3_all) / len(t3_all) if t3_all else 1.0,
        "false_refusal": sum(clean_all) / len(clean_all) if clean_all else 0.0,
    }


def _rate(xs: list[bool]) -> str:
    return f"{sum(xs) / len(xs):.3f} ({sum(xs)}/{len(xs)})" if xs else "-"


def locomo_turns(path: Path, dated: bool = False) -> list[str]:
    """Every LoCoMo turn as "speaker: text", or with ``dated`` as "speaker (session date
    time): text" ("Caroline (1:56 pm on 8 May, 2023): ..."), as an agent host may log it."""
    turns = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        n = 1
        while f"session_{n}" in conv:
            when = conv.get(f"session_{n}_date_time", "")
            for t in conv[f"session_{n}"]:
                speaker = f"{t['speaker']} ({when})" if dated else t["speaker"]
                turns.append(f"{speaker}: {t['text']}")
            n += 1
    return turns


def false_refusals(turns: list[str], show: bool, label: str = "speaker: text") -> None:
    refused: Counter[str] = Counter()
    count = 0
    for text in turns:
        cats = guard.t3_categories(text)
        if cats:
            count += 1
            refused.update(cats)
            if show:
                print(f"  refused {cats}: {text!r}")
    rate = count / len(turns)
    print(
        f"LoCoMo false refusals, {label:<30} {rate:.4f} ({count}/{len(turns)} turns) "
        f"{dict(refused)}"
    )


def detector_cost(turns: list[str]) -> None:
    """Microseconds per turn for each detector on folded text, and for whole classify calls
    as a scoped write (T3 only) and a global write (everything) make them."""
    from confidante.privacy.detectors import DETECTORS
    from confidante.privacy.normalise import fold

    folded = [fold(t).text for t in turns]
    classify(turns[0])  # load the bundled lists outside the timing
    print(f"\n{'detector':<20} {'category':<18} {'us/turn':>8}")
    for d in DETECTORS:
        start = time.perf_counter()
        for text in folded:
            for _ in d.find(text):
                pass
        spent = time.perf_counter() - start
        print(f"{d.name:<20} {d.category:<18} {spent / len(turns) * 1e6:>8.1f}")
    for label, cats in (("fold only", None), ("scoped write (T3)", T3_CATEGORIES)):
        start = time.perf_counter()
        for text in turns:
            if cats is None:
                fold(text)
            else:
                classify(text, cats)
        print(f"{label:<39} {(time.perf_counter() - start) / len(turns) * 1e6:>8.1f}")
    start = time.perf_counter()
    for text in turns:
        classify(text)
    print(f"{'global write (all)':<39} {(time.perf_counter() - start) / len(turns) * 1e6:>8.1f}")


@contextmanager
def guard_off() -> Iterator[None]:
    """The same engine with the privacy guard passing everything through: the baseline."""
    saved = guard.check_text, guard.check_label
    guard.check_text = lambda text, scope, mode="refuse": guard.Guarded(text)  # type: ignore[assignment]
    guard.check_label = lambda value, what, public=True: value
    try:
        yield
    finally:
        guard.check_text, guard.check_label = saved


def ingest(turns: list[str], batch: int, keyword_only: bool) -> tuple[float, float]:
    """(bulk facts/s, one-by-one facts/s) for `turns` into a fresh memory."""
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "m.db", owner_ids=["discord:1"], master_key=new_key())
        if keyword_only:
            mem.pipeline.rankers = [BM25()]
        ctx = Context.dm("discord:42")
        half = len(turns) // 2
        bulk, single = turns[:half], turns[half:]
        t0 = time.perf_counter()
        for i in range(0, len(bulk), batch):
            mem.remember_many(ctx, bulk[i : i + batch])
        t1 = time.perf_counter()
        for text in single:
            mem.remember(ctx, text)
        t2 = time.perf_counter()
        mem.close()
    return len(bulk) / (t1 - t0), len(single) / (t2 - t1)


def speed(
    turns: list[str],
    facts: int,
    batch: int,
    keyword_only: bool,
    compare: Path | None = None,
    rounds: int = 3,
) -> None:
    sample = turns[:facts]
    runs: list[tuple[str, Callable[[], tuple[float, float]]]] = [
        ("guard on", lambda: ingest(sample, batch, keyword_only)),
        ("guard off", lambda: _off(sample, batch, keyword_only)),
    ]
    if compare is not None:  # another checkout's code, same turns, in a child process
        runs.append(("other tree", lambda: _other_tree(compare, facts, batch, keyword_only)))
    timed: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in runs}
    for _ in range(rounds):  # interleaved, best of each, so load bursts hit all alike
        for name, run in runs:
            timed[name].append(run())
    best = {n: (max(b for b, _ in t), max(s for _, s in t)) for n, t in timed.items()}
    print(f"\ningest of LoCoMo turns ({len(sample)} facts, half bulk in {batch}s, half one by one;")
    rankers = "keyword recall only" if keyword_only else "default recall: BM25 + auto embedder"
    print(f"best of {rounds}, {rankers}, SQLite; ratios against the guard off)")
    print(f"{'':<22}" + "".join(f"{n:>12}{'ratio':>7}" for n in best))
    for i, label in enumerate(("bulk (facts/s)", "one by one (facts/s)")):
        base = best["guard off"][i]
        cells = "".join(f"{v[i]:>12,.0f}{v[i] / base:>7.2f}" for v in best.values())
        print(f"{label:<22}{cells}")
    if compare is not None:
        print(f"other tree: {compare}")


def _other_tree(root: Path, facts: int, batch: int, keyword_only: bool) -> tuple[float, float]:
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    args = [sys.executable, __file__, "--ingest-only", "--facts", str(facts)]
    args += ["--batch", str(batch)] + (["--keyword-only"] if keyword_only else [])
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout
    bulk, single = json.loads(out.strip().splitlines()[-1])
    return bulk, single


def _off(sample: list[str], batch: int, keyword_only: bool) -> tuple[float, float]:
    with guard_off():
        return ingest(sample, batch, keyword_only)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="*", default=None, help="JSONL files")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--errors", action="store_true", help="print mis-classified sentences")
    parser.add_argument("--facts", type=int, default=4000, help="LoCoMo turns to ingest")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--keyword-only", action="store_true", help="ingest without embeddings")
    parser.add_argument(
        "--compare-src", type=Path, help="also time another checkout (e.g. main before a change)"
    )
    parser.add_argument("--ingest-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ingest_only:  # the child of --compare-src: one timing, as JSON
        turns = locomo_turns(args.locomo)[: args.facts]
        print(json.dumps(ingest(turns, args.batch, args.keyword_only)))
        return 0
    if hasattr(os, "getloadavg"):
        print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    for path in args.data or [p for p in DEFAULT_DATA if p.exists()]:
        rows = load(path)
        print(f"\n== {path.name} ({len(rows)} sentences)\n")
        evaluate(rows, args.errors)
    if not args.locomo.exists():
        print(f"\n(no LoCoMo data at {args.locomo}: false refusals and speed skipped)")
        return 0
    turns = locomo_turns(args.locomo)
    print(f"\n== LoCoMo turns ({len(turns)})\n")
    false_refusals(turns, args.errors)
    dated = locomo_turns(args.locomo, dated=True)
    false_refusals(dated, args.errors, "speaker (session date): text")
    detector_cost(turns)
    if not args.no_speed:
        speed(turns, args.facts, args.batch, args.keyword_only, args.compare_src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
