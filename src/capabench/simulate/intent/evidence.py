"""What the `learned` matcher's models read of a message (`Evidence`): the rules matcher's
reading over every family and what it rests on, the asking sentences' words, the words of the
message's code, and the sentences' meaning (WordPiece tokens summed over static token vectors
distilled from MiniLM, `token_vectors.npz`, scripts/distill_token_vectors.py), so a word no bank
message used still weighs by what it means. The meaning vector is a sum of int8 rows (exact):
the same on every machine."""

from __future__ import annotations

import itertools
import math
import re
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from capabench.conventions import REGISTRY
from capabench.messages import code_spans
from capabench.simulate.intent.base import Reading
from capabench.simulate.intent.rules import RulesMatcher, plain
from capabench.simulate.intent.text import Question

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
    """MiniLM's WordPiece split (the longest known piece first); drops a word with unknown pieces."""
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
    # rules set aside ("It logs at INFO." before "Tell me the format we settled on."), not even
    # as what an elliptical question refers back to
    questions = list(zip(read, reading.questions, asked, strict=True))
    aside = [a.text for _, q, a in questions if a.put_up and not q.targets]
    drop = re.compile("|".join(map(re.escape, aside))) if aside else None
    specific = [
        plain(drop.sub("", t) if drop else t)
        for t, q, a in questions
        if not q.generic and a.text not in aside
    ]
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
