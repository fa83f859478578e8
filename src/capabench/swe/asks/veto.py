"""A learned veto over an ask classifier's "ask" verdicts: a logistic regression over word
1-2-grams of the message's prose (its final paragraph, the units the classifier counted as
asking, the whole prose) and the classifier's own signals (the acts that fired, the units it
blocked, the edit gate). It only ever turns an ask into no ask: a message the classifier
didn't count as asking stays so.

Weights are package data (config/ask_veto.json, written by scripts/train_ask_veto.py from the
corpus's development parts only). Inference is a sum of weights read with math.fsum: the same
verdict on every machine."""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from capabench.swe.asks.reading import prose, split_units
from capabench.swe.asks.verdict import AskClassifier, Detection

WEIGHTS = Path(__file__).with_name("config") / "ask_veto.json"
_TOKEN = re.compile(r"[a-z][a-z'-]*|\?")


def ngrams(text: str, prefix: str) -> set[str]:
    words = _TOKEN.findall(text.lower().replace("’", "'"))
    grams = set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}
    return {prefix + g for g in grams}


def features(message: str, detection: Detection) -> frozenset[str]:
    """What the veto reads of a message the classifier read as `detection`."""
    found = split_units(prose(message), None)
    final = " ".join(u.text for u in found if u.last)
    every = " ".join(u.text for u in found)
    signals = {f"act:{c}" for c in detection.categories}
    signals |= {f"blocked:{b}" for b in detection.blocked}
    signals.add(f"gate:{detection.gate}")
    if len(detection.questions) > 1:
        signals.add("asking:several")
    return frozenset(
        ngrams(final, "f:")
        | ngrams(" ".join(detection.questions), "q:")
        | ngrams(every, "w:")
        | signals
    )


@dataclass(frozen=True)
class VetoWeights:
    intercept: float
    weights: dict[str, float]
    threshold: float  # an ask stands when the model gives at least this
    trained_on: dict[str, str]  # corpus part -> sha256 of its file

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> VetoWeights:
        return cls(**json.loads(Path(path).read_text()))

    def probability(self, grams: frozenset[str]) -> float:
        z = self.intercept + math.fsum(self.weights[g] for g in sorted(self.weights.keys() & grams))
        if z < 0:  # exp of a large positive number overflows
            return math.exp(z) / (1.0 + math.exp(z))
        return 1.0 / (1.0 + math.exp(-z))


class VetoedClassifier:
    """`base`'s verdicts, its asks checked by the veto."""

    def __init__(self, base: AskClassifier, weights: VetoWeights, version: str) -> None:
        self.base, self.weights, self.version = base, weights, version

    def classify(self, message: str, *, edited: bool = False) -> Detection:
        found = self.base.classify(message, edited=edited)
        update = {"version": self.version}
        if found.asked:
            p = self.weights.probability(features(message, found))
            if p < self.weights.threshold:
                update |= {"asked": False, "note": f"vetoed: p(ask) {p:.2f}"}
        return found.model_copy(update=update)
