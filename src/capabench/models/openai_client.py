"""`openai/<model>`: the official SDK, for OpenAI and every OpenAI-compatible server
(vLLM, llama.cpp, Ollama) through `base_url`. The SDK's own retries are off: one owner."""

from __future__ import annotations

import json
import os

from capabench.models.base import PLAIN, Completion, Message, ModelOptions, ReplyOptions, register
from capabench.models.errors import InfraError, sdk_errors


class OpenAIModel:
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
        import openai

        self.model = model
        self.name = f"openai/{model}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
        if key is None:
            raise ValueError(
                "openai models need OPENAI_API_KEY (or --api-key), or a --base-url of a local server"
            )
        self._openai = openai
        self.client = openai.OpenAI(
            base_url=base_url, api_key=key, timeout=timeout_s, max_retries=0
        )
        self.endpoint = base_url or "https://api.openai.com"

    def complete(
        self,
        messages: list[Message],
        reply: ReplyOptions = PLAIN,
    ) -> Completion:
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if reply.stop:
            body["stop"] = list(reply.stop)
        if reply.schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": reply.schema},
            }
        elif reply.json_object:
            body["response_format"] = {"type": "json_object"}
        with sdk_errors(self._openai, self.name):
            # The SDK's generic request, not chat.completions.create: create() walks the type
            # annotations of every message and builds typed objects from the answer (about
            # half the harness's CPU per call by turn 8). Status errors are raised the same.
            raw = self.client.post("/chat/completions", cast_to=str, body=body)
        try:
            response = json.loads(raw)
            text = response["choices"][0]["message"]["content"] or ""
            truncated = response["choices"][0].get("finish_reason") == "length"
            usage = response.get("usage") or {}
            if not isinstance(text, str) or not isinstance(usage, dict):
                raise TypeError
        except (ValueError, LookupError, TypeError, AttributeError):
            raise InfraError(f"{self.name}: malformed response: {raw[:200]!r}") from None
        return Completion(
            text=text,
            truncated=truncated,
            input_tokens=usage.get("prompt_tokens") or 0,
            output_tokens=usage.get("completion_tokens") or 0,
            model=self.name,
        )


@register("openai")
def _openai(model: str, options: ModelOptions) -> OpenAIModel:
    if not model:
        raise ValueError("name the model: openai/<model>")
    return OpenAIModel(
        model,
        base_url=options.base_url,
        api_key=options.api_key,
        timeout_s=options.timeout_s,
        temperature=options.temperature,
        max_tokens=options.max_tokens,
    )
