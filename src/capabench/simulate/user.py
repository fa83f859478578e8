"""The simulated user: expression (answers questions from the hidden slots, in the
profile's voice) and judgment (runs submissions against the hidden tests), kept apart.

Deterministic. A question reveals a convention when it matches one of the family's
question intents; the user never reveals test code, the reference, or a convention
nobody asked about, and says "use your judgement" to anything else.
"""

from __future__ import annotations

import ast
import re

from pydantic import BaseModel, ConfigDict

from capabench.conventions import REGISTRY
from capabench.judge import extract_code, judge
from capabench.judge.sandbox import SandboxPool
from capabench.models import ChatModel, Message
from capabench.profiles import PROFILES_BY_ID
from capabench.records import Session, Verdict

_FENCED = re.compile(r"```.*?(```|\Z)|~~~.*?(~~~|\Z)", re.S)
_ASKING = re.compile(
    r"^(should|shall|do|does|did|what|which|how|where|when|why|who|can|could|would|will|is|are|am|any|may|might|"
    r"tell me|let me know|please (confirm|clarify|specify|tell)|clarify|confirm)\b",
    re.I,
)
_DETAIL_CAP = 400


class UserReply(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    revealed: list[str]
    verdict: Verdict | None = None


def questions(message: str) -> list[str]:
    """The question-like sentences of a message, code blocks left out."""
    prose = _FENCED.sub(" ", message)
    sentences = re.split(r"(?<=[.?!])\s+|\n+", prose)
    found = []
    for sentence in sentences:
        text = sentence.strip().lstrip("-*0123456789.) ").strip()
        if text and (text.endswith("?") or _ASKING.match(text)):
            found.append(text)
    return found


def targeted_families(message: str, families: list[str]) -> list[str]:
    """Which of `families` the message's questions ask about."""
    asked = " ".join(q.lower() for q in questions(message))
    if not asked:
        return []
    return [f for f in families if any(re.search(p, asked) for p in REGISTRY[f].intents)]


def _defines_a_function(code: str) -> bool:
    try:
        return any(
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in ast.parse(code).body
        )
    except SyntaxError:
        return False


EXPRESSION_PROMPT = """You are a user talking to a coding assistant. Your style: {expertise} programmer,
{verbosity}, tone: {tone}. Rewrite the reply below in your own words and style. Keep every fact in it:
each identifier, file name, format and example exactly as written. Add nothing: no new requirements,
no code, no hints about anything else.

Reply to rewrite:
{reply}"""


class SimulatedUser:
    def __init__(self, session: Session, *, pool: SandboxPool | None = None, timeout_s: float = 10.0,
                 expression_model: ChatModel | None = None) -> None:  # fmt: skip
        self.expression_model = expression_model
        self.session = session
        self.pool = pool
        self.timeout_s = timeout_s
        self.profile = PROFILES_BY_ID[session.profile_id]
        self._slots = {slot.family: slot for slot in session.slots}

    def submission(self, message: str) -> str | None:
        """The code a message submits: it defines the entry point (or the task's own name,
        or at least some function, which the judge will then reject by name)."""
        s = self.session
        code = extract_code(message, s.entry_point) or extract_code(message, s.base_entry_point)
        if code is None:
            candidate = extract_code(message)
            code = candidate if candidate and _defines_a_function(candidate) else None
        return code

    def respond(self, message: str) -> UserReply:
        profile = self.profile
        revealed = targeted_families(message, list(self._slots))
        code = self.submission(message)
        verdict = None
        parts = []
        if code is not None:
            verdict = judge(
                code,
                self.session.hidden_tests,
                self.session.entry_point,
                pool=self.pool,
                timeout_s=self.timeout_s,
            )
            if verdict.passed:
                return UserReply(text=profile.success, revealed=[], verdict=verdict)
        if revealed:
            statements = " ".join(self._slots[f].statement for f in revealed)
            parts.append(profile.answer.format(statement=statements))
        if verdict is not None:
            detail = (
                verdict.detail.strip().splitlines()[0] if verdict.detail.strip() else verdict.status
            )
            if len(detail) > _DETAIL_CAP:
                detail = detail[: _DETAIL_CAP - 3] + "..."
            parts.append(profile.failure.format(detail=detail))
        if not parts:
            parts.append(profile.unsure)
        text = "\n\n".join(parts)
        if self.expression_model is not None and revealed:
            text = self._expressed(text, revealed)
        return UserReply(text=text, revealed=revealed, verdict=verdict)

    def _expressed(self, text: str, revealed: list[str]) -> str:
        """The optional LLM user: same facts, its own words. Its reply is kept only when every
        revealed convention's telltale tokens survive and nothing unasked shows; else the template."""
        p = self.profile
        prompt = EXPRESSION_PROMPT.format(
            expertise=p.expertise, verbosity=p.verbosity, tone=p.tone, reply=text
        )
        said = self.expression_model.complete([Message(role="user", content=prompt)]).text.strip()
        lowered = said.lower()
        for family in revealed:
            alt = REGISTRY[family].alternative(self._slots[family].alternative)
            if not said or any(token.lower() not in lowered for token in alt.secrets):
                return text
        for family in self._slots:
            if family in revealed:
                continue
            if any(
                token.lower() in lowered
                for alt in REGISTRY[family].alternatives
                for token in alt.secrets
            ):
                return text
        return said
