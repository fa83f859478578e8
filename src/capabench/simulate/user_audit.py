"""A second opinion on the simulated user: every question of a run that revealed nothing
("use your judgement") is read again by the `llm` matcher with the session's own
conventions. When it finds one of them, the simulator (not the assistant) is likely at
fault: a *simulator miss*. The miss rate is the share of unanswered questions so flagged.
The second opinion's own unreadable answers are counted apart, never as misses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from pydantic import BaseModel, Field

from capabench.records import Session, SessionRun
from capabench.simulate.intent import IntentMatcher


class AuditedQuestion(BaseModel):
    session_id: str
    condition: str
    turn: int
    text: str
    held: tuple[str, ...]
    found: tuple[str, ...] = Field(description="the session's families the second opinion found")
    readable: bool = True
    note: str = ""


class ConditionAudit(BaseModel):
    condition: str
    questions: int = 0
    unanswered: int = 0
    unreadable: int = 0
    misses: int = 0

    @property
    def miss_rate(self) -> float | None:
        read = self.unanswered - self.unreadable
        return self.misses / read if read else None


class UserAudit(BaseModel):
    matcher: str
    run_matcher: str
    conditions: list[ConditionAudit]
    questions: list[AuditedQuestion]


def audit_user(
    results: Iterable[SessionRun],
    sessions: dict[str, Session],
    matcher: IntentMatcher,
    *,
    run_matcher: str = "",
    progress: Callable[[], None] | None = None,
) -> UserAudit:
    per: dict[str, ConditionAudit] = defaultdict(lambda: ConditionAudit(condition=""))
    audited = []
    for result in results:
        if result.status != "completed":
            continue
        stats = per[result.condition]
        stats.condition = result.condition
        stats.questions += result.user_questions
        held = tuple(slot.family for slot in sessions[result.session_id].slots)
        for question in result.unanswered:
            reading = matcher.read(question.text, list(held))
            readable = not reading.note
            found = tuple(reading.targets(held)) if readable else ()
            stats.unanswered += 1
            stats.unreadable += not readable
            stats.misses += bool(found)
            audited.append(
                AuditedQuestion(
                    session_id=result.session_id,
                    condition=result.condition,
                    turn=question.turn,
                    text=question.text,
                    held=held,
                    found=found,
                    readable=readable,
                    note=reading.note,
                )
            )
            if progress:
                progress()
    return UserAudit(
        matcher=matcher.name,
        run_matcher=run_matcher,
        conditions=sorted(per.values(), key=lambda c: c.condition),
        questions=audited,
    )
