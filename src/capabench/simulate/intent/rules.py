"""The `rules` matcher: each family's vocabulary (its concept's words; generic ones only next
to the family's subject) over every asking sentence, clause by clause. Generic words decide
only when no family is named outright, and not for a family the message never names while it
names others; siblings of one mechanism that both reach the threshold are both asked about. A
sentence that names nothing itself and refers back ("What was that?", "Correct me if not.") is
read with the sentences before it. Tuned on the bank's tune and dev parts, measured on its
held-out part (benchmarks/user_fidelity.py)."""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import NamedTuple

from capabench.conventions import REGISTRY
from capabench.messages import sentences
from capabench.simulate.intent.base import Candidate, QuestionReading, Reading, register
from capabench.simulate.intent.cues import quoted_cues
from capabench.simulate.intent.frames import named_before, other_frame, without_number_as_text
from capabench.simulate.intent.generic import generic
from capabench.simulate.intent.literals import Alternation, LiteralIndex
from capabench.simulate.intent.reordered import reordered
from capabench.simulate.intent.text import STATEMENT_BREAK, Question, invites, questions_of

THRESHOLD = 1.0
READINGS_KEPT = 4096  # messages whose reading a matcher keeps
_ASPECT_ALONE = 0.5  # a generic word without its subject: reported as a candidate, never targets
_NEAR = 40  # characters between an aspect word and its subject for them to count together
# snake_case identifiers (the task's function, its parameters) are names: `sort_third` asks no sort
_IDENTIFIER = re.compile(r"\b(?!snake_case\b)[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]\b")
# A word quoted from the task ("distinct" in the docstring) is the task's, not a habit's.
_TASK_TERM = re.compile(
    r"[\"“'][^\"”'\n]{1,40}[\"”'] (?:in|from|of) the (?:docstring|spec|task|prompt|description|issue|examples?)\b",
    re.I,
)
# camelCase names (`sortThird`) are identifiers too
_CAMEL = re.compile(r"\b(?!camel|pascal|mixed|snake|kebab)[a-z]+[A-Z][A-Za-z0-9]*\b")
_CODE_PATH = re.compile(r"`[\w/-]*[/-][\w/-]*`")  # `feature/sort-third` (a file name keeps its dot)
# A bare name in backticks is the user's identifier (`unique`, `l`) unless it is Python's own
# (`None`, `repr`, `print`, `int`), which does say what is asked.
_CODE_NAME = re.compile(r"`([A-Za-z_]\w*)(?:\(\))?`")
_PYTHON_NAMES = (
    frozenset(dir(builtins))
    | frozenset(keyword.kwlist)
    | {"json", "logging", "sys", "stderr", "stdout"}
)
# Clauses of one sentence that ask separately ("what container..., and how should the number
# be written?"): a concept named in one doesn't silence the other's generic words.
_CLAUSE = re.compile(
    r",?\s+(?:and|but|also|plus|or)\s+(?=(?:how|what|which|where|when|whether|should|do|does|is|are|can|could|would|will|if)\b)|;\s+"
)


@cache
def _vocabulary(family: str) -> tuple[Alternation, Alternation, Alternation, Alternation]:
    v = REGISTRY[family].vocabulary
    return tuple(Alternation(p) for p in (v.anchors, v.aspects, v.subjects, v.ignore))


@cache
def _literals() -> LiteralIndex:
    alternations = [a for f in REGISTRY for a in (*_vocabulary(f), _plain_questions(f))]
    return LiteralIndex(frozenset(lit for a in alternations for lit in a.literals))


# The last texts whose literals were found, biggest first read: a read asks again of every
# clause and sentence inside the message's text, whose literals are among the text's.
_recent: tuple[tuple[str, frozenset[str]], ...] = ()


@lru_cache(maxsize=256)  # a read asks of each text once per family
def _occurring(text: str) -> frozenset[str]:
    """Which of the vocabularies' literals occur in a text."""
    global _recent
    for big, occur in _recent:  # a tuple, replaced whole: safe to read from any thread
        if text in big:
            return frozenset(lit for lit in occur if lit in text)
    occur = _literals().occurring(text)
    _recent = ((text, occur), *_recent[:3])
    return occur


@lru_cache(maxsize=4096)  # the same texts' literals, for the read and for the score
def _compiled(family: str, occur: frozenset[str]):
    """The family's anchors, aspects, subjects and ignore patterns (None: none of its
    alternatives can match a text in which `occur` occur, or the family has none)."""
    return tuple(a.narrowed(occur) for a in _vocabulary(family))


