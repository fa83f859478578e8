"""The simulated user and the session loop."""

from capabench.simulate.intent import questions
from capabench.simulate.loop import Assistant, SessionResult, run_session
from capabench.simulate.model_assistant import ModelAssistant
from capabench.simulate.user import SimulatedUser, UserReply, targeted_families

__all__ = [
    "Assistant",
    "ModelAssistant",
    "SessionResult",
    "SimulatedUser",
    "UserReply",
    "questions",
    "run_session",
    "targeted_families",
]
