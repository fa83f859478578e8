"""The `learned` matcher (the default): the rules matcher's reading, checked by small learned models
that have seen how real assistants word questions about each family and about nothing a user's
conventions settle.

Logistic regressions over the asking sentences' words (the plain text the rules read: identifiers
and quoted task terms left out), the words of the message's code (a draft's `return "yes" if ok
else "no"` is what "which return should stay?" asks about) and the sentences' meaning (WordPiece
tokens summed over static token vectors distilled from MiniLM, `token_vectors.npz`,
scripts/distill_token_vectors.py), so a word no bank message used still weighs by what it means:
- per family, on the questions the rules found it in and how they reached it (`how_asked`):
  may veto a rules target;
- once, whether the message asks about none of the families: may veto every rules target
  but one its family's model is all but certain of;
- per family on the asking sentences' words alone (not the code's): when sure, keeps a rules target
  and takes a family the rules missed in a mechanism they left free (a user holds one family per
  mechanism) if one of its words is asked about; when nothing is kept yet something is asked, its
  best family may be taken.
`LearnedWeights` names the thresholds each step uses. A rules target whose cue (the user's own
words in the request) an asking sentence quotes (cues.py), or that a plain question about its
concept asks, always stays.

Why: the rules' concept words also turn up in questions about other things (a near miss:
"should I format the file with black?"), and everyday wordings escape any word list. What the
models change on parts of the bank neither was written on: docs/measurements.md.

Weights are package data (`learned_weights.json`, written by scripts/train_intent_model.py from
tuned parts only; the held-out parts never enter it). Inference is a sum of weights; the meaning
vector is a sum of int8 rows (exact) read with math.fsum: the same reading on every machine."""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings
from collections.abc import Sequence
from functools import cache, cached_property, lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from capabench.conventions import REGISTRY
from capabench.messages import code_spans
from capabench.simulate.intent.base import Reading, register
from capabench.simulate.intent.frames import other_frame
from capabench.simulate.intent.rules import READINGS_KEPT, RulesMatcher, plain
from capabench.simulate.intent.text import Question

WEIGHTS = Path(__file__).with_name("learned_weights.json")
TOKEN_VECTORS = Path(__file__).with_name("token_vectors.npz")
_TOKEN = re.compile(r"[a-z][a-z'/-]+")
# in code: a name, a short string literal, a bracket, a number
_CODE_TOKEN = re.compile(r"[A-Za-z_]\w*|\"[^\"\n]{0,30}\"|'[^'\n]{0,30}'|[{}\[\]()]|\d+")
_CAP = 3.0  # rules scores above this carry no more information
_UNASKED = (0.0, 0.0, 0.0, 0.0)  # `how_asked` of a family no question reaches
# how many rules inputs each model is given: a family's (Evidence.rules: targeted, two scores,
# `how_asked`'s) and the none-model's (Evidence.overall; the words-only models get zeros)
OVERALL_VIEW = 3
RULES_VIEW = OVERALL_VIEW + len(_UNASKED)


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
    none_threshold: float = 0.5  # every rules target goes when the none-model gives this
    overrule_threshold: float = 1.0  # ... except one its family's model gives at least this
    add_threshold: float = 1.0  # a family the rules missed, taken when its model is this sure
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


class Evidence(BaseModel):
    """What the models read of one message: its n-grams and code words and, per family,
    the rules' (targeted, score over the message, best score in one question)."""

    model_config = ConfigDict(frozen=True)

    ngrams: frozenset[str]
    # the (not generic) asking sentences' n-grams alone: what a family the rules missed is taken
    # on (a draft's `return "yes"` says which reading a question has, never that one was asked)
    prose: frozenset[str]
    asking: str  # ... and their text, each with what it refers back to: an added family's frame
    # a targeted family's own questions (those the rules read it in): a message that asks
    # about two families doesn't dilute the one with the other's words
    focus: dict[str, frozenset[str]]
    # per family: targeted, score over the message, best score in one question, then how its
    # questions ask (`how_asked`)
    rules: dict[str, tuple[float, ...]]
    # the asking sentences' tokens summed over the token vectors (exact integers), and its norm
    meaning: tuple[int, ...]
    norm: float
    reading: Reading

    def words(self, family: str | None) -> frozenset[str]:
        """What a family's model reads (its own questions); None: the whole message."""
        return self.focus.get(family, self.ngrams) if family else self.ngrams

    @property
    def overall(self) -> tuple[float, float, float]:
        """The none-model's view of the rules: how many families targeted, the best scores."""
        values = self.rules.values()
        return (
            sum(v[0] for v in values),
            max(v[1] for v in values),
            max(v[2] for v in values),
        )


