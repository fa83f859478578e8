"""Infrastructure errors: the endpoint failed, not the model. Retried by one owner
(`retry.py`), then recorded as such, never counted as a model's wrong answer."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC


class InfraError(Exception):
    def __init__(
        self,
        message: str,
        *,
        retryable: bool = True,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


def retry_after_seconds(headers) -> float | None:
    """Retry-After (seconds or an HTTP date) or retry-after-ms, when the server sent one."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from datetime import datetime
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
        except (TypeError, ValueError):
            return None


def classify_status(status: int) -> bool:
    """Is an HTTP status worth retrying? 408, 409, 429 and 5xx are; other 4xx are the request's fault."""
    return status in (408, 409, 429) or status >= 500


@contextmanager
def sdk_errors(sdk, name: str):
    """Translate the official SDKs' errors (openai and anthropic share their shape) into
    InfraError: HTTP statuses by `classify_status`, connection trouble and bodies that are
    not JSON always retryable."""
    try:
        yield
    except sdk.APIStatusError as exc:
        raise InfraError(
            f"{name}: HTTP {exc.status_code}: {exc.message}",
            status=exc.status_code,
            retryable=classify_status(exc.status_code),
            retry_after=retry_after_seconds(exc.response.headers),
        ) from None
    except (sdk.APIConnectionError, sdk.APITimeoutError) as exc:
        raise InfraError(f"{name}: {type(exc).__name__}: {exc}") from None
    except (
        sdk.APIResponseValidationError,
        ValueError,
    ) as exc:  # ValueError: a body that is not JSON
        raise InfraError(f"{name}: malformed response: {exc}") from None
