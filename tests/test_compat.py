"""The AST work-around's scope (capabench._compat): `ast.parse` holds the lock only while a
sandbox pool is open, on interpreters before 3.13, and is the interpreter's own otherwise."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ast_parse_is_locked_only_while_a_pool_is_open():
    _run(
        """
        import ast, gc, sys
        original = ast.parse
        import capabench, capabench.judge
        from capabench.judge.sandbox import Limits, SandboxPool
        assert ast.parse is original  # nothing patched on import

        first = SandboxPool(1, isolation="process")
        if sys.version_info >= (3, 13):
            assert ast.parse is original
            raise SystemExit(0)
        assert ast.parse is not original and ast.parse._capabench_locked
        assert ast.parse("x = 1").body[0].targets[0].id == "x"  # the same parse, locked
        second = SandboxPool(1, isolation="process")
        first.close()
        assert ast.parse._capabench_locked  # the second pool is still open
        first.close()  # closing twice lets go once
        assert ast.parse._capabench_locked
        second.close()
        assert ast.parse is original  # the last pool closed: the interpreter's own again

        code = "def f(x):\\n    return x\\n"
        tests = "def check(candidate):\\n    assert candidate(1) == 1\\n"
        verdict = first.run(code, tests, "f", Limits())
        assert verdict["status"] == "passed", verdict
        assert ast.parse._capabench_locked  # used again after its close: open again
        first.close()
        assert ast.parse is original

        third = SandboxPool(1, isolation="process")
        assert ast.parse._capabench_locked
        del third
        gc.collect()
        assert ast.parse is original  # a pool collected unclosed lets go too
        """
    )


def test_a_patch_put_over_the_lock_is_left_in_place():
    _run(
        """
        import ast, sys
        from capabench._compat import SerializedAstParse
        hold = SerializedAstParse()
        hold.acquire()
        theirs = lambda *a, **k: None
        ast.parse = theirs
        hold.release()
        assert ast.parse is theirs
        """
    )
