"""A question that offers the same items in another order, or with and without their repeats
("`[2, 5, 7]` or `[7, 5, 2]`?", "`[1, 5]`, `[5, 1]` or `[5, 5, 1]`?"), asks how the returned
list is tidied, whatever words it uses: the literals say it."""

from __future__ import annotations

import ast
import re

_LIST = re.compile(r"\[[^\[\]\n]{1,160}\]")
# the literals are offered as alternatives, not an input and what it gives
_BETWEEN = re.compile(r"\bor\b|\bvs\.?\b|\bversus\b|\binstead of\b|\brather than\b", re.I)
_OPTIONS = 6  # alternatives are offered side by side: a list is compared with the next few


def _items(literal: str) -> tuple[str, ...] | None:
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, list) or len(value) < 2:
        return None
    if not all(isinstance(v, int | float | str) and not isinstance(v, bool) for v in value):
        return None
    return tuple(repr(v) for v in value)


def reordered(question: str) -> tuple[str, ...]:
    """("tidy_list",) when the question offers one list's items reordered or deduplicated."""
    lists = [(m, items) for m in _LIST.finditer(question) if (items := _items(m.group(0)))]
    for i, (first, a) in enumerate(lists):
        for second, b in lists[i + 1 : i + 1 + _OPTIONS]:
            if a == b or not _BETWEEN.search(question, first.end(), second.start()):
                continue
            if sorted(a) == sorted(b) or set(a) == set(b):
                return ("tidy_list",)
    return ()
