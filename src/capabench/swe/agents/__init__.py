"""Agent runners, one file each, chosen by model prefix (`registry`); every runner keeps its
session through one `SessionRecorder` (`session`). Importing this package registers the
built-in ones: the built-in agent (the default), the Codex CLI and the Claude Agent SDK."""

from capabench.swe.agents import builtin as _builtin  # noqa: F401  (registers the default)
from capabench.swe.agents import claude as _claude  # noqa: F401  (registers claude-)
from capabench.swe.agents import codex as _codex  # noqa: F401  (registers gpt- and codex-)
from capabench.swe.agents.registry import (
    REGISTRY,
    Registration,
    RunnerOptions,
    make_runner,
    register,
    registration,
)
from capabench.swe.agents.session import MAX_ASKS, NEUTRAL_REPLY, AgentRunner, SessionRecorder

__all__ = [
    "MAX_ASKS",
    "NEUTRAL_REPLY",
    "REGISTRY",
    "AgentRunner",
    "Registration",
    "RunnerOptions",
    "SessionRecorder",
    "make_runner",
    "register",
    "registration",
]
