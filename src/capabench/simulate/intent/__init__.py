"""Intent recognition, the simulated user's first step: which of the session's convention
families an assistant message asks about. One protocol (`IntentMatcher.read`), matchers
registered by name and imported on first use (`semantic` needs the embeddings extra, `llm`
a user model):

  rules     each family's concept vocabulary over the message's asking sentences (default)
  semantic  MiniLM sentence embeddings against each family's exemplar questions
  llm       the user model classifies each question; unreadable answers fall back to rules
"""

from __future__ import annotations

from collections.abc import Callable

from capabench.simulate.intent.base import Candidate, IntentMatcher, QuestionReading, Reading
from capabench.simulate.intent.text import Question, questions, questions_of

DEFAULT_MATCHER = "rules"


def _rules(**_) -> IntentMatcher:
    from capabench.simulate.intent.rules import RulesMatcher

    return RulesMatcher()


def _semantic(**_) -> IntentMatcher:
    from capabench.simulate.intent.semantic import SemanticMatcher

    return SemanticMatcher()


def _llm(*, model=None, **_) -> IntentMatcher:
    from capabench.simulate.intent.llm import LLMMatcher

    if model is None:
        raise ValueError("the llm intent matcher needs a user model (--user-model)")
    return LLMMatcher(model)


MATCHERS: dict[str, Callable[..., IntentMatcher]] = {
    "rules": _rules,
    "semantic": _semantic,
    "llm": _llm,
}


def make_matcher(name: str = DEFAULT_MATCHER, **kwargs) -> IntentMatcher:
    if name not in MATCHERS:
        raise ValueError(f"unknown intent matcher {name!r}; known: {', '.join(MATCHERS)}")
    return MATCHERS[name](**kwargs)


__all__ = [
    "DEFAULT_MATCHER",
    "MATCHERS",
    "Candidate",
    "IntentMatcher",
    "Question",
    "QuestionReading",
    "Reading",
    "make_matcher",
    "questions",
    "questions_of",
]
