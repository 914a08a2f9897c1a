"""Fold the ``static-multilingual`` model for reading: write ``folded.npz`` beside it.

``distil_multilingual_static.py`` writes the model as it was distilled: a table of piece
features (``model.npz``: int8 rows and their scales, a PCA basis, the teacher's head) and the
teacher's tokenizer (``tokenizer.json``). Reading a text with it as shipped cost two things
that depend on the model alone, paid by every process:

- the head's first layer is linear in the pooled piece features, so its matrices are
  multiplied into the PCA basis, mean and end tokens once (128 x 640 a text, not
  128 x 512 + 512 x 640), and the third layer's two matrices are stacked so one product
  reads both of its inputs. The layers after the first are not linear (ReLU, tanh, and two
  length normalisations), so nothing past the first layer can be folded into the table:
  a text still costs its pieces' rows summed and five small products;
- ``tokenizers`` builds a trie of the 128,000 pieces that holds ~120 MB resident. The pieces
  and their scores are written here as one UTF-8 blob with offsets, read into a dict in
  Python (``pieces.UnigramPieces``, ~15 MB), and the tokenizer is kept for its normaliser
  and pre-tokeniser only (its model replaced by one piece).

The table itself stays in ``model.npz`` (only its ``table`` and ``scale`` are read). The
script checks that the folded model gives the vectors of the model as distilled (to float32
rounding) on every shipped dev text, and pins the file's sha256 in ``meta.json``.

    python scripts/fold_multilingual_static.py
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO_ROOT / "src/confidante/recall/embedding/data/static-multilingual"
HIDDEN = 320


def fold(w: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The head's linear first layer multiplied into what feeds it; the third layer's two
    matrices stacked ([y1 | y2] @ p3d3 = y1 @ p3 + y2 @ d3)."""
    first = np.concatenate([w["d0"], w["p1"]], axis=1).astype(np.float64)
    out = {
        "basis_in": w["basis"].astype(np.float64) @ first,
        "mean_in": w["mean"].astype(np.float64) @ first,
        "ends_in": w["ends"].astype(np.float64) @ first,
        "bias_in": w["cnn_b"].astype(np.float64) @ first,
        "d1": w["d1"],
        "d2": w["d2"],
        "p3d3": np.concatenate([w["p3"], w["d3"]]),
        "out": w["out"],
    }
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}


def reference(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """One text's vector by the model as distilled, unfolded, in float64."""
    ids = [i for i in ids if i != 0]
    if not ids:
        return np.zeros(w["out"].shape[1])
    rows = w["table"][ids].astype(np.float64) * w["scale"][ids].astype(np.float64)[:, None]
    n = len(ids)
    feats = n * w["mean"] + rows.sum(axis=0) @ w["basis"] + w["ends"]
    span = np.sqrt(n + 2.0)
    x = feats / span + span * w["cnn_b"]
    y0 = np.maximum(x @ w["d0"], 0.0)
    y1 = np.maximum(x @ w["p1"] + y0 @ w["d1"], 0.0)
    y2 = np.maximum(y1 @ w["d2"], 0.0)
    z = np.tanh(y1 @ w["p3"] + y2 @ w["d3"])
    z /= np.linalg.norm(z)
    v = z @ w["out"]
    return v / np.linalg.norm(v)


def shipped_texts() -> list[str]:
    out: list[str] = []
    for path in sorted((REPO_ROOT / "benchmarks/data").glob("*/[chr]*.json")):
        conv = json.loads(path.read_text())
        for s in conv["sessions"]:
            out += [text for t in s["turns"] for text in t.values() if isinstance(text, str)]
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    args = ap.parse_args(argv)
    from tokenizers import Tokenizer

    raw_model = (args.dir / "model.npz").read_bytes()
    raw_tokenizer = (args.dir / "tokenizer.json").read_bytes()
    meta = json.loads((args.dir / "meta.json").read_text())
    for blob, key in ((raw_model, "model_sha256"), (raw_tokenizer, "tokenizer_sha256")):
        if hashlib.sha256(blob).hexdigest() != meta[key]:
            raise SystemExit(f"{key} does not match meta.json")
    with np.load(io.BytesIO(raw_model), allow_pickle=False) as z:
        w = {k: z[k] for k in z.files}
    spec = json.loads(raw_tokenizer)
    vocab = spec["model"]["vocab"]
    encoded = [p.encode("utf-8") for p, _ in vocab]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    spec["model"]["vocab"] = [["<unk>", 0.0]]
    spec["model"]["unk_id"] = 0
    folded = fold(w)
    folded.update(
        pieces=np.frombuffer(b"".join(encoded), dtype=np.uint8),
        offsets=offsets,
        scores=np.asarray([s for _, s in vocab], dtype=np.float64),
        unk_id=np.asarray(int(json.loads(raw_tokenizer)["model"]["unk_id"])),
        tokenizer=np.frombuffer(json.dumps(spec).encode("utf-8"), dtype=np.uint8),
    )
    buf = io.BytesIO()
    np.savez(buf, **folded)  # not compressed: loads in milliseconds
    blob = buf.getvalue()
    (args.dir / "folded.npz").write_bytes(blob)
    meta["folded_sha256"] = hashlib.sha256(blob).hexdigest()
    (args.dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")

    # the folded model, as confidante reads it, against the model as distilled
    from confidante.recall.embedding.multilingual import MultilingualStaticEmbedder

    tokenizer = Tokenizer.from_str(raw_tokenizer.decode("utf-8"))
    tokenizer.no_padding()
    texts = shipped_texts()
    got = MultilingualStaticEmbedder().embed(texts)
    worst = 0.0
    for text, v in zip(texts, got, strict=True):
        ids = tokenizer.encode(text, add_special_tokens=False).ids[:512]
        worst = max(worst, float(np.abs(reference(w, ids) - v).max()))
    print(f"folded.npz: {len(blob):,} bytes, sha256 {meta['folded_sha256']}")
    print(f"{len(texts):,} texts: largest difference from the model as distilled {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit("the folded model does not give the distilled model's vectors")


if __name__ == "__main__":
    main()
