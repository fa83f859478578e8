"""The one owner of retries: exponential backoff with full jitter, Retry-After honoured,
and a concurrency limit per endpoint."""

from __future__ import annotations

from capabench.models.base import PLAIN, ChatModel, Completion, Message, ReplyOptions
from capabench.models.errors import InfraError
from capabench.models.policy import RetryPolicy, endpoint_slot

__all__ = ["RetryPolicy", "RetryingModel", "endpoint_slot"]


class RetryingModel:
    """Wraps a model whose `complete` raises InfraError for endpoint failures."""

    def __init__(
        self,
        inner: ChatModel,
        policy: RetryPolicy | None = None,
        *,
        endpoint: str | None = None,
        concurrency: int = 8,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.policy = policy or RetryPolicy()
        self.slot = endpoint_slot(endpoint or inner.name, concurrency)
        self.retries = 0
        self.endpoint = inner.endpoint

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        for attempt in range(1, self.policy.attempts + 1):
            try:
                with self.slot:
                    return self.inner.complete(messages, reply)
            except InfraError as error:
                if not error.retryable or attempt == self.policy.attempts:
                    raise
                self.retries += 1
                self.policy.sleep(self.policy.delay(attempt, error))
        raise AssertionError("unreachable")
