"""The `llm` matcher: the user model reads the assistant's message and says which of the
session's conventions it asks about (JSON mode; the answer must be a JSON object whose
"families" are among the ids offered). An unreadable answer, or a failed call, falls back to
the `rules` matcher, and the reading records why in `note`."""

from __future__ import annotations

from collections.abc import Sequence

from capabench.conventions import REGISTRY
from capabench.models import JSON_OBJECT, ChatModel, InfraError, Message
from capabench.models.json_answer import json_answer
from capabench.simulate.intent.base import QuestionReading, Reading, register
from capabench.simulate.intent.prose import prose
from capabench.simulate.intent.rules import RulesMatcher
from capabench.simulate.intent.text import questions_of

PROMPT = """You are checking which topics a coding assistant's message asks its user about.
Asking means: a question, a request to clarify or confirm, or an assumption the assistant
states for the user to confirm or correct ("I'll assume X unless you say otherwise").
A topic merely mentioned, or a decision the assistant makes without inviting correction,
is not asked about.

The topics:
{topics}

The assistant's message (code left out):
<<<
{message}
>>>

Reply with one JSON object and nothing else: {{"families": [the ids of the topics it asks about]}}
(an empty list when it asks about none of them)."""


class LLMMatcher:
    name = "llm"
    session_independent = False  # the prompt offers the session's families only

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.fallback = RulesMatcher()

    def read(self, message: str, families: Sequence[str]) -> Reading:
        text = prose(message).strip()
        found = questions_of(message)
        asked = " ".join(q.text for q in found) or text
        if not text or not families:
            return Reading(matcher=self.name, asking_sentences=len(found))
        topics = "\n".join(f"- {f}: {REGISTRY[f].concept}" for f in families)
        prompt = PROMPT.format(topics=topics, message=text)
        try:
            answer = self.model.complete([Message(role="user", content=prompt)], JSON_OBJECT).text
        except InfraError as exc:
            return self._fall_back(message, families, f"the user model failed: {exc}")
        chosen = parse(answer, families)
        if chosen is None:
            return self._fall_back(message, families, f"unreadable answer: {answer[:200]!r}")
        return Reading(
            matcher=self.name,
            asking_sentences=len(found),
            questions=(QuestionReading(text=asked, targets=tuple(chosen)),),
        )

    def _fall_back(self, message: str, families: Sequence[str], why: str) -> Reading:
        reading = self.fallback.read(message, families)
        return reading.model_copy(update={"matcher": f"{self.name}->rules", "note": why})


def parse(answer: str, families: Sequence[str]) -> list[str] | None:
    """The families of a JSON answer, in the session's order; None when the answer isn't
    a JSON object with a list of offered ids under "families"."""
    data = json_answer(answer)
    chosen = data.get("families") if data is not None else None
    if not isinstance(chosen, list) or not all(isinstance(f, str) for f in chosen):
        return None
    if not set(chosen) <= set(families):
        return None
    return [f for f in families if f in chosen]


@register("llm")
def _make(*, model=None, **_) -> LLMMatcher:
    return LLMMatcher(model)
