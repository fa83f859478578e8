from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from capabench.models.policy import RetryPolicy
from capabench.registry import Registry


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class Completion(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    cached: bool = False
    truncated: bool = False  # the reply stopped at the token limit (finish reason "length")


@dataclass(frozen=True)
class ReplyOptions:
    """What a caller asks of one reply beside the messages. json_object: one JSON object (the
    endpoint's JSON mode where it has one, e.g. grammar-constrained for llama.cpp; the prompt
    must still ask for JSON, as OpenAI's JSON mode requires). schema: a JSON schema the object
    must follow (implies json_object; enforced where the endpoint can: llama.cpp's grammar,
    OpenAI's structured outputs; elsewhere the prompt must say it). stop: the reply ends
    before the first of these strings (which it then leaves out)."""

    json_object: bool = False
    schema: dict | None = None
    stop: tuple[str, ...] = ()

    @property
    def wants_json(self) -> bool:
        return self.json_object or self.schema is not None


PLAIN = ReplyOptions()  # free text, no stop strings
JSON_OBJECT = ReplyOptions(json_object=True)


class ChatModel(Protocol):
    name: str
    # The remote endpoint it calls (a URL), None for a model in this process: where there is
    # one, make_model puts the model behind the retry owner and the endpoint's concurrency limit.
    endpoint: str | None

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        """The next assistant message, as `reply` asks (ReplyOptions)."""
        ...


@dataclass(frozen=True)
class ModelOptions:
    """How to reach and drive a model. `cache` is the SQLite file, None for no cache."""

    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    temperature: float = 0.0
    max_tokens: int = 2048
    concurrency: int = 8
    context: int | None = None  # a local model's context window in tokens (None: 8192)
    # llama.cpp threads for a local model (None: CAPABENCH_LLAMA_THREADS, else every core);
    # numerics differ with the count, so it is part of the cache key when set.
    threads: int | None = field(default_factory=lambda: _env_int("CAPABENCH_LLAMA_THREADS"))
    cache: str | None = None
    retry: RetryPolicy | None = None  # None for the default policy


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


Factory = Callable[[str, ModelOptions], ChatModel]
# A provider is one module of this package, or of an installed package's `capabench.providers`
# entry point, whose factory is decorated with `register("prefix")`.
REGISTRY: Registry[Factory] = Registry(
    "model provider", package="capabench.models", group="capabench.providers"
)


def register(prefix: str):
    """Register a factory for specs `prefix`, `prefix:...` and `prefix/...`: it takes the
    spec's rest (`gpt-4o` of `openai/gpt-4o`) and the options, and returns the model."""
    return REGISTRY.register(prefix)
