"""What a history method is: given the run's environment once, it answers, per held-out
session, with the context the assistant sees besides the new request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from capabench.benchmark import Benchmark
from capabench.history.memory_store import MemoryStore
from capabench.records import Session
from capabench.registry import Registry

if TYPE_CHECKING:
    from capabench.models import ChatModel


@dataclass(frozen=True)
class HistoryContext:
    """What goes into the assistant's context besides the new request."""

    text: str = ""
    session_ids: tuple[str, ...] = ()
    sessions: tuple[Session, ...] = field(default=(), repr=False)  # for rule-based policies
    info: dict[str, Any] = field(default_factory=dict)  # what the method did (kept per result)

    @property
    def tokens(self) -> int:
        """Approximate token count (words and punctuation runs); models report exact usage."""
        return approx_tokens(self.text)


@dataclass
class HistoryEnv:
    """What a method may use: the benchmark (for the resolved history sessions), the model
    under evaluation (methods that need an LLM use the same one; None for reference
    policies) and the method settings."""

    bench: Benchmark
    model: ChatModel | None = None
    top_k: int = 2
    settings: dict[str, Any] = field(default_factory=dict)
    memories: MemoryStore | None = None  # built memories saved and reused (the run directory's)

    def history_of(self, session: Session) -> list[Session]:
        """The user's own resolved sessions (the cell's history split), in order."""
        return [s for s in self.bench.sessions if s.cell == session.cell and s.split == "history"]

    def need_model(self, method: str) -> ChatModel:
        if self.model is None:
            raise ValueError(
                f"the {method!r} condition needs an LLM (it uses the evaluated model); "
                "reference policies have none"
            )
        return self.model


class HistoryMethod(Protocol):
    def context(self, session: Session) -> HistoryContext: ...


Factory = Callable[[HistoryEnv], HistoryMethod]
# A method is one module of this package, or of an installed package's `capabench.history`
# entry point, registering with `register(name)` or `register_function(name)`.
CONDITIONS: Registry[Factory] = Registry(
    "history method", package="capabench.history", group="capabench.history"
)


def register(name: str):
    """Register a method factory: a class taking the env, with `context(session)`."""
    return CONDITIONS.register(name)


class _Stateless:
    def __init__(self, build: Callable[[Session, HistoryEnv], HistoryContext], env: HistoryEnv):
        self.build, self.env = build, env

    def context(self, session: Session) -> HistoryContext:
        return self.build(session, self.env)


def register_function(name: str):
    """Register a stateless method written as `build(session, env) -> HistoryContext`."""

    def wrap(build: Callable[[Session, HistoryEnv], HistoryContext]):
        CONDITIONS.add(name, lambda env: _Stateless(build, env), origin=build.__module__)
        return build

    return wrap


def condition(name: str) -> Factory:
    if name not in CONDITIONS:
        raise ValueError(f"unknown condition {name!r}; known: {', '.join(sorted(CONDITIONS))}")
    return CONDITIONS[name]


def approx_tokens(text: str) -> int:
    return int(len(text.split()) * 1.3)


def render_session(session: Session, number: int) -> str:
    """A resolved session as dialogue text: the public trace only, never hidden material."""
    lines = [f"### Earlier session {number}"]
    for turn in session.trace:
        lines.append(f"{'User' if turn.role == 'user' else 'Assistant'}: {turn.text.strip()}")
    return "\n\n".join(lines)


def render_history(sessions: list[Session], *, preface: str = "", **info) -> HistoryContext:
    if not sessions and not preface:
        return HistoryContext(info=info)
    parts = [preface] if preface else []
    parts += [render_session(s, i) for i, s in enumerate(sessions, 1)]
    return HistoryContext("\n\n".join(parts), tuple(s.id for s in sessions), tuple(sessions), info)
