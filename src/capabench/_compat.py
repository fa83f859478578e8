"""Work-arounds for the interpreters we support.

CPython before 3.13 keeps the recursion depth of its AST conversions (C to Python in
`ast.parse`, Python to C in `compile(tree)`) in shared state, so two threads converting at
once can fail with "AST constructor recursion depth mismatch" (CPython issue gh-106905).
capabench parses and compiles code from several threads (the runner's workers, the
builder's cells, the simulated user), and so may any library they call, or a traceback being
formatted (3.11's tracebacks parse too): no call site can lock for all of them. So on those
versions `ast.parse` itself holds AST_LOCK, as does our own `compile` of AST objects, while
some holder holds a `SerializedAstParse`; once none does, `ast.parse` is the interpreter's own
again. Parsing is fast; the lock costs nothing measurable.

Who holds one: every open `SandboxPool` (judge/sandbox.py), which every parallel part of
capabench shares. Nothing is patched on import, and nothing is left patched once the last pool
is closed (or collected).
"""

from __future__ import annotations

import ast
import sys
import threading

AST_LOCK = threading.RLock()
NEEDED = sys.version_info < (3, 13)

_claims = threading.Lock()
_holders = 0
_original = None  # the `ast.parse` in place when the first holder took hold


def _locked(original):
    def parse(*args, **kwargs):
        with AST_LOCK:
            return original(*args, **kwargs)

    parse.__doc__ = original.__doc__
    parse.__wrapped__ = original  # type: ignore[attr-defined]
    parse._capabench_locked = True  # type: ignore[attr-defined]
    return parse


class SerializedAstParse:
    """One holder's claim on the locked `ast.parse` (a no-op from 3.13 on). `acquire` and
    `release` may each be called any number of times: a claim counts once."""

    def __init__(self) -> None:
        self.held = False

    def acquire(self) -> None:
        global _holders, _original
        with _claims:
            if self.held:
                return
            self.held = True
            _holders += 1
            if _holders == 1 and NEEDED:
                _original = ast.parse
                ast.parse = _locked(_original)

    def release(self) -> None:
        global _holders, _original
        with _claims:
            if not self.held:
                return
            self.held = False
            _holders -= 1
            if _holders == 0 and _original is not None:
                # only our own wrapper is taken back: a patch someone put over it stays
                if getattr(ast.parse, "__wrapped__", None) is _original:
                    ast.parse = _original
                _original = None
