"""One session: the assistant asks or submits, the simulated user answers or judges,
until a submission passes or the turn budget runs out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from capabench.records import TURN_BUDGET, Session, Turn, UnansweredQuestion
from capabench.simulate.user import SimulatedUser

if TYPE_CHECKING:
    from capabench.models import Completion


class Assistant(Protocol):
    # The model's replies so far, for their token counts (empty for a reference policy).
    completions: Sequence[Completion]

    def reply(self, turns: list[Turn]) -> str:
        """The next assistant message, given the dialogue so far (it starts with the request)."""
        ...


@dataclass
class SessionResult:
    turns: list[Turn] = field(default_factory=list)
    solved_turn: int | None = None  # 1-based assistant turn of the first passing submission
    asked: list[bool] = field(default_factory=list)  # per assistant turn, as the user read it
    user_questions: int = 0  # asking sentences the user read in turns that didn't pass
    unanswered: list[UnansweredQuestion] = field(default_factory=list)  # those revealing nothing

    @property
    def solved(self) -> bool:
        return self.solved_turn is not None


def run_session(
    session: Session,
    assistant: Assistant,
    user: SimulatedUser,
    *,
    budget: int = TURN_BUDGET,
    into: SessionResult | None = None,
) -> SessionResult:
    """Play a session. `into` collects the turns as they happen, so a caller keeps the
    dialogue so far when the assistant's endpoint fails mid-session."""
    result = into or SessionResult(turns=[Turn(role="user", text=session.request)])
    for turn in range(1, budget + 1):
        message = assistant.reply(list(result.turns))
        reply = user.respond(message)
        status = reply.verdict.status if reply.verdict else None
        result.turns.append(Turn(role="assistant", text=message, verdict=status))
        result.turns.append(Turn(role="user", text=reply.text, revealed=tuple(reply.revealed)))
        result.asked.append(reply.asked)
        if reply.verdict is not None and reply.verdict.passed:
            result.solved_turn = turn
            break
        if reply.reading is not None:
            result.user_questions += len(reply.reading.questions)
            result.unanswered += [q.model_copy(update={"turn": turn}) for q in reply.unanswered]
    return result