def ngrams(text: str) -> frozenset[str]:
    words = _TOKEN.findall(text)
    return frozenset(words) | frozenset(f"{a} {b}" for a, b in itertools.pairwise(words))


def code_words(message: str) -> frozenset[str]:
    """What the message's code (fenced blocks, inline spans) shows, as "c:" features: a draft's
    `return "yes" if ok else "no"` or `{"result": out}` says what a question about it asks.
    Training keeps only Python's own names among them (a task's names carry no family)."""
    words = set()
    for span in code_spans(message):
        for token in _CODE_TOKEN.findall(span.strip("`~")):
            token = token.lower()
            words.add(f"c:str:{token[1:-1].strip()}" if token[0] in "\"'" else f"c:{token}")
    return frozenset(words)


_PIECE = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


@cache
def token_vectors(path: Path = TOKEN_VECTORS) -> tuple[dict[str, int], np.ndarray]:
    data = np.load(path)
    tokens = [str(t) for t in data["tokens"]]
    return {t: i for i, t in enumerate(tokens)}, data["vectors"].astype(np.int64)


def _piece(word: str, start: int, end: int) -> str:
    return ("##" if start else "") + word[start:end]  # a word's later pieces carry "##"


def wordpieces(text: str, index: dict[str, int]) -> list[int]:
    """MiniLM's WordPiece split (the longest known piece first); a word with an unknown piece
    is left out."""
    split = _split_known if index is token_vectors()[0] else (lambda w: _split(w, index))
    ids: list[int] = []
    for word in _PIECE.findall(text.lower()):
        ids.extend(split(word))
    return ids


def _split(word: str, index: dict[str, int]) -> tuple[int, ...]:
    pieces, start = [], 0
    while start < len(word):
        ends = range(len(word), start, -1)
        end = next((e for e in ends if _piece(word, start, e) in index), None)
        if end is None:
            return ()
        pieces.append(index[_piece(word, start, end)])
        start = end
    return tuple(pieces)


@lru_cache(maxsize=1 << 15)  # words recur across messages
def _split_known(word: str) -> tuple[int, ...]:
    return _split(word, token_vectors()[0])


def meaning(text: str) -> tuple[tuple[int, ...], float]:
    """The text's tokens summed over the token vectors, and the sum's length."""
    index, vectors = token_vectors()
    ids = wordpieces(text, index)
    total = vectors[ids].sum(0) if ids else np.zeros(vectors.shape[1], np.int64)
    summed = tuple(int(v) for v in total)
    return summed, math.sqrt(sum(v * v for v in summed))


