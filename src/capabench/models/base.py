from __future__ import annotations

from collections.abc import Callable
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


class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[Message]) -> Completion: ...


REGISTRY: dict[str, Callable[[str], ChatModel]] = {}


def register(prefix: str):
    """Register a factory for specs `prefix:...` or `prefix/...`."""

    def wrap(factory: Callable[[str], ChatModel]) -> Callable[[str], ChatModel]:
        REGISTRY[prefix] = factory
        return factory

    return wrap


def make_model(spec: str) -> ChatModel:
    cut = min((i for i in (spec.find(":"), spec.find("/")) if i >= 0), default=len(spec))
    prefix, rest = spec[:cut], spec[cut + 1 :]
    if prefix not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise ValueError(f"unknown model {spec!r}: known kinds are {known}")
    return REGISTRY[prefix](rest)
