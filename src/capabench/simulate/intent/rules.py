"""The `rules` matcher: each family's vocabulary (its concept's words, generic ones only
next to the family's subject) over every asking sentence; a sentence that names nothing
itself and refers back ("What was that?") is read with the sentences before it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from capabench.conventions import REGISTRY
from capabench.simulate.intent.base import Candidate, QuestionReading, Reading
from capabench.simulate.intent.text import questions_of

THRESHOLD = 1.0
_ASPECT_ALONE = 0.5  # a generic word without its subject: reported as a candidate, never targets
_NEAR = 40  # characters between an aspect word and its subject for them to count together
# snake_case identifiers (the task's function, its parameters) are names, not concept words:
# `sort_third` is not a question about sorting.
_IDENTIFIER = re.compile(r"\b(?!snake_case\b)[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b")


@cache
def _compiled(family: str):
    v = REGISTRY[family].vocabulary
    join = lambda patterns: re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None  # noqa: E731
    return join(v.anchors), join(v.aspects), join(v.subjects), join(v.ignore)


def score(family: str, text: str) -> tuple[int, float, list[str]]:
    """How a (lowercased) text speaks of a family: its distinct anchor words, and its
    distinct aspect words with a subject close by (0.5 when no aspect has one), with the
    evidence."""
    anchors, aspects, subjects, ignore = _compiled(family)
    if ignore is not None:
        text = ignore.sub(" ", text)
    found = sorted({m.group(0).strip() for m in anchors.finditer(text)})
    strong = len(found)
    weak = 0.0
    if aspects is not None:
        near = _near(aspects, subjects, text)
        if near:
            weak = float(len(near))
            found += near
        elif (alone := aspects.search(text)) is not None:
            weak = _ASPECT_ALONE
            found.append(alone.group(0).strip())
    return strong, weak, found


def _near(aspects: re.Pattern, subjects: re.Pattern | None, text: str) -> list[str]:
    """The distinct aspect words that have one of the family's subjects close by."""
    if subjects is None:
        return []
    spans = [(m.start(), m.end(), m.group(0).strip()) for m in subjects.finditer(text)]
    found: dict[str, str] = {}
    for aspect in aspects.finditer(text):
        word = aspect.group(0).strip()
        for start, end, subject in spans:
            if (
                word not in found
                and start - _NEAR <= aspect.end()
                and aspect.start() <= end + _NEAR
            ):
                found[word] = f"{word}+{subject}"
    return list(found.values())


def candidates(text: str) -> list[Candidate]:
    """Every family's score for a text, best first. Generic aspect words decide only when no
    family is named outright, and then only the family with the most of them: a question
    that names one concept ("which letter case for the returned string?") is about that
    concept, not about every family "string" could serve."""
    lowered = _IDENTIFIER.sub(" ", text.lower()).replace("`", "")
    scored = {f: score(f, lowered) for f in REGISTRY}
    focused = any(strong for strong, _, _ in scored.values())
    top_weak = max((weak for strong, weak, _ in scored.values() if not strong), default=0.0)
    found = []
    for family, (strong, weak, evidence) in scored.items():
        if not strong and (focused or weak < top_weak):
            weak = min(weak, _ASPECT_ALONE)  # kept as a candidate, never a target
        value = strong + weak
        if value > 0:
            found.append(Candidate(family=family, score=value, evidence=", ".join(evidence)))
    return sorted(found, key=lambda c: (-c.score, c.family))


class RulesMatcher:
    name = "rules"
    session_independent = True  # a family's score doesn't depend on the other one held

    def read(self, message: str, families: Sequence[str]) -> Reading:
        asked = questions_of(message)
        # The whole message's leaning: siblings tied in one sentence go to the one the
        # message speaks of more.
        leaning = {c.family: c.score for c in candidates(" ".join(q.text for q in asked))}
        readings = []
        for question in asked:
            found = candidates(question.text)
            elliptical = question.refers_back or len(question.text.split()) <= 5
            if question.context and elliptical and not _targets(found, REGISTRY, leaning):
                found = candidates(f"{question.context} {question.text}")
            readings.append(
                QuestionReading(
                    text=question.text,
                    targets=tuple(_targets(found, families, leaning)),
                    best=found[0] if found else None,
                )
            )
        return Reading(matcher=self.name, questions=tuple(readings))


def _targets(found: list[Candidate], families, leaning: dict[str, float]) -> list[str]:
    """Families at or over the threshold, and within a mechanism only the best: a user
    holds one family per mechanism, so siblings compete for the same words ("where do you
    look for it": a log, or a file?) and the stronger reading wins (ties: the message's)."""
    rank = {c.family: (c.score, leaning.get(c.family, 0.0)) for c in found if c.score >= THRESHOLD}
    best: dict = {}
    for family, key in rank.items():
        mechanism = REGISTRY[family].mechanism
        best[mechanism] = max(best.get(mechanism, key), key)
    return [
        c.family
        for c in found
        if c.family in rank
        and rank[c.family] == best[REGISTRY[c.family].mechanism]
        and c.family in families
    ]
