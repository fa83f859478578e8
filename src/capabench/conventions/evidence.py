"""Reading conventions out of text: which alternatives' statements a text contains (what a
careful reader learns from a user's answers), and which families a request cues."""

from __future__ import annotations

import functools

from capabench.conventions.base import REGISTRY


@functools.cache
def _statement_index() -> dict[str, tuple[str, str]]:
    return {
        alt.statement: (family.id, alt.id)
        for family in REGISTRY.values()
        for alt in family.alternatives
    }


def conventions_in(text: str) -> dict[str, str]:
    """The (family -> alternative) pairs whose statements the text contains."""
    return {
        family: alt for statement, (family, alt) in _statement_index().items() if statement in text
    }


def statement(family: str, alternative: str) -> str:
    return next(a.statement for a in REGISTRY[family].alternatives if a.id == alternative)


def cued(request: str) -> list[str]:
    """Families whose cue phrases the request contains."""
    lowered = request.lower()
    return [f.id for f in REGISTRY.values() if any(c and c.lower() in lowered for c in f.cues)]
