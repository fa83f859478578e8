"""Intent recognition, the simulated user's first step: which of the session's convention
families an assistant message asks about. One protocol (`IntentMatcher.read`), matchers
registered by name, one module each, imported on the registry's first lookup (`semantic`
needs the embeddings extra when it reads, `llm` a user model):

  learned   the rules' reading, checked by small models trained on the question bank (default)
  rules     each family's concept vocabulary over the message's asking sentences
  semantic  MiniLM sentence embeddings against each family's exemplar questions
  llm       the user model classifies each question; unreadable answers fall back to rules
"""

from __future__ import annotations

from capabench.simulate.intent.base import (
    MATCHERS,
    Candidate,
    IntentMatcher,
    QuestionReading,
    Reading,
)
from capabench.simulate.intent.text import Question, questions, questions_of

DEFAULT_MATCHER = "learned"


def check_matcher(name: str, *, has_model: bool) -> None:
    """Refuse a matcher that can't be made (before a run starts, also where workers make it)."""
    if name not in MATCHERS:
        raise ValueError(f"unknown --user-matcher {name!r}; known: {', '.join(sorted(MATCHERS))}")
    if name == "llm" and not has_model:
        raise ValueError(
            "--user-matcher llm needs --user-model (the user model reads the questions)"
        )


def make_matcher(name: str = DEFAULT_MATCHER, **kwargs) -> IntentMatcher:
    check_matcher(name, has_model=kwargs.get("model") is not None)
    return MATCHERS[name](**kwargs)


__all__ = [
    "DEFAULT_MATCHER",
    "MATCHERS",
    "Candidate",
    "IntentMatcher",
    "Question",
    "QuestionReading",
    "Reading",
    "check_matcher",
    "make_matcher",
    "questions",
    "questions_of",
]
