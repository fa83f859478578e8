"""`anthropic/<model>`: the official SDK; system messages become its `system` field."""

from __future__ import annotations

import os

from capabench.models.base import PLAIN, Completion, Message, ModelOptions, ReplyOptions, register
from capabench.models.errors import sdk_errors


class AnthropicModel:
    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        temperature: float = 0.0,
        max_tokens: int = 2048,
    ) -> None:
        import anthropic

        self.model = model
        self.name = f"anthropic/{model}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or ("not-needed" if base_url else None)
        if key is None:
            raise ValueError("anthropic models need ANTHROPIC_API_KEY (or --api-key)")
        self._anthropic = anthropic
        self.client = anthropic.Anthropic(
            base_url=base_url, api_key=key, timeout=timeout_s, max_retries=0
        )
        self.endpoint = base_url or "https://api.anthropic.com"

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        # No JSON mode in the Messages API: the prompt's own "answer with JSON only" has to do.
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns = [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]
        kwargs: dict = {"system": system} if system else {}
        # Recent SDKs dropped sampling arguments from `create`'s signature; the request body
        # still carries them (the API's own default temperature is 1, not the harness's 0).
        kwargs["extra_body"] = {"temperature": self.temperature}
        if reply.stop:
            kwargs["stop_sequences"] = list(reply.stop)
        with sdk_errors(self._anthropic, self.name):
            response = self.client.messages.create(
                model=self.model, messages=turns, max_tokens=self.max_tokens, **kwargs
            )
        text = "".join(getattr(block, "text", "") for block in (response.content or []))
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            truncated=getattr(response, "stop_reason", None) == "max_tokens",
            input_tokens=getattr(usage, "input_tokens", 0) or 0,
            output_tokens=getattr(usage, "output_tokens", 0) or 0,
            model=self.name,
        )


@register("anthropic")
def _anthropic(model: str, options: ModelOptions) -> AnthropicModel:
    if not model:
        raise ValueError("name the model: anthropic/<model>")
    return AnthropicModel(
        model,
        base_url=options.base_url,
        api_key=options.api_key,
        timeout_s=options.timeout_s,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
    )
