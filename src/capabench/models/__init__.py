"""Model clients behind one small protocol, chosen by a spec string: `openai/<model>`,
`anthropic/<model>`, `local[/<path.gguf>]`, `scripted:FILE.json`, and the reference
policies `baseline/...` (which the evaluation builds per session). A provider is one module
here (or an installed package's `capabench.providers` entry point) whose factory calls
`register("prefix")`; the registry imports them on its first lookup."""

from capabench.models.base import (
    JSON_OBJECT,
    PLAIN,
    REGISTRY,
    ChatModel,
    Completion,
    Message,
    ModelOptions,
    ReplyOptions,
    register,
)
from capabench.models.errors import InfraError
from capabench.models.factory import make_model
from capabench.models.scripted import ScriptedModel
from capabench.models.spec import UnknownModel, is_local, is_policy, split_spec

__all__ = [
    "JSON_OBJECT",
    "PLAIN",
    "REGISTRY",
    "ChatModel",
    "Completion",
    "InfraError",
    "Message",
    "ModelOptions",
    "ReplyOptions",
    "ScriptedModel",
    "UnknownModel",
    "is_local",
    "is_policy",
    "make_model",
    "register",
    "split_spec",
]
