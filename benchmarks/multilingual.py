"""Recall quality per language on the bilingual dev set (benchmarks/data/dev/, written for
confidante: 10 conversations of one person talking to their agent over four dated sessions,
200 questions with gold turns, each in English and Chinese, the same content in both).

Every conversation of every language is remembered in ONE database, each as the DM silo of
its own user, written at its session's date; each question is then asked in that user's DM
at the conversation's `asked_at` time (so "yesterday" and "上周三" mean something). Prints
the retrieval metrics per language (`_common.RetrievalScore`; a session is one day
here), date questions apart, and the number of hits that came
from another user's facts (must be 0).

    python benchmarks/multilingual.py [--languages en,zh] [--embedders static,none]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from _common import Clock, RetrievalScore
from confidante import Context, Memory
from confidante.config import Settings
from confidante.engine import default_rankers
from confidante.vault.crypto import new_key

DATA = Path(__file__).resolve().parent / "data" / "dev"


def load(path: Path = DATA) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def languages_of(convs: list[dict]) -> list[str]:
    langs = {k for c in convs for s in c["sessions"] for t in s["turns"] for k in t}
    return sorted(langs, key=lambda x: (x != "en", x))


def evaluate(
    mem: Memory, clock: Clock, convs: list[dict], langs: list[str], cross: bool = False
) -> dict:
    owner_of: dict[str, str] = {}  # fact id -> user actor, for the leak count
    turn_of: dict[str, str] = {}  # fact id -> "session:turn"
    ingest_s = ingested = 0.0
    for lang in langs:
        for c in convs:
            actor = f"dev:{lang}-{c['id']}"
            for si, s in enumerate(c["sessions"], start=1):
                texts = [t[lang] for t in s["turns"] if lang in t]
                if not texts:
                    continue
                clock.now = when(s["date"])
                t0 = time.perf_counter()
                facts = mem.remember_many(Context.dm(actor), texts)
                ingest_s += time.perf_counter() - t0
                ingested += len(facts)
                for ti, f in enumerate(facts, start=1):
                    owner_of[f.id], turn_of[f.id] = actor, f"{si}:{ti}"
    scores: dict[str, RetrievalScore] = defaultdict(RetrievalScore)
    leaks = 0
    latencies = []
    # Each language asked of its own facts; then, across languages, a question in one asked
    # of the same conversation remembered in another ("zh>en": Chinese asked of English).
    asks = [(lang, lang, lang) for lang in langs]
    asks += [(f"{q}>{f}", q, f) for q in langs for f in langs if q != f and cross]
    for label, q_lang, f_lang in asks:
        for c in convs:
            if not any(f_lang in t for s in c["sessions"] for t in s["turns"]):
                continue  # not remembered in that language
            actor = f"dev:{f_lang}-{c['id']}"
            clock.now = when(c["asked_at"])
            for q in c["questions"]:
                if q_lang not in q:
                    continue
                t0 = time.perf_counter()
                hits = mem.recall(Context.dm(actor), q[q_lang], k=50)
                latencies.append(time.perf_counter() - t0)
                leaks += sum(owner_of.get(h.fact.id) != actor for h in hits)
                got = [turn_of[h.fact.id] for h in hits]
                evidence = set(q["evidence"])
                scores[label].add(got, evidence)
                scores[f"{label} {q['type']}"].add(got, evidence)
                scores[f"{label} @{c['id']}"].add(got, evidence)
    latencies.sort()
    return {
        "scores": scores,
        "leaks": leaks,
        "p95_ms": latencies[int(len(latencies) * 0.95)] * 1e3,
        "ingest_facts_per_s": ingested / ingest_s if ingest_s else 0.0,
    }


def run(convs: list[dict], langs: list[str], embedder: str, cross: bool = False) -> dict:
    clock = Clock()
    settings = Settings(default_ttl_days=36500, embedder=embedder)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "dev.db"
        mem = Memory.open(db, master_key=new_key(), clock=clock, settings=settings)
        mem.pipeline.rankers = default_rankers(settings)
        try:
            return evaluate(mem, clock, convs, langs, cross)
        finally:
            mem.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--languages", default="", help="default: every language in the set")
    ap.add_argument("--embedders", default="default,none")
    ap.add_argument("--types", action="store_true", help="also print each question type")
    ap.add_argument("--cross", action="store_true", help="also ask across languages")
    args = ap.parse_args()
    convs = load(args.data)
    langs = args.languages.split(",") if args.languages else languages_of(convs)
    n_q = sum(len(c["questions"]) for c in convs)
    print(f"bilingual dev set: {len(convs)} conversations, {n_q} questions, languages {langs}")
    cols = "".join(f"{m:>16}" for m in RetrievalScore.COLUMNS)
    print(f"{'embedder':<18}{'slice':<14}{'n':>5}{cols}")
    for name in args.embedders.split(","):
        r = run(convs, langs, name, args.cross)
        scores = r["scores"]
        full = max(scores[lang].n for lang in langs)
        for lang in langs:  # a language on fewer conversations: English on the same ones
            if scores[lang].n < full:
                same = RetrievalScore()
                for key in list(scores):
                    if key.startswith(f"{lang} @"):
                        part = scores[f"en @{key.split('@')[1]}"]
                        same.n += part.n
                        same.sums = [a + b for a, b in zip(same.sums, part.sums, strict=True)]
                scores[f"en (as {lang})"] = same
        for key in sorted(scores, key=lambda k: (">" in k, k.split()[0] != "en", k)):
            kind = key.split()[-1] if " " in key else ""
            if "@" in key or (kind and not (args.types or kind in ("date", ")") or ")" in kind)):
                continue
            s = scores[key]
            s = scores[key]
            print(f"{name:<18}{key:<14}{s.n:>5}" + "".join(f"{v:>16.3f}" for v in s.values()))
        whole = [lang for lang in langs if scores[lang].n == full]  # asked every question
        gaps = [max(v) - min(v) for v in zip(*(scores[x].values() for x in whole), strict=True)]
        print(
            f"{name:<18}largest gap between {'/'.join(whole)}: {max(gaps):.3f}; "
            f"hits from another user: {r['leaks']}; recall p95 {r['p95_ms']:.1f} ms; "
            f"ingest {r['ingest_facts_per_s']:.0f} facts/s"
        )


if __name__ == "__main__":
    main()
