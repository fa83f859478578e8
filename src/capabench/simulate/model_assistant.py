"""An assistant played by a chat model: the session's turns become its messages."""

from __future__ import annotations

from capabench.models import ChatModel, Message
from capabench.records import Turn

SYSTEM_PROMPT = (
    "You are a coding assistant in a multi-turn session with a user. Each turn, either ask a "
    "clarifying question or submit your solution as one Python code block (you may do both). "
    "Ask only about what you cannot infer; the user's earlier sessions, when given, show how they work."
)


class ModelAssistant:
    def __init__(self, model: ChatModel, *, system: str = SYSTEM_PROMPT, context: str = "") -> None:
        self.model = model
        self.system = system + (f"\n\n{context}" if context else "")
        self.completions = []

    def reply(self, turns: list[Turn]) -> str:
        messages = [Message(role="system", content=self.system)]
        messages += [Message(role=t.role, content=t.text) for t in turns]
        completion = self.model.complete(messages)
        self.completions.append(completion)
        return completion.text
