"""The simulated user: expression (answers questions from the hidden slots, in the
profile's voice) and judgment (runs submissions against the hidden tests), kept apart.

Deterministic with the default intent matcher. Answering policy:
- a question, a request for clarification, or an assumption stated for the user to confirm
  or correct (see `capabench.simulate.intent.text`) is read by the intent matcher;
- each of the user's conventions it targets is answered with that convention's statement:
  a right assumption is thereby confirmed, a wrong one corrected; a message that targets
  two of them gets both statements;
- a question about a convention the user doesn't hold, or about nothing they care about,
  gets the profile's "use your judgement";
- nothing unasked is ever said: no test code, no reference, no convention nobody asked
  about. The optional expression LLM (`--user-model`) rewords the reply under a guard
  that keeps every fact and adds none.
Every reply keeps the matcher's reading, so each question that revealed nothing is
recorded with the matcher's best candidate (see `UserReply.unanswered`).
"""

from __future__ import annotations

import ast

from pydantic import BaseModel, ConfigDict

from capabench.conventions import REGISTRY
from capabench.judge import Verdicts, extract_code, judge
from capabench.judge.sandbox import SandboxPool
from capabench.models import ChatModel, Message
from capabench.profiles import PROFILES_BY_ID
from capabench.records import Session, UnansweredQuestion, Verdict
from capabench.simulate.intent import IntentMatcher, Reading, make_matcher

_DETAIL_CAP = 400


class UserReply(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    revealed: list[str]
    verdict: Verdict | None = None
    reading: Reading | None = None

    @property
    def asked(self) -> bool:
        """Whether the message asked the user anything, as the user read it."""
        return self.reading is not None and self.reading.asking_sentences > 0

    @property
    def unanswered(self) -> tuple[UnansweredQuestion, ...]:
        """The message's questions that revealed nothing, with the matcher's best guess."""
        if self.reading is None:
            return ()
        return tuple(
            UnansweredQuestion(
                text=q.text,
                best=q.best.family if q.best else None,
                score=q.best.score if q.best else 0.0,
                matcher=self.reading.matcher,
            )
            for q in self.reading.questions
            if not q.targets
        )


def targeted_families(
    message: str, families: list[str], matcher: IntentMatcher | None = None
) -> list[str]:
    """Which of `families` the message's questions ask about (the default matcher unless given)."""
    return (matcher or make_matcher()).read(message, families).targets(families)


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
    def __init__(
        self,
        session: Session,
        *,
        pool: SandboxPool | None = None,
        timeout_s: float = 10.0,
        expression_model: ChatModel | None = None,
        matcher: IntentMatcher | None = None,
        verdicts: Verdicts | None = None,
    ) -> None:
        self.expression_model = expression_model
        self.verdicts = verdicts  # only for code the harness wrote (a reference policy's)
        self.matcher = matcher or make_matcher()
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
        held = list(self._slots)
        reading = self.matcher.read(message, held)
        revealed = reading.targets(held)
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
                verdicts=self.verdicts,
            )
            if verdict.passed:
                return UserReply(
                    text=profile.success, revealed=[], verdict=verdict, reading=reading
                )
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
        return UserReply(text=text, revealed=revealed, verdict=verdict, reading=reading)

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