@lru_cache(maxsize=1024)
def _read_as(family: str, text: str) -> tuple[str, frozenset[str]]:
    """The text with what the family ignores taken out, and the literals occurring in it."""
    occur = _occurring(text)
    ignore = _compiled(family, occur)[3]
    if ignore is None:
        return text, occur
    stripped = ignore.sub(" ", text)
    if stripped == text:
        return text, occur
    # A literal in the stripped text occurs in the original, or spans a space put in
    ours, spaced = _family_literals(family)
    return stripped, frozenset(lit for lit in (occur & ours) | spaced if lit in stripped)


@cache
def _family_literals(family: str) -> tuple[frozenset[str], frozenset[str]]:
    """The family's literals, and those of them with a space."""
    ours = frozenset(lit for a in _vocabulary(family) for lit in a.literals)
    return ours, frozenset(lit for lit in ours if " " in lit)


@lru_cache(maxsize=2048)  # a clause recurs: in its question, in its context, in the whole
def score(family: str, text: str) -> tuple[int, float, tuple[str, ...]]:
    """How a (lowercased) text speaks of a family: its distinct anchor words, and its
    distinct aspect words with a subject close by (0.5 when no aspect has one), with the
    evidence."""
    if not _may_speak_of(family, _occurring(text)):
        return 0, 0.0, ()  # none of its words occur (what `ignore` takes out only lowers it)
    text, occur = _read_as(family, text)
    anchors, aspects, subjects, _ = _compiled(family, occur)
    found = sorted({m.group(0).strip() for m in anchors.finditer(text)}) if anchors else []
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
    return strong, weak, tuple(found)


def _may_occur(text: str) -> frozenset[str]:
    """The families one of whose anchor or aspect alternatives may match in a (lowercased)
    text: a literal it can't match without occurs there."""
    occur = _occurring(text)
    return frozenset(family for family in REGISTRY if _may_speak_of(family, occur))


def _may_speak_of(family: str, occur: frozenset[str]) -> bool:
    """Whether one of the family's anchors or aspects may match where `occur` occur."""
    anchors, aspects = _vocabulary(family)[:2]
    return anchors.may_match(occur) or aspects.may_match(occur)


def _near(aspects: re.Pattern, subjects: re.Pattern | None, text: str) -> list[str]:
    """The distinct aspect words that have one of the family's subjects close by."""
    if subjects is None:
        return []
    spans = [(m.start(), m.end(), m.group(0).strip()) for m in subjects.finditer(text)]
    found: dict[str, str] = {}
    for aspect in aspects.finditer(text):
        word = aspect.group(0).strip()
        for start, end, subject in spans:
            inside = start <= aspect.start() and aspect.end() <= end  # "at once" is no "once"
            if (
                word not in found
                and not inside
                and start - _NEAR <= aspect.end()
                and aspect.start() <= end + _NEAR
            ):
                found[word] = f"{word}+{subject}"
    return list(found.values())


@lru_cache(maxsize=2048)  # a question's text is read as plain text by several steps
def plain(text: str) -> str:
    """The text as the vocabularies read it: lowercased, identifiers and quoted task terms out."""
    text = _TASK_TERM.sub(" ", text)
    text = _CODE_NAME.sub(lambda m: m.group(0) if m.group(1) in _PYTHON_NAMES else " ", text)
    text = _CODE_PATH.sub(" ", text)
    return _IDENTIFIER.sub(" ", _CAMEL.sub(" ", text).lower()).replace("`", "")


def candidates(
    text: str,
    leaning: dict[str, float] | None = None,
    names: frozenset[str] = frozenset(),
    present: frozenset[str] | None = None,
) -> list[Candidate]:
    """Every family's score for a text, best first: per clause, the best of its clauses.
    `present`: the only families whose words occur at all (the others score nothing)."""
    best: dict[str, Candidate] = {}
    for clause in _CLAUSE.split(plain(text)):
        for c in _clause_candidates(clause, leaning or {}, names, present):
            if c.family not in best or c.score > best[c.family].score:
                best[c.family] = c
    return sorted(best.values(), key=lambda c: (-c.score, c.family))


