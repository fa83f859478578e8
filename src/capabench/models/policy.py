"""How remote calls are retried and bounded: the backoff policy and one concurrency limit per
endpoint. Depends on nothing but the error type, so the options record can name it."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
