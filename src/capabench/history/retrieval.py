"""`retrieval`: the top-k of the user's resolved sessions by BM25 against the new request
(rank-bm25); `retrieval-dense`: the same by cosine similarity of sentence embeddings
(the embeddings extra). Shown most relevant first."""

from __future__ import annotations

import re

from capabench.history.base import (
    HistoryContext,
    HistoryEnv,
    register,
    render_history,
    render_session,
)
from capabench.history.embed import DEFAULT_EMBEDDER, embedder
from capabench.records import Session

_WORD = re.compile(r"[a-z0-9_]+")


def tokenize(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ranked(scores: list[float], k: int) -> list[int]:
    """Indices of the k best scores; ties go to the earlier session (deterministic)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]


@register("retrieval")
class BM25Retrieval:
    def __init__(self, env: HistoryEnv) -> None:
        self.env = env

    def context(self, session: Session) -> HistoryContext:
        from rank_bm25 import BM25Okapi

        history = self.env.history_of(session)
        if not history:
            return HistoryContext()
        index = BM25Okapi([tokenize(render_session(h, 1)) for h in history])
        scores = [float(x) for x in index.get_scores(tokenize(session.request))]
        top = _ranked(scores, self.env.top_k)
        return render_history(
            [history[i] for i in top],
            method="bm25",
            k=self.env.top_k,
            scores=[round(scores[i], 4) for i in top],
        )


@register("retrieval-dense")
class DenseRetrieval:
    def __init__(self, env: HistoryEnv) -> None:
        self.env = env
        self.embedder = embedder(env.settings.get("embedder", DEFAULT_EMBEDDER))

    def context(self, session: Session) -> HistoryContext:
        history = self.env.history_of(session)
        if not history:
            return HistoryContext()
        vectors = self.embedder.encode([session.request] + [render_session(h, 1) for h in history])
        scores = [float(vectors[0] @ v) for v in vectors[1:]]
        top = _ranked(scores, self.env.top_k)
        return render_history(
            [history[i] for i in top],
            method="dense",
            embedder=self.embedder.name,
            k=self.env.top_k,
            scores=[round(scores[i], 4) for i in top],
        )
