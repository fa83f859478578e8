"""Agent runners, one file each, chosen by model prefix (`registry`); every runner keeps its
session through one `SessionRecorder` (`recorder`). The registry imports this package's
modules on its first lookup: the built-in agent (the default), the Codex CLI and the Claude
Agent SDK, and any other file here or in a `capabench.agents` entry point."""

from capabench.swe.agents.recorder import MAX_ASKS, NEUTRAL_REPLY, AgentRunner, SessionRecorder
from capabench.swe.agents.registry import (
    REGISTRY,
    Registration,
    RunnerOptions,
    make_runner,
    register,
    registration,
)

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
