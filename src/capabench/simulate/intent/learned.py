"""The `learned` matcher (the default): the rules matcher's reading, checked by small learned models
that have seen how real assistants word questions about each family and about nothing a user's
conventions settle.

Logistic regressions over what evidence.py reads of a message: the asking sentences' words (the
plain text the rules read: identifiers and quoted task terms left out), the words of the message's
code (a draft's `return "yes" if ok else "no"` is what "which return should stay?" asks about) and
the sentences' meaning, so a word no bank message used still weighs by what it means:
- per family, on the questions the rules found it in and how they reached it (`how_asked`):
  may veto a rules target;
- once, whether the message asks about none of the families: may veto every rules target
  but one its family's model is all but certain of and its words-only model leans to;
- per family on the asking sentences' words alone (not the code's): when sure, keeps a rules target
  its family's model does not all but reject, or takes a family the rules missed in a mechanism
  they left free (a user holds one family per mechanism) if one of its words is asked about; when
  nothing is kept yet something is asked, its best family may be taken.
`LearnedWeights` names the thresholds each step uses. A rules target whose cue (the user's own
words in the request) a question quotes (cues.py), or that a plain question about its concept
asks, always stays; one a sentence without a question mark says so stays while its family's model
gives it at least `statement_threshold`.

Why: the rules' concept words also turn up in questions about other things (a near miss:
"should I format the file with black?"), and everyday wordings escape any word list. What the
models change on parts of the bank neither was written on: docs/measurements.md.

Weights are package data (`learned_weights.json`, written by scripts/train_intent_model.py from
tuned parts only; the held-out parts never enter it). Inference is a sum of weights; the meaning
vector is a sum of int8 rows (exact) read with math.fsum: the same reading on every machine."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from functools import cache, cached_property, lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from capabench.conventions import REGISTRY
from capabench.simulate.intent.base import Reading, register
from capabench.simulate.intent.evidence import OVERALL_VIEW, RULES_VIEW, Evidence, evidence
from capabench.simulate.intent.frames import other_frame
from capabench.simulate.intent.rules import READINGS_KEPT

WEIGHTS = Path(__file__).with_name("learned_weights.json")


class FamilyWeights(BaseModel):
    model_config = ConfigDict(frozen=True)

    intercept: float
    ngrams: dict[str, float]
    # over the rules' view (Evidence.rules); hand-made weights may stop short (the rest
    # weigh nothing)
    rules: tuple[float, ...]
    meaning: tuple[float, ...] = ()  # over the asking sentences' meaning vector (empty: unread)

    @cached_property
    def meaning_array(self) -> np.ndarray:
        return np.asarray(self.meaning, dtype=np.float64)


class LearnedWeights(BaseModel):
    model_config = ConfigDict(frozen=True)

    threshold: float = 0.5  # a rules target stays when its family's model gives at least this
    # ... or a family's own bar where that is higher (the trainer's, set out of fold)
    family_thresholds: dict[str, float] = {}
    none_threshold: float = 0.5  # every rules target goes when the none-model gives this
    overrule_threshold: float = 1.0  # ... except one its family's model gives at least this
    # ... and its words-only model this; a rules target the words-only model keeps, its
    # family's model this
    lean_threshold: float = 0.0
    add_threshold: float = 1.0  # a family the rules missed, taken when its model is this sure
    add_thresholds: dict[str, float] = {}  # ... or a family's own, higher bar (as above)
    keep_threshold: float = 1.0  # ... and a rules target, kept whatever the others say
    # a plain question's family stays whatever the models say; one a statement (no question
    # mark) asks in plain words stays while its family's model gives at least this
    statement_threshold: float = 0.0
    # nothing kept, yet the none-model says something is asked (below this): the words-only
    # models' best family is taken when it gives at least `best_threshold`
    asked_threshold: float = 0.0
    best_threshold: float = 1.0
    regularization: float  # C of the logistic regression
    trained_on: dict[str, str]  # bank part -> sha256 of its file
    token_vectors: str = ""  # sha256 of the token vectors the meaning weights were trained on
    families: dict[str, FamilyWeights]
    words_only: dict[str, FamilyWeights]  # per family, on the words alone
    none: FamilyWeights  # the message asks about no family (rules: targeted count, best scores)

    @model_validator(mode="after")
    def _inputs_exist(self) -> LearnedWeights:
        """Weights for rules inputs the matcher doesn't give would weigh nothing, silently
        (weights from a newer script): refuse them."""
        wide = [w for w in self.families.values() if len(w.rules) > RULES_VIEW] + [
            w for w in (*self.words_only.values(), self.none) if len(w.rules) > OVERALL_VIEW
        ]
        if wide:
            raise ValueError(
                "weights for more rules inputs than the matcher gives: retrain with "
                "scripts/train_intent_model.py"
            )
        return self


def probability(
    weights: FamilyWeights,
    words: frozenset[str],
    rules_view: tuple[float, ...] = (0.0, 0.0, 0.0),
    ev: Evidence | None = None,
) -> float:
    z = weights.intercept + math.fsum(weights.ngrams[g] for g in weights.ngrams.keys() & words)
    z += sum(w * x for w, x in zip(weights.rules, rules_view, strict=False))  # may stop short
    if weights.meaning and ev is not None and ev.norm:
        # fsum of the products (each as Python's float * int rounds it), never a BLAS dot:
        # the same sum on every machine
        products = weights.meaning_array * np.asarray(ev.meaning, dtype=np.float64)
        z += math.fsum(products.tolist()) / ev.norm
    if z < 0:  # exp of a large positive number overflows
        return math.exp(z) / (1.0 + math.exp(z))
    return 1.0 / (1.0 + math.exp(-z))


@cache
def load_weights(path: Path = WEIGHTS) -> LearnedWeights:
    return LearnedWeights.model_validate(json.loads(path.read_text()))


class LearnedMatcher:
    name = "learned"
    session_independent = True

    def __init__(self, weights: LearnedWeights | None = None) -> None:
        self.weights = weights or load_weights()
        # A family added since the weights were trained: its rules verdict stands, unchecked.
        self.untrained = frozenset(
            f
            for f in REGISTRY
            if f not in self.weights.families or f not in self.weights.words_only
        )
        if self.untrained:
            warnings.warn(
                f"the learned intent weights don't know {', '.join(sorted(self.untrained))}: "
                "the rules matcher reads them (retrain with scripts/train_intent_model.py)",
                stacklevel=2,
            )
        # one reading per message serves every session (see RulesMatcher)
        self._every_family = lru_cache(maxsize=READINGS_KEPT)(
            lambda message: self.read_evidence(evidence(message))
        )

    def read(self, message: str, families: Sequence[str]) -> Reading:
        reading, vetoed = self._every_family(message)
        vetoed = sorted(set(vetoed) & set(families))
        return reading.held(families, note=f"vetoed: {', '.join(vetoed)}" if vetoed else "")

    def read_evidence(self, ev: Evidence) -> tuple[Reading, frozenset[str]]:
        """The reading of a message over every family, and the rules targets the models vetoed
        (from its evidence: the trainer reads each message under many thresholds)."""
        # nothing asked, or only generic questions (the whole input or output): nothing to say
        if all(q.generic for q in ev.reading.questions):
            return ev.reading.model_copy(update={"matcher": self.name}), frozenset()
        w = self.weights
        targeted = {f for f, (t, *_) in ev.rules.items() if t}
        # What the words alone say is asked: keeps a rules target whatever the none-model says
        # (`keep_threshold`), takes a family the rules missed in a mechanism they left free.
        words = {
            f: probability(w.words_only[f], ev.prose, ev=ev)
            for f in REGISTRY
            if f not in self.untrained
        }
        sure = {
            f for f, p in words.items() if p >= max(w.add_threshold, w.add_thresholds.get(f, 0.0))
        }
        family = {
            f: probability(w.families[f], ev.words(f), ev.rules[f], ev)
            for f in targeted - self.untrained
        }
        # a plain question, or one quoting the user's cue (cues.py), is about it: never vetoed;
        # a statement in plain words ("I'll read 'plain yes or no' as `"yes"`/`"no"`, and log
        # each result") may only restate what the draft does: its family's model may judge it
        plainly = [(f, "?" in q.text) for q in ev.reading.questions for f in q.plainly]
        # One model sure of a family outweighs the others only while the other model of that
        # family leans its way (`lean_threshold`): the words-only model's keep of a family no
        # sentence names plainly, unless the family's model all but rejects it; below, the
        # family's model's overrule.
        named = {f for f, _ in plainly}
        stays = {
            f
            for f in targeted
            if words.get(f, 0.0) >= w.keep_threshold
            and (f in named or family.get(f, 1.0) >= w.lean_threshold)
        }
        stays |= targeted & {f for f, asked in plainly if asked}
        stated = targeted & named - stays
        stays |= {f for f in stated if family.get(f, 1.0) >= w.statement_threshold}
        # The none-model knows how messages of a kind usually go (a HumanEval reply mostly asks
        # about the task's own logic); a family's model all but certain of its question outweighs
        # that, when the words alone lean its way too.
        nothing = probability(w.none, ev.ngrams, ev.overall, ev)
        if nothing >= w.none_threshold:
            bar, lean = w.overrule_threshold, w.lean_threshold
        else:
            bar, lean = w.threshold, 0.0
        kept = stays | {
            f
            for f, p in family.items()
            if p >= max(bar, w.family_thresholds.get(f, 0.0)) and words[f] >= lean
        }
        kept |= targeted & self.untrained
        taken = {REGISTRY[f].mechanism for f in kept}
        # What the models add: not a family whose words the asking sentences speak of about
        # something else (the case of the input, the form of the output: the rules' frame holds for
        # what the models add too), nor, beside what the rules kept, one none of whose words they
        # hold (the models' words, "as usual", then speak of another family's habit). The best
        # guess, when nothing is kept yet something is asked, may be a family whose words the
        # question lacks (a paraphrase the rules miss).
        framed = {f for f in words if not other_frame(f, ev.asking)}
        added = {
            f
            for f in (sure & framed) - targeted
            if REGISTRY[f].mechanism not in taken and ev.rules[f][1] > 0
        }
        if not kept and not added and nothing < w.asked_threshold and framed:
            best = max(sorted(framed), key=words.__getitem__)
            added = {best} if words[best] >= w.best_threshold else set()
        vetoed = targeted - kept
        questions = list(ev.reading.questions)
        for f in sorted(added):  # on the question that came closest, else the first
            i = next((i for i, q in enumerate(questions) if q.best and q.best.family == f), 0)
            questions[i] = questions[i].model_copy(update={"targets": (*questions[i].targets, f)})
        reading = Reading(
            matcher=self.name,
            asking_sentences=ev.reading.asking_sentences,
            questions=tuple(
                q.model_copy(update={"targets": tuple(f for f in q.targets if f not in vetoed)})
                for q in questions
            ),
        )
        return reading, frozenset(vetoed)


@register("learned")
def _make(**_) -> LearnedMatcher:
    return LearnedMatcher()
