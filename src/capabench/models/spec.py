"""What a model spec names. Its kind is the text before the first `/` or `:`
(`openai/gpt-4o`, `local`, `scripted:replies.json`); the kinds that capabench plays
differently from a remote chat model are told apart here and nowhere else."""

from __future__ import annotations

LOCAL = "local"  # llama.cpp in this process (`capabench.models.local`)
POLICY = "baseline"  # a reference policy (`capabench.simulate.policies`): no model at all


class UnknownModel(ValueError):
    """A spec whose kind no provider registered (the message lists the known kinds)."""


def split_spec(spec: str) -> tuple[str, str]:
    """(kind, rest): `openai/gpt-4o` -> ("openai", "gpt-4o"), `local` -> ("local", "")."""
    cut = min((i for i in (spec.find(":"), spec.find("/")) if i >= 0), default=len(spec))
    return spec[:cut], spec[cut + 1 :]


def is_local(spec: str) -> bool:
    """A small model in this process: it gets the defaults that keep a small model on track
    (a reply ends with its first code block; the ask-or-guess arm acts under a JSON schema)."""
    return split_spec(spec)[0] == LOCAL


def is_policy(spec: str) -> bool:
    """A reference policy, played per session by `capabench.simulate.policies`, not a model."""
    return split_spec(spec)[0] == POLICY
