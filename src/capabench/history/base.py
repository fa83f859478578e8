from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from capabench.records import Session


@dataclass(frozen=True)
class HistoryContext:
    """What goes into the assistant's context besides the new request."""

    text: str = ""
    session_ids: tuple[str, ...] = ()
    sessions: tuple[Session, ...] = field(default=(), repr=False)  # for rule-based policies

    @property
    def tokens(self) -> int:
        """Approximate token count (words and punctuation runs); models report exact usage."""
        return approx_tokens(self.text)


def approx_tokens(text: str) -> int:
    return int(len(text.split()) * 1.3)


Builder = Callable[[Session, "object"], HistoryContext]
CONDITIONS: dict[str, Builder] = {}


def register(name: str):
    def wrap(builder: Builder) -> Builder:
        CONDITIONS[name] = builder
        return builder

    return wrap


def condition(name: str) -> Builder:
    if name not in CONDITIONS:
        raise ValueError(f"unknown condition {name!r}; known: {', '.join(sorted(CONDITIONS))}")
    return CONDITIONS[name]


def render_session(session: Session, number: int) -> str:
    """A resolved session as dialogue text: the public trace only, never hidden material."""
    lines = [f"### Earlier session {number}"]
    for turn in session.trace:
        lines.append(f"{'User' if turn.role == 'user' else 'Assistant'}: {turn.text.strip()}")
    return "\n\n".join(lines)


def render_history(sessions: list[Session]) -> HistoryContext:
    if not sessions:
        return HistoryContext()
    text = "\n\n".join(render_session(s, i) for i, s in enumerate(sessions, 1))
    return HistoryContext(text, tuple(s.id for s in sessions), tuple(sessions))