def evidence(message: str) -> Evidence:
    """The model's input for a message: the rules' reading over every family, and what it
    rests on."""
    reading, asked, leaning, with_context = RulesMatcher().analyse(message, sorted(REGISTRY))
    targeted = set(reading.targets(sorted(REGISTRY)))
    best: dict[str, float] = {}
    for q in reading.questions:
        if q.best is not None:
            best[q.best.family] = max(best.get(q.best.family, 0.0), q.best.score)
    # An elliptical question is read with what it refers back to, as the rules read it (not
    # one that says plainly what it asks, or quotes the user's cue)
    read = [
        q.text if r.plainly else q.as_read for q, r in zip(asked, reading.questions, strict=True)
    ]
    texts = [plain(text) for text in read]
    own: dict[str, list[str]] = {}
    for text, q in zip(texts, reading.questions, strict=True):
        for f in q.targets:
            own.setdefault(f, []).append(text)
    summed, norm = meaning(" ".join(read))
    prose = ngrams(" ".join(texts))
    # what the words-only models read: no generic question's words, nor a draft's statement the
    # rules set aside ("It logs at INFO." before "Tell me the format we settled on.")
    pairs = zip(texts, reading.questions, asked, strict=True)
    specific = [t for t, q, a in pairs if not q.generic and not (a.put_up and not q.targets)]
    asking = " ".join(specific)
    return Evidence(
        meaning=summed,
        norm=norm,
        ngrams=prose | code_words(message),
        prose=prose if len(specific) == len(texts) else ngrams(asking),
        asking=asking,
        focus={f: ngrams(" ".join(t)) for f, t in own.items()},
        rules={
            f: (
                float(f in targeted),
                min(leaning.get(f, 0.0), _CAP),
                min(best.get(f, 0.0), _CAP),
                *how_asked(f, reading, asked, with_context),
            )
            for f in sorted(REGISTRY)
        },
        reading=reading,
    )


def how_asked(
    family: str, reading: Reading, asked: list[Question], with_context: frozenset[int]
) -> tuple[float, float, float, float]:
    """How the rules' questions reach a family: only read with what they refer back to ("Tell
    me and I'll adapt it."), only as what the draft does put up for correction, one over the
    fewest families one of them targets, and whether one has a question mark. A short
    invitation or a draft's statement that lands on three families is rarely about each."""
    kinds: set[str] = set()
    fewest, marked = 0, False
    for i, (q, r) in enumerate(zip(asked, reading.questions, strict=True)):
        if family not in r.targets:
            continue
        if family in r.plainly:
            kinds.add("plain")
        elif i in with_context:
            kinds.add("context")
        else:
            kinds.add("up" if q.put_up else "own")
        fewest = min(fewest or len(r.targets), len(r.targets))
        marked = marked or "?" in q.text
    if not kinds:
        return _UNASKED
    return (float(kinds == {"context"}), float(kinds == {"up"}), 1.0 / fewest, float(marked))


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
        self._every_family = lru_cache(maxsize=READINGS_KEPT)(self._read)

    def read(self, message: str, families: Sequence[str]) -> Reading:
        reading, vetoed = self._every_family(message)
        vetoed = sorted(set(vetoed) & set(families))
        return reading.held(families, note=f"vetoed: {', '.join(vetoed)}" if vetoed else "")

    def _read(self, message: str) -> tuple[Reading, frozenset[str]]:
        """The reading over every family, and the rules targets the models vetoed."""
        ev = evidence(message)
        # nothing asked, or only generic questions (the whole input or output): nothing to say
        if all(q.generic for q in ev.reading.questions):
            return ev.reading.model_copy(update={"matcher": self.name}), frozenset()
        w = self.weights
        targeted = {f for f, (t, *_) in ev.rules.items() if t}
        # What the words alone say is asked: keeps a rules target whatever the other models
        # say, and takes a family the rules missed in a mechanism they left free.
        words = {
            f: probability(w.words_only[f], ev.prose, ev=ev)
            for f in REGISTRY
            if f not in self.untrained
        }
        sure = {f for f, p in words.items() if p >= w.add_threshold}
        # a question about the user's own words (cues.py), or a plain question about a
        # family's concept, is about that family: no model vetoes it
        sure |= targeted & {f for q in ev.reading.questions for f in q.plainly}
        nothing = probability(w.none, ev.ngrams, ev.overall, ev)
        family = {
            f: probability(w.families[f], ev.words(f), ev.rules[f], ev)
            for f in targeted - self.untrained - sure
        }
        # The none-model knows how messages of a kind usually go (a HumanEval reply mostly asks
        # about the task's own logic); a family's model all but certain of its question outweighs
        # that.
        bar = w.overrule_threshold if nothing >= w.none_threshold else w.threshold
        kept = (targeted & sure) | {f for f, p in family.items() if p >= bar}
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
