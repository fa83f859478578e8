"""`make_model`: the model a spec names, wrapped in the retry owner and the response cache.
Apart from the protocol module so that the wrappers can depend on the protocol without a
circle."""

from __future__ import annotations

from capabench.models.base import REGISTRY, ChatModel, ModelOptions
from capabench.models.cache import CachedModel, ResponseCache
from capabench.models.retry import RetryingModel
from capabench.models.spec import POLICY, UnknownModel, is_local, split_spec


def make_model(spec: str, options: ModelOptions | None = None) -> ChatModel:
    """The model a spec names, behind the retry owner (remote endpoints) and the cache."""
    options = options or ModelOptions()
    prefix, rest = split_spec(spec)
    if prefix not in REGISTRY:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise UnknownModel(
            f"unknown model {spec!r}: known kinds are {known}, and {POLICY}/<policy> for the reference "
            "policies (`capabench list` shows them all)"
        )
    model = REGISTRY[prefix](rest, options)
    if model.endpoint is not None:
        model = RetryingModel(
            model, options.retry, endpoint=model.endpoint, concurrency=options.concurrency
        )
    if options.cache:
        params = {"temperature": options.temperature, "max_tokens": options.max_tokens}
        if options.threads is not None and is_local(spec):
            params["threads"] = options.threads
        model = CachedModel(model, ResponseCache(options.cache), params)
    return model
