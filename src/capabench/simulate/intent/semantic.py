"""The `semantic` matcher: each asking sentence (a list item with its heading, an elliptical
one with the sentences before it) embedded with MiniLM (the embeddings extra) and compared
with each family's exemplar questions and with questions about nothing a user's conventions
settle. A family is targeted when its nearest exemplar is close enough (THRESHOLD) and
closer than any off-target question by MARGIN; within a mechanism only the nearest family.
Deterministic: the same sentence gets the same vector."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from capabench.conventions import REGISTRY
from capabench.simulate.intent.base import Candidate, QuestionReading, Reading, register
from capabench.simulate.intent.text import questions_of

# Calibrated on tests/data/user_questions/tune.json (benchmarks/user_fidelity.py).
THRESHOLD = 0.55
MARGIN = 0.10

OFF_TARGET = (
    "Anything else I should know?",
    "Should I add type hints?",
    "Do you want docstrings and comments?",
    "Is performance a concern here?",
    "Which Python version are you on?",
    "Can I use third-party libraries?",
    "Should I write unit tests too?",
    "Is recursion fine or should I use a loop?",
    "What should happen with an empty list?",
    "Should I mutate the input or return a copy?",
    "Does it need to be thread-safe?",
    "Can I assume the examples in the docstring are correct?",
    "Should I explain the algorithm?",
    "Do you want me to go ahead and write it now?",
    "Is an O(n log n) solution acceptable?",
)


class SemanticMatcher:
    name = "semantic"
    session_independent = True

    def __init__(self, embedder=None) -> None:
        from capabench.history.embed import DEFAULT_EMBEDDER, SentenceEmbedder

        self.embedder = embedder or SentenceEmbedder(DEFAULT_EMBEDDER)
        self._lock = threading.Lock()
        self._bank: tuple[list[str], np.ndarray, np.ndarray] | None = None

    def _exemplars(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        with self._lock:
            if self._bank is None:
                owners, texts = [], []
                for family in sorted(REGISTRY):
                    for text in (REGISTRY[family].question, *REGISTRY[family].exemplars):
                        owners.append(family)
                        texts.append(text)
                self._bank = (
                    owners,
                    self.embedder.encode(texts),
                    self.embedder.encode(list(OFF_TARGET)),
                )
            return self._bank

    def candidates(self, texts: list[str]) -> list[list[Candidate]]:
        owners, exemplars, negatives = self._exemplars()
        if not texts:
            return []
        vectors = self.embedder.encode(texts)
        out = []
        for sims, neg in zip(
            vectors @ exemplars.T, (vectors @ negatives.T).max(axis=1), strict=True
        ):
            best: dict[str, float] = {}
            for family, sim in zip(owners, sims, strict=True):
                best[family] = max(best.get(family, -1.0), float(sim))
            out.append(
                sorted(
                    (
                        Candidate(
                            family=f,
                            score=round(v - neg, 4),
                            evidence=f"cosine {v:.3f}, off-target {neg:.3f}",
                        )
                        for f, v in best.items()
                        if v >= THRESHOLD
                    ),
                    key=lambda c: (-c.score, c.family),
                )
            )
        return out

    def read(self, message: str, families: Sequence[str]) -> Reading:
        asked = questions_of(message)
        texts = [q.as_read for q in asked]
        readings = []
        for question, found in zip(asked, self.candidates(texts), strict=True):
            readings.append(
                QuestionReading(
                    text=question.text,
                    targets=tuple(_targets(found, families)),
                    best=found[0] if found else None,
                )
            )
        return Reading(matcher=self.name, asking_sentences=len(asked), questions=tuple(readings))


def _targets(found: list[Candidate], families) -> list[str]:
    seen = set()
    targets = []
    for c in found:  # best first: the first of each mechanism wins
        mechanism = REGISTRY[c.family].mechanism
        if c.score >= MARGIN and mechanism not in seen:
            seen.add(mechanism)
            if c.family in families:
                targets.append(c.family)
    return targets


@register("semantic")
def _make(**_) -> SemanticMatcher:
    return SemanticMatcher()
