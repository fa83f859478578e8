from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict


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


class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[Message], *, json_object: bool = False) -> Completion:
        """The next assistant message. json_object: the caller wants one JSON object (the
        endpoint's JSON mode where it has one, e.g. grammar-constrained for llama.cpp; the
        prompt must still ask for JSON, as OpenAI's JSON mode requires)."""
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
    cache: str | None = None
    retry: object | None = None  # a retry.RetryPolicy; None for the default


Factory = Callable[[str, ModelOptions], ChatModel]
REGISTRY: dict[str, Factory] = {}


def register(prefix: str):
    """Register a factory for specs `prefix`, `prefix:...` and `prefix/...`."""

    def wrap(factory: Factory) -> Factory:
        REGISTRY[prefix] = factory
        return factory

    return wrap


def make_model(spec: str, options: ModelOptions | None = None) -> ChatModel:
    """The model a spec names, behind the retry owner (remote endpoints) and the cache."""
    from capabench.models.cache import CachedModel, ResponseCache
    from capabench.models.retry import RetryingModel

    options = options or ModelOptions()
    cut = min((i for i in (spec.find(":"), spec.find("/")) if i >= 0), default=len(spec))
    prefix, rest = spec[:cut], spec[cut + 1 :]
    if prefix not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise ValueError(
            f"unknown model {spec!r}: known kinds are {known}, and baseline/<policy> for the reference "
            "policies (`capabench list` shows them all)"
        )
    model = REGISTRY[prefix](rest, options)
    endpoint = getattr(model, "endpoint", None)
    if endpoint is not None:
        model = RetryingModel(
            model, options.retry, endpoint=endpoint, concurrency=options.concurrency
        )
    if options.cache:
        params = {"temperature": options.temperature, "max_tokens": options.max_tokens}
        model = CachedModel(model, ResponseCache(options.cache), params)
    return model
