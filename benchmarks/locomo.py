"""Recall quality on LoCoMo (CC BY-NC 4.0; read from the shared data folder, never shipped).

Every turn of each conversation is remembered as a DM fact of one user silo per
conversation (written at its session's date), then every question of categories 1-4 with
evidence is recalled in that user's context. Prints session-level recall_any@5 and
recall_all@10 and turn-level recall_all@10 for BM25 alone and for the hybrid default, in
the same run.

The metrics are LongMemEval's (Wu et al., ICLR 2025, `evaluate_retrieval_turn2session`):
turn-level recall_all@k asks whether every evidence turn is among the first k facts recalled;
session-level recall maps the ranked turns to their sessions and reads the first k *distinct*
sessions. `first5_any` is a stricter reading kept for comparison with earlier runs: an
evidence session among the sessions of the first 5 facts (repeats count against it).

    python benchmarks/locomo.py [--data PATH] [--embedders static,minilm-int8]
                                [--conversations 0-4]   (a held-out half: 0-4 or 5-9)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from _common import Clock
from confidante import Context, Memory
from confidante.config import Settings
from confidante.engine import default_rankers
from confidante.recall.ranking import BM25
from confidante.vault.crypto import new_key


def _default_data() -> Path:
    """shared/data/locomo beside the checkout (or any folder above it: worktrees)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared/data/locomo/locomo10.json"
        if candidate.exists():
            return candidate
    return Path("shared/data/locomo/locomo10.json")


DEFAULT_DATA = _default_data()


def session_date(text: str) -> datetime:
    # e.g. "1:56 pm on 8 May, 2023"
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def sessions(sample: dict) -> Iterator[tuple[datetime, list[dict]]]:
    """A conversation's sessions in order: each one's date and its turns."""
    conv = sample["conversation"]
    n = 1
    while f"session_{n}" in conv:
        yield session_date(conv[f"session_{n}_date_time"]), conv[f"session_{n}"]
        n += 1


def line(turn: dict) -> str:
    """A turn as the transcript line it is remembered as."""
    return f"{turn['speaker']}: {turn['text']}"


def ingest(
    mem: Memory, clock: Clock, sample: dict, actor: str, context: int = 0
) -> tuple[dict[str, str], float]:
    """Remember every turn; return fact id -> dia_id and the seconds spent."""
    ctx = Context.dm(actor)
    ids: dict[str, str] = {}
    spent = 0.0
    for when, turns in sessions(sample):
        clock.now = when
        t0 = time.perf_counter()
        facts = mem.remember_many(ctx, [line(t) for t in turns], embed_context=context)
        spent += time.perf_counter() - t0
        ids.update((f.id, t["dia_id"]) for f, t in zip(facts, turns, strict=True))
    return ids, spent


def session_of(dia_id: str) -> str:
    return dia_id.split(":")[0]


def evaluate(mem: Memory, samples: list[dict], clock: Clock, context: int) -> dict[str, float]:
    any5 = all10s = all10t = first5 = n = 0
    latencies = []
    ingest_s = ingested = 0.0
    for i, sample in enumerate(samples):
        actor = f"locomo:{i}"
        ids, spent = ingest(mem, clock, sample, actor, context)
        ingest_s += spent
        ingested += len(ids)
        ctx = Context.dm(actor)
        for qa in sample["qa"]:
            if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
                continue
            evidence = {e.strip() for e in qa["evidence"] if ":" in e}
            if not evidence:
                continue
            t0 = time.perf_counter()
            mem.recall(ctx, qa["question"], k=10)  # what an agent asks for; timed
            latencies.append(time.perf_counter() - t0)
            # deeper list, untimed: enough facts to reach 10 distinct sessions
            hits = mem.recall(ctx, qa["question"], k=200)
            got = [ids.get(h.fact.id, "") for h in hits]
            sessions = {session_of(e) for e in evidence}
            distinct = list(dict.fromkeys(session_of(g) for g in got))
            any5 += bool(set(distinct[:5]) & sessions)
            all10s += sessions <= set(distinct[:10])
            all10t += evidence <= set(got[:10])
            first5 += bool({session_of(g) for g in got[:5]} & sessions)
            n += 1
    latencies.sort()
    return {
        "questions": n,
        "session_any@5": any5 / n,
        "session_all@10": all10s / n,
        "turn_all@10": all10t / n,
        "first5_any": first5 / n,
        "p50_ms": latencies[len(latencies) // 2] * 1e3,
        "p95_ms": latencies[int(len(latencies) * 0.95)] * 1e3,
        "ingest_facts_per_s": ingested / ingest_s if ingest_s else 0.0,
    }


def run(label: str, samples: list[dict], rankers_for: object, context: int = 0) -> dict[str, float]:
    clock = Clock()
    settings = Settings(default_ttl_days=36500)
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(
            Path(tmp) / "locomo.db", master_key=new_key(), clock=clock, settings=settings
        )
        mem.pipeline.rankers = rankers_for(settings)  # type: ignore[operator]
        try:
            result = evaluate(mem, samples, clock, context)
        finally:
            mem.close()
    result["label"] = label  # type: ignore[assignment]
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description="LoCoMo recall benchmark")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--embedders", default="", help="extra embedders to compare, comma-separated")
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--conversations", default="", help="a range such as 0-4 or 5-9")
    args = ap.parse_args()
    samples = load(args.data)
    if args.limit:
        samples = samples[: args.limit]
    if args.conversations:
        lo, _, hi = args.conversations.partition("-")
        samples = samples[int(lo) : int(hi or lo) + 1]

    runs = [
        run("bm25", samples, lambda s: [BM25()]),
        run("hybrid (default)", samples, default_rankers),
        run("hybrid, embed_context=1", samples, default_rankers, context=1),
    ]
    for name in filter(None, args.embedders.split(",")):
        runs.append(
            run(
                f"hybrid ({name})",
                samples,
                lambda s, name=name: default_rankers(s.model_copy(update={"embedder": name})),
            )
        )
    print(
        f"LoCoMo: {runs[0]['questions']} questions (categories 1-4 with evidence), "
        f"{len(samples)} conversations {args.conversations or ''}"
    )
    cols = [
        "session_any@5",
        "session_all@10",
        "turn_all@10",
        "first5_any",
        "p50_ms",
        "p95_ms",
        "ingest_facts_per_s",
    ]
    print(f"{'ranking':<24}" + "".join(f"{c:>20}" for c in cols))
    for r in runs:
        print(
            f"{r['label']:<24}"
            + "".join(
                f"{r[c]:>20.3f}" if c.endswith(("5", "10", "any")) else f"{r[c]:>20.1f}"
                for c in cols
            )
        )
    print("targets for the hybrid default: session_any@5 >= 0.95, turn_all@10 >= 0.70")


if __name__ == "__main__":
    main()
