"""Work-arounds for the interpreters we support.

CPython before 3.13 keeps the recursion depth of its AST conversions (C to Python in
`ast.parse`, Python to C in `compile(tree)`) in shared state, so two threads converting at
once can fail with "AST constructor recursion depth mismatch" (CPython issue gh-106905).
capabench parses and compiles code from several threads (the runner's workers, the
builder's cells), so on those versions, once `serialize_ast_parse()` has run, every
`ast.parse` in the process (tracebacks in 3.11 parse too), and our own `compile` of AST
objects, hold AST_LOCK. Parsing is fast; the lock costs nothing measurable. Nothing is patched
on import: a `SandboxPool`, which every parallel part of capabench shares, calls it.
"""

from __future__ import annotations

import ast
import sys
import threading

AST_LOCK = threading.RLock()


def serialize_ast_parse() -> None:
    if sys.version_info >= (3, 13) or getattr(ast.parse, "_capabench_locked", False):
        return
    original = ast.parse

    def parse(*args, **kwargs):
        with AST_LOCK:
            return original(*args, **kwargs)

    parse.__doc__ = original.__doc__
    parse._capabench_locked = True  # type: ignore[attr-defined]
    ast.parse = parse
