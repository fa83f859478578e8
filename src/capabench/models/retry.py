"""The one owner of retries: exponential backoff with full jitter, Retry-After honoured,
and a concurrency limit per endpoint."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from capabench.models.base import ChatModel, Completion, Message
from capabench.models.errors import InfraError


@dataclass
class RetryPolicy:
    attempts: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0
    max_retry_after_s: float = 300.0  # a server asking for longer is treated as down
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, error: InfraError) -> float:
        backoff = self.rng.uniform(0, min(self.cap_s, self.base_s * 2 ** (attempt - 1)))
        if error.retry_after is not None:
            return max(backoff, min(error.retry_after, self.max_retry_after_s))
        return backoff


_limits: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_limits_lock = threading.Lock()


def endpoint_slot(endpoint: str, concurrency: int) -> threading.BoundedSemaphore:
    """One semaphore per endpoint and limit, shared by every model object that talks to it.

    The limit is part of the key: a client asking for 3 must never inherit the 8 slots that
    an earlier client of the same endpoint asked for.
    """
    with _limits_lock:
        return _limits.setdefault((endpoint, concurrency), threading.BoundedSemaphore(concurrency))


class RetryingModel:
    """Wraps a model whose `complete` raises InfraError for endpoint failures."""

    def __init__(self, inner: ChatModel, policy: RetryPolicy | None = None, *, endpoint: str | None = None,
                 concurrency: int = 8) -> None:  # fmt: skip
        self.inner = inner
        self.name = inner.name
        self.policy = policy or RetryPolicy()
        self.slot = endpoint_slot(endpoint or inner.name, concurrency)
        self.retries = 0

    def complete(self, messages: list[Message], *, json_object: bool = False, schema: dict | None = None,
                 stop: tuple[str, ...] = ()) -> Completion:  # fmt: skip
        for attempt in range(1, self.policy.attempts + 1):
            try:
                with self.slot:
                    return self.inner.complete(
                        messages, json_object=json_object, schema=schema, stop=stop
                    )
            except InfraError as error:
                if not error.retryable or attempt == self.policy.attempts:
                    raise
                self.retries += 1
                self.policy.sleep(self.policy.delay(attempt, error))
        raise AssertionError("unreachable")