def _clause_candidates(
    lowered: str,
    leaning: dict[str, float],
    names: frozenset[str],
    present: frozenset[str] | None = None,
) -> list[Candidate]:
    """Generic aspect words decide only when no family is named outright, and then only the
    family with the most of them (ties: the one the message speaks of more): a question
    that names one concept ("which letter case for the returned string?") is about that
    concept, not about every family "string" could serve."""
    scored = {f: score(f, lowered) for f in (REGISTRY if present is None else present)}
    focused = any(strong for strong, _, _ in scored.values())
    weak_key = {
        f: (weak, leaning.get(f, 0.0)) for f, (strong, weak, _) in scored.items() if not strong
    }
    top_weak = max(weak_key.values(), default=(0.0, 0.0))
    found = []
    for family, (strong, weak, evidence) in scored.items():
        if (strong or weak) and other_frame(family, lowered):
            strong, weak = 0, min(weak, _ASPECT_ALONE) or _ASPECT_ALONE
        elsewhere = bool(names) and family not in names and weak < 2  # the message is about others
        if not strong and (focused or elsewhere or weak_key[family] < top_weak):
            weak = min(weak, _ASPECT_ALONE)  # kept as a candidate, never a target
        value = strong + weak
        if value > 0:
            found.append(Candidate(family=family, score=value, evidence=", ".join(evidence)))
    return sorted(found, key=lambda c: (-c.score, c.family))


class Analysis(NamedTuple):
    reading: Reading
    asked: list[Question]  # the message's asking sentences, one per reading question
    leaning: dict[str, float]  # each family's score over all of them together
    # the questions (by index) that said nothing themselves and were read with what they
    # refer back to ("Tell me and I'll adjust it.")
    with_context: frozenset[int]


class RulesMatcher:
    name = "rules"
    session_independent = True  # a family's score doesn't depend on the other one held

    def __init__(self) -> None:
        # one reading per message serves every session (a reference policy asks the same
        # questions in hundreds of sessions)
        self._every_family = lru_cache(maxsize=READINGS_KEPT)(
            lambda message: self.analyse(message, sorted(REGISTRY)).reading
        )

    def read(self, message: str, families: Sequence[str]) -> Reading:
        return self._every_family(message).held(families)

    def analyse(self, message: str, families: Sequence[str]) -> Analysis:
        """The reading, and what it rests on."""
        asked = questions_of(message)
        # every sentence once (a question's context is its neighbours' text; a list's heading once):
        # a family's score counts distinct words, so the repeats only cost time on long messages
        pieces = [s for q in asked for s in (*sentences(q.context), q.heading, q.own) if s]
        whole = " ".join(dict.fromkeys(pieces))
        # The whole message's leaning (generic words tied in one clause go to the family the
        # message speaks of more) and the families it names outright.
        lowered = plain(whole)
        # Only a family one of whose words may occur in everything read here can score in
        # any part of it (what its `ignore` takes out only lowers a score): those are read,
        # family by family; their scores per clause say which the message names outright.
        clauses = _CLAUSE.split(lowered)
        scores = {f: [score(f, c) for c in clauses] for f in _may_occur(lowered)}
        present = frozenset(scores)
        names = frozenset(f for f in present if any(a for a, _, _ in scores[f]))
        leaning = {c.family: c.score for c in candidates(whole, present=present)}
        readings, with_context = [], set()
        for i, question in enumerate(asked):
            # a list item in its own words first: its heading ("I don't know what was
            # agreed:") says what it asks about only when the item doesn't say it itself
            read = question.own
            found = candidates(_without_returns(read), leaning, names, present)
            quoted, plainly = quoted_cues(read), asked_plainly(read)
            if read != question.text and not (_targets(found, REGISTRY) or quoted or plainly):
                read = question.text
                found = candidates(_without_returns(read), leaning, names, present)
                quoted, plainly = quoted_cues(read), asked_plainly(read)
            # (what a question asks plainly, or the cue it quotes, it says itself)
            if (
                question.context
                and question.elliptical
                and not (_targets(found, REGISTRY) or quoted or plainly)
            ):
                found = _with_antecedent(question, leaning, names, present)
                with_context.add(i)
            if question.context and question.elliptical:
                # a question that refers back asks in the frame of what it refers to ("call the
                # inner helper `_idx`? which name reads better?"; "the parameter is `l`: rename it?")
                near = plain(" ".join([*sentences(question.context)[-1:], read]))
                plainly = tuple(f for f in plainly if not other_frame(f, near))
                found = [c for c in found if not named_before(c.family, near)]
            # a question about the user's own words asks about what they stand for, and so
            # does a plain question about a family's concept; a generic question reveals
            # nothing, whatever its words serve
            is_generic = not quoted and generic(read)
            targets = [] if is_generic else _targets(found, families)
            targets += [f for f in quoted if f in families and f not in targets]
            plainly = () if is_generic else plainly
            # a plain question reaches its family, beside a sibling the words found ("a dict,
            # or a string?" asks about the envelope and the text format both)
            targets += [f for f in plainly if f in families and f not in targets]
            targets, plainly = without_number_as_text(targets, plainly, quoted, read)
            readings.append(
                QuestionReading(
                    text=question.text,
                    targets=tuple(targets),
                    best=found[0] if found else None,
                    # (a statement of what the draft does, put up, asks nothing plainly)
                    plainly=() if question.put_up else tuple(sorted({*plainly, *quoted})),
                    generic=is_generic,
                )
            )
        # What the draft does is put up for correction by an invitation that names nothing
        # itself ("tell me if it should differ") or opens everything ("if your logs or anything
        # else should differ"); one that names something ("if you need it logged, tell me"; "if
        # your usual call expects something else") asks about that, not every choice made.
        if not any(
            invites(q.text) and not q.put_up and (not r.targets or _ANY_CHANGE.search(q.text))
            for q, r in zip(asked, readings, strict=True)
        ):
            readings = [
                r.model_copy(update={"targets": (), "plainly": ()}) if q.put_up else r
                for q, r in zip(asked, readings, strict=True)
            ]
        reading = Reading(matcher=self.name, asking_sentences=len(asked), questions=tuple(readings))
        return Analysis(reading, asked, leaning, frozenset(with_context))


