"""What one session's interaction counts are: its first move and its needless asks, read off
the turns and what the session was shown of the user's history. The player records them on
each result; the summaries in `core` average them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from capabench.records import Session, Turn

FirstMove = Literal["ask", "submit", "both", "neither"]


def first_move(turns: Sequence[Turn], asked: Sequence[bool]) -> FirstMove:
    """The assistant's first reply: an ask (what the simulated user read as one, `asked`
    per assistant turn), a submission, both or neither."""
    mine = [t for t in turns if t.role == "assistant"]
    if not mine:
        return "neither"
    return {(True, True): "both", (True, False): "ask", (False, True): "submit"}.get(
        (asked[0], mine[0].verdict is not None), "neither"
    )


def needless_asks(
    session: Session, turns: Sequence[Turn], shown: Sequence[Session], shown_text: str
) -> int:
    """User replies that revealed a convention the evaluated user's own history already
    states: their own shown sessions' answers, or a method's text (`shown_text`) built from
    them. Other users' sessions (the shuffled control) never make an ask needless."""
    own = [h for h in shown if h.user_id == session.user_id]
    said = "\n".join(t.text for h in own for t in h.trace if t.role == "user")
    if len(own) == len(shown):
        said += "\n" + shown_text
    known = {slot.family for slot in session.slots if slot.statement in said}
    replies = [t for t in turns[1:] if t.role == "user"]
    return sum(1 for t in replies if set(t.revealed) & known)
