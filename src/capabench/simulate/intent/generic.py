"""Generic questions: "what should it return?", "any other requirements?", "what format
should the output be in?" name no concept a convention settles, so they reveal nothing (the
paper's simulated user answers what is asked, no more; tests/data/real_questions/README.md
labels them the same way)."""

from __future__ import annotations

import re

# A generic question asks for the whole input, output or requirements and names no concept
# ("What are the expected input and output?", "Any other requirements?", "What format
# should the output be in?"): the user answers what is asked, so it reveals nothing
# (docs/simulated-user.md; tests/data/real_questions/README.md gives these no target).
# Words that make a question ask for the whole of something (at least one must occur).
_GENERIC_HEAD = frozenset(
    [
        "input",
        "inputs",
        "output",
        "outputs",
        "result",
        "results",
        "return",
        "returns",
        "returned",
        "requirement",
        "requirements",
        "constraint",
        "constraints",
        "preference",
        "preferences",
        "edge",
        "else",
    ]
)
_GENERIC_WORDS = _GENERIC_HEAD | frozenset(
    [
        "a",
        "an",
        "and",
        "or",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "be",
        "is",
        "are",
        "was",
        "should",
        "would",
        "will",
        "could",
        "can",
        "do",
        "does",
        "did",
        "i",
        "we",
        "you",
        "it",
        "its",
        "it's",
        "there",
        "this",
        "that",
        "what",
        "what's",
        "how",
        "any",
        "anything",
        "other",
        "another",
        "additional",
        "further",
        "more",
        "specific",
        "particular",
        "expected",
        "exact",
        "exactly",
        "kind",
        "value",
        "values",
        "format",
        "formats",
        "type",
        "types",
        "form",
        "shape",
        "look",
        "looks",
        "like",
        "function",
        "function's",
        "detail",
        "details",
        "need",
        "know",
        "have",
        "has",
        "i'd",
        "me",
        "give",
        "gives",
        "given",
        "take",
        "takes",
        "parameters",
        "arguments",
        "cases",
        "handle",
        "handled",
        "consider",
        "mind",
        "so",
        "also",
        "then",
        "ok",
        "okay",
        "please",
        "understand",
        "clarify",
        "problem",
    ]
)


def generic(question: str) -> bool:
    """Whether a question asks only for the whole input, output or requirements."""
    # "which format?" asks for the whole format; a bare "which should it return?" points back
    # at alternatives named before it
    text = re.sub(r"\bwhich (?=(?:format|type|kind|form|shape)s?\b)", "what ", question.lower())
    words = re.findall(r"[a-z][a-z']*", text)
    return (
        bool(words)
        and all(w in _GENERIC_WORDS for w in words)
        and any(w in _GENERIC_HEAD for w in words)
    )
