"""Model clients behind one small protocol, chosen by a spec string: `openai/<model>`,
`anthropic/<model>`, `local[/<path.gguf>]`, `scripted:FILE.json`, and the reference
policies `baseline/...` (which the evaluation builds per session)."""

from capabench.models import local as _local  # noqa: F401  (registers local)
from capabench.models import remote as _remote  # noqa: F401  (registers openai/ and anthropic/)
from capabench.models.base import (
    REGISTRY,
    ChatModel,
    Completion,
    Message,
    ModelOptions,
    register,
)
from capabench.models.errors import InfraError
from capabench.models.factory import make_model
from capabench.models.scripted import ScriptedModel
from capabench.models.spec import is_local, is_policy, split_spec

__all__ = [
    "REGISTRY",
    "ChatModel",
    "Completion",
    "InfraError",
    "Message",
    "ModelOptions",
    "ScriptedModel",
    "is_local",
    "is_policy",
    "make_model",
    "register",
    "split_spec",
]
