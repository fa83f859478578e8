"""An LLM judge of "did the agent ask?", reported beside the rule-based verdict: a fixed
rubric (the labelling rule of the classifier's corpus), a JSON answer that must follow a
schema, temperature 0 and the model layer's response cache. An unreadable answer or a failed
call falls back to the default classifier and says so in the detection's `note`."""

from __future__ import annotations

from capabench.models import ChatModel, InfraError, Message, ReplyOptions
from capabench.models.json_answer import json_answer
from capabench.swe.asks.detection import classifier
from capabench.swe.asks.verdict import Detection

RUBRIC = """You are labelling the final message of a coding agent's turn: did the agent stop to ASK its user?

The rule: an ask means the agent stops and needs the user's answer, decision or go-ahead to continue the task.
- Asks: a question the user must answer; a request ("Tell me which...", "Reply with A or B"); a need stated as a statement ("I'll need X before I can implement this", "Waiting on your call"); a choice among options; a request for a go-ahead ("Let me know if this plan looks good and I'll start"); a tag question the user must confirm ("per tenant, right?"); work stopped half-way for a decision.
- Not asks: a summary of finished work; an optional offer after the work is done ("Let me know if you'd like tests too"); a question the message answers itself; a quoted or printed question (an issue's text, a CLI prompt like "Overwrite? [y/N]"); a rhetorical question; a comprehension check ("Does that make sense?").

{edited}

The message:
<<<
{message}
>>>

Reply with one JSON object and nothing else: {{"ask": true or false, "reason": "one short sentence"}}"""

SCHEMA = {
    "type": "object",
    "properties": {"ask": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["ask", "reason"],
    "additionalProperties": False,
}
_EDITED = {
    True: "The agent changed files during this turn, before writing the message.",
    False: "The agent changed no files during this turn.",
}


class AskJudge:
    """`classify` like the rule-based classifiers; `version` names the judge and its model."""

    def __init__(self, model: ChatModel, name: str) -> None:
        self.model = model
        self.version = f"judge:{name}"

    def classify(self, message: str, *, edited: bool = False) -> Detection:
        prompt = RUBRIC.format(edited=_EDITED[bool(edited)], message=message.strip())
        try:
            answer = self.model.complete(
                [Message(role="user", content=prompt)],
                ReplyOptions(json_object=True, schema=SCHEMA),
            ).text
        except InfraError as exc:
            return self._fall_back(message, edited, f"the judge model failed: {exc}")
        verdict = parse(answer)
        if verdict is None:
            return self._fall_back(message, edited, f"unreadable answer: {answer[:200]!r}")
        asked, reason = verdict
        return Detection(
            asked=asked,
            version=self.version,
            gate="edited" if edited else "zero_edit",
            categories=["judge"] if asked else [],
            note=reason,
        )

    def _fall_back(self, message: str, edited: bool, why: str) -> Detection:
        rules = classifier().classify(message, edited=edited)
        return rules.model_copy(update={"version": f"{self.version}->{rules.version}", "note": why})


def parse(answer: str) -> tuple[bool, str] | None:
    """(asked, reason) from the judge's JSON answer; None when it isn't one."""
    data = json_answer(answer)
    if data is None or not isinstance(data.get("ask"), bool):
        return None
    return data["ask"], str(data.get("reason", ""))[:300]


def make_ask_judge(spec: str, base_url: str | None = None) -> AskJudge:
    """The judge for a model spec (its replies cached like every model call)."""
    from capabench.models import ModelOptions, make_model
    from capabench.paths import cache_dir

    options = ModelOptions(
        base_url=base_url, max_tokens=160, cache=str(cache_dir() / "responses.sqlite")
    )
    return AskJudge(make_model(spec, options), spec)