# "anything else", "everything", "correct me on any": it reaches back to all the draft does
_ANY_CHANGE = re.compile(r"\b(?:anything|everything|any other|any of|any\W*$)", re.I)

_RETURNS_NOW = re.compile(
    r"^\(?\s*(?:so |right now,? |currently,? |for now,? )?(?:this|it|the function|the code|that)?\s*"
    r"(?:just |simply |currently |now |already |only )?returns?\b[^?]*$",
    re.I,
)


# ("It returns `True`/`False`, so tell me if it should print instead.")
_RETURNS_BREAK = re.compile(rf"{STATEMENT_BREAK.pattern}|,\s+so\s+")


def _without_returns(text: str) -> str:
    """A clause saying what the draft returns now ("This just returns `True`/`False`; if you
    need it printed, tell me") states it: the clauses beside it ask."""
    clauses = _RETURNS_BREAK.split(text)
    kept = [c for c in clauses if not _RETURNS_NOW.match(c.strip())]
    return " ".join(kept) if kept and len(kept) < len(clauses) else text


# A sentence that points at several things said before ("correct me on any of them", "tell me about
# both", "lmk"); any other ("I don't know where that is.", "Tell me and I'll adapt it.")
# points at the nearest that says something.
_POINTS_AT_MANY = re.compile(
    r"\b(?:those|these|both|them|all of (?:it|this|that|them)|each|any of|lmk)\b", re.I
)


def _with_antecedent(question: Question, leaning, names, present) -> list[Candidate]:
    """An elliptical question read with what it refers back to: the nearest sentence first
    ("I don't know where that is." after "you'll check the result where you always look";
    "Tell me and I'll adapt it." after "I don't know the format we settled on", not the
    draft's logging said before it), then further back while nothing reaches a family; what
    points at several things with all of its context."""
    before = sentences(question.context) if not _POINTS_AT_MANY.search(question.text) else []
    for k in range(1, len(before)):
        found = candidates(" ".join([*before[-k:], question.text]), leaning, names, present)
        if _targets(found, REGISTRY):
            return found
    return candidates(f"{question.context} {question.text}", leaning, names, present)


@cache
def _plain_questions(family: str) -> Alternation:
    return Alternation(REGISTRY[family].vocabulary.questions)


def asked_plainly(question: str) -> tuple[str, ...]:
    """The families (of all) whose plain questions an asking sentence matches."""
    text = plain(question)
    occur = _occurring(text)
    found = {
        f
        for f in REGISTRY
        if (asked := _plain_questions(f).narrowed(occur)) is not None
        and asked.search(text)
        and not other_frame(f, text)
    }
    return tuple(sorted(found.union(reordered(question))))


def _targets(found: list[Candidate], families) -> list[str]:
    """Families at or over the threshold in the question itself. Siblings of one mechanism
    both count when each reaches it: "printed, or written to a file?" asks about the log and
    the file (a user holds one of them, and hears about that one; docs/measurements.md)."""
    return [c.family for c in found if c.score >= THRESHOLD and c.family in families]


@register("rules")
def _make(**_) -> RulesMatcher:
    return RulesMatcher()
