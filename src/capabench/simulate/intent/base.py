"""What intent recognition returns, and the protocol every matcher meets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from capabench.registry import Registry


class Candidate(BaseModel):
    """A family a question may be about, with the matcher's score and its evidence."""

    model_config = ConfigDict(frozen=True)

    family: str
    score: float
    evidence: str = ""


class QuestionReading(BaseModel):
    """One asking sentence: the session's families it targets, and the best candidate over
    every family (what a second opinion starts from when the question revealed nothing)."""

    model_config = ConfigDict(frozen=True)

    text: str
    targets: tuple[str, ...] = ()
    best: Candidate | None = None
    # families (of all) the sentence asks about in plain words (their vocabulary's
    # `questions`): no second opinion takes these away
    plainly: tuple[str, ...] = ()
    # it asks only for the whole input, output or requirements (generic.py): it reveals nothing
    generic: bool = False


class Reading(BaseModel):
    model_config = ConfigDict(frozen=True)

    matcher: str
    # The message's asking sentences (`questions_of`, the detection every matcher shares): the
    # run counts a turn as an ask from this, whatever the matcher made of them.
    asking_sentences: int
    questions: tuple[QuestionReading, ...] = ()
    note: str = Field(default="", description="e.g. why the llm matcher fell back to rules")

    def targets(self, families: Sequence[str]) -> list[str]:
        """The families targeted by any question, in the order of `families`."""
        hit = {f for q in self.questions for f in q.targets}
        return [f for f in families if f in hit]

    def held(self, families: Sequence[str], note: str = "") -> Reading:
        """A reading over every family restricted to a session's `families`: what a
        session-independent matcher's read(message, families) is, so it can read a message
        once for every session."""
        keep = set(families)
        return self.model_copy(
            update={
                "questions": tuple(
                    q.model_copy(update={"targets": tuple(f for f in q.targets if f in keep)})
                    for q in self.questions
                ),
                "note": note or self.note,
            }
        )


class IntentMatcher(Protocol):
    name: str
    # Its reading of a message doesn't depend on which families the session holds, so one
    # reading over every family serves every session (the fidelity measure reads once).
    session_independent: bool

    def read(self, message: str, families: Sequence[str]) -> Reading:
        """Which of `families` (the session's) the message's questions target."""
        ...


# A matcher is one module of this package whose factory (keywords: `model`, the user model or
# None) calls `register(name)`; the registry imports them on its first lookup.
MATCHERS: Registry[Callable[..., IntentMatcher]] = Registry(
    "intent matcher", package="capabench.simulate.intent", group="capabench.matchers"
)


def register(name: str):
    return MATCHERS.register(name)
