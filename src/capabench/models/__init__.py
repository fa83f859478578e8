"""Model clients behind one small protocol, chosen by a spec string (`scripted:...` for now;
the evaluation issue adds `openai/<model>`, `anthropic/<model>` and `local`)."""

from capabench.models.base import REGISTRY, ChatModel, Completion, Message, make_model, register
from capabench.models.scripted import ScriptedModel

__all__ = [
    "REGISTRY",
    "ChatModel",
    "Completion",
    "Message",
    "ScriptedModel",
    "make_model",
    "register",
]
