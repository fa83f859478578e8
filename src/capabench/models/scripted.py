"""A deterministic model for tests: answers from a script, in order or by a function."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from capabench.models.base import PLAIN, Completion, Message, ReplyOptions, register


class ScriptedModel:
    endpoint = None  # in this process: nothing to retry

    def __init__(
        self, replies: list[str] | Callable[[list[Message]], str], name: str = "scripted"
    ) -> None:
        self.name = name
        self._replies = replies
        self.calls: list[list[Message]] = []
        self.json_calls = 0  # calls that asked for a JSON object
        self.schemas: list[dict | None] = []  # each call's schema (None: free text)

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        self.calls.append(list(messages))
        self.json_calls += reply.wants_json
        self.schemas.append(reply.schema)
        if callable(self._replies):
            text = self._replies(messages)
        else:
            if len(self.calls) > len(self._replies):
                raise RuntimeError(f"{self.name}: the script has only {len(self._replies)} replies")
            text = self._replies[len(self.calls) - 1]
        words = sum(len(m.content.split()) for m in messages)
        return Completion(
            text=text, input_tokens=words, output_tokens=len(text.split()), model=self.name
        )


@register("scripted")
def _from_file(path: str, options=None) -> ScriptedModel:
    """`scripted:FILE.json`: a JSON list of replies, used in order."""
    if not path:
        raise ValueError("scripted models need a file: scripted:replies.json")
    replies = json.loads(Path(path).read_text())
    if not (isinstance(replies, list) and all(isinstance(r, str) for r in replies)):
        raise ValueError(f"{path}: expected a JSON list of strings")
    return ScriptedModel(replies, name=f"scripted:{path}")
