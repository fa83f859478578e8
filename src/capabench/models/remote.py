"""Specs for the hosted and OpenAI-compatible endpoints."""

from __future__ import annotations

from capabench.models.base import ModelOptions, register


@register("openai")
def _openai(model: str, options: ModelOptions):
    from capabench.models.openai_client import OpenAIModel

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


@register("anthropic")
def _anthropic(model: str, options: ModelOptions):
    from capabench.models.anthropic_client import AnthropicModel

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
