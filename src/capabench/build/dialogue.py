"""Stage 2: resolved dialogue traces for history sessions, by running the session loop
with a scripted reference assistant against the simulated user and the judge.

Two strategies, alternated across a user's history, so a history reveals conventions
through answers, through failure feedback and through the accepted code:
  ask-first        ask about every convention, then submit the composed reference;
  submit-then-fix  submit the plain solution, read the failure, ask, then submit.
"""

from __future__ import annotations

from capabench.conventions import REGISTRY
from capabench.judge.sandbox import SandboxPool
from capabench.models import ChatModel
from capabench.records import Session, Turn
from capabench.simulate import ModelAssistant, SessionResult, SimulatedUser, run_session

STRATEGIES = ("ask-first", "submit-then-fix")


def _code(text: str) -> str:
    return f"```python\n{text.rstrip()}\n```"


class ReferenceAssistant:
    completions = ()  # no model

    def __init__(self, session: Session, strategy: str) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}")
        self.session = session
        self.strategy = strategy

    def _questions(self) -> str:
        asks = [REGISTRY[slot.family].question for slot in self.session.slots]
        lines = "\n".join(f"{i}. {q}" for i, q in enumerate(asks, 1))
        return f"Before I write it, a few questions:\n{lines}"

    def reply(self, turns: list[Turn]) -> str:
        done = sum(t.role == "assistant" for t in turns)
        s = self.session
        if self.strategy == "ask-first":
            if done == 0:
                return self._questions()
            return f"Thanks, that settles it. Here it is:\n\n{_code(s.reference)}"
        if done == 0:
            return f"Here is a first version:\n\n{_code(s.original)}"
        if done == 1:
            return "I see, it has to fit how you work. " + self._questions()
        return f"Got it. Updated version:\n\n{_code(s.reference)}"


def resolve(
    session: Session,
    strategy: str | ChatModel,
    pool: SandboxPool | None = None,
    *,
    user_model: ChatModel | None = None,
) -> SessionResult:
    """A strategy name plays the scripted reference assistant; a model plays itself."""
    assistant = (
        ReferenceAssistant(session, strategy)
        if isinstance(strategy, str)
        else ModelAssistant(strategy)
    )
    return run_session(
        session, assistant, SimulatedUser(session, pool=pool, expression_model=user_model)
    )
