from __future__ import annotations

import pytest

from capabench.judge import InvalidTests, Limits, SandboxPool, judge, judge_task
from capabench.judge.sandbox import compiled_tests
from capabench.tasks import load_humaneval

ADD_TESTS = (
    "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"
)
ADD = "def add(a, b):\n    return a + b\n"


def test_all_164_canonical_solutions_pass(pool):
    from concurrent.futures import ThreadPoolExecutor

    tasks = load_humaneval()
    with ThreadPoolExecutor(pool.size) as ex:
        verdicts = list(ex.map(lambda t: judge_task(t, t.reference_solution, pool=pool), tasks))
    failed = {t.id: v.detail for t, v in zip(tasks, verdicts, strict=True) if not v.passed}
    assert failed == {}
    assert all(v.status == "passed" and v.calls > 0 for v in verdicts)


def test_whole_function_and_completion_styles_both_work(pool):
    task = load_humaneval()[2]  # truncate_number
    whole = "def truncate_number(number: float) -> float:\n    return number % 1.0\n"
    assert judge_task(task, whole, pool=pool).passed
    assert judge_task(task, "    return number % 1.0\n", pool=pool).passed


def test_wrong_solution_reports_input_expected_got(pool):
    verdict = judge("def add(a, b):\n    return a * b\n", ADD_TESTS, "add", pool=pool)
    assert verdict.status == "failed" and not verdict.passed
    assert verdict.case is not None
    assert (verdict.case.input, verdict.case.expected, verdict.case.got) == ("add(1, 2)", "3", "2")
    assert "add(1, 2) returned 2, expected 3" in verdict.detail


def test_wrong_humaneval_solution_has_useful_detail(pool):
    task = load_humaneval()[0]
    verdict = judge_task(
        task, "def has_close_elements(numbers, threshold):\n    return False\n", pool=pool
    )
    assert verdict.status == "failed"
    assert verdict.detail.startswith(
        "has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) returned False, expected True"
    )


def test_non_equality_assertion_shows_the_line_and_last_call(pool):
    tests = "def check(candidate):\n    assert abs(candidate(2) - 4.0) < 1e-6\n"
    verdict = judge("def sq(x):\n    return x * 3\n", tests, "sq", pool=pool)
    assert verdict.status == "failed"
    assert "assert abs(candidate(2) - 4.0) < 1e-6" in verdict.detail
    assert "sq(2) returned 6" in verdict.detail


def test_exception_in_candidate_is_a_failure_with_traceback(pool):
    verdict = judge("def add(a, b):\n    return a / 0\n", ADD_TESTS, "add", pool=pool)
    assert verdict.status == "failed"
    assert "add(1, 2) raised ZeroDivisionError: division by zero" in verdict.detail
    assert 'File "solution.py", line 2, in add' in verdict.detail


def test_expected_exceptions_cross_the_process_boundary(pool):
    tests = (
        "def check(candidate):\n"
        "    try:\n        candidate(-1)\n    except ValueError as e:\n        assert 'negative' in str(e)\n"
        "    else:\n        raise AssertionError('no ValueError')\n"
    )
    good = "def root(x):\n    if x < 0:\n        raise ValueError('negative input')\n    return x ** 0.5\n"
    assert judge(good, tests, "root", pool=pool).passed
    bad = "def root(x):\n    if x < 0:\n        raise TypeError('negative input')\n    return x ** 0.5\n"
    assert judge(bad, tests, "root", pool=pool).status == "failed"


def test_load_errors(pool):
    syntax = judge("def add(a, b)\n    return a + b\n", ADD_TESTS, "add", pool=pool)
    assert syntax.status == "error" and "SyntaxError" in syntax.detail
    missing = judge("def plus(a, b):\n    return a + b\n", ADD_TESTS, "add", pool=pool)
    assert missing.status == "error" and "defines no callable `add`" in missing.detail
    boom = judge("import not_a_module_anywhere\n" + ADD, ADD_TESTS, "add", pool=pool)
    assert boom.status == "error" and "ModuleNotFoundError" in boom.detail


def test_no_code(pool):
    for code in ("", "   \n"):
        verdict = judge(code, ADD_TESTS, "add", pool=pool)
        assert verdict.status == "no_code" and not verdict.passed


def test_invalid_tests_are_the_callers_error(pool):
    with pytest.raises(InvalidTests, match=r"unusable tests: expected .:. \(tests.py, line 1\)"):
        judge(ADD, "def check(candidate)\n", "add", pool=pool)
    with pytest.raises(InvalidTests, match="no top-level check"):
        judge(ADD, "def verify(candidate):\n    pass\n", "add", pool=pool)
    with pytest.raises(InvalidTests, match="failed to load"):
        judge(
            ADD, "import not_a_module_anywhere\ndef check(candidate):\n    pass\n", "add", pool=pool
        )
    assert judge(ADD, ADD_TESTS, "add", pool=pool).passed  # the worker is fine afterwards


def test_output_is_captured_and_capped(pool):
    code = "print('hello from load')\nimport sys\nprint('x' * 100000, file=sys.stderr)\n" + ADD
    verdict = judge(code, ADD_TESTS, "add", pool=pool, limits=Limits(output_cap=1000))
    assert verdict.passed
    assert verdict.stdout.strip() == "hello from load"
    assert len(verdict.stderr) < 1100 and verdict.stderr.endswith("[output truncated]")


def test_per_call_output_and_logs_are_visible_to_tests(pool):
    code = (
        "import logging, sys\n"
        "def add(a, b):\n"
        "    logging.getLogger('acme').info('adding %s and %s', a, b)\n"
        "    print('[acme] done', file=sys.stderr)\n"
        "    return a + b\n"
    )
    tests = (
        "def check(candidate):\n"
        "    assert candidate(1, 2) == 3\n"
        "    assert candidate.last_logs == [('acme', 'INFO', 'adding 1 and 2')]\n"
        "    assert candidate.last_stderr == '[acme] done\\n'\n"
    )
    assert judge(code, tests, "add", pool=pool).passed


def test_random_inputs_in_tests_are_reproducible(pool):
    tests = (
        "import random\ndef check(candidate):\n    candidate(random.random())\n    assert False\n"
    )
    details = {judge("def f(x):\n    return x\n", tests, "f", pool=pool).detail for _ in range(3)}
    assert len(details) == 1


def test_tests_are_compiled_once_and_cached():
    compiled_tests.cache_clear()
    for _ in range(3):
        compiled_tests(ADD_TESTS)
    info = compiled_tests.cache_info()
    assert (info.misses, info.hits) == (1, 2)


def test_limits_validate():
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        Limits(timeout_s=0)


def test_process_isolation_fallback_still_judges():
    pool = SandboxPool(1, isolation="process")
    try:
        assert pool.isolation == "process"
        assert judge(ADD, ADD_TESTS, "add", pool=pool).passed
        wrong = judge("def add(a, b):\n    return 0\n", ADD_TESTS, "add", pool=pool)
        assert wrong.status == "failed" and wrong.isolation == "process"
        assert judge("import os\nos._exit(0)\n", ADD_TESTS, "add", pool=pool).status == "error"
        assert (
            judge(
                "def add(a, b):\n    while True: pass\n", ADD_TESTS, "add", pool=pool, timeout_s=0.5
            ).status
            == "timeout"
        )
        assert pool.leftover_processes() == []
    finally:
        pool.close()


def test_recorded_calls_are_copies_with_outcomes_and_side_channels(pool):
    from capabench.judge import judge_recorded

    code = (
        "import logging\n"
        "def f(xs, k=1):\n"
        "    xs.append('mutated')\n"
        "    if k < 0:\n        raise ValueError('negative')\n"
        "    logging.getLogger('acme').warning('k=%s', k)\n"
        "    open('out.txt', 'w').write(str(k))\n"
        "    print('called')\n"
        "    return (len(xs), k)\n"
    )
    tests = (
        "def check(candidate):\n"
        "    data = [1, 2]\n"
        "    assert candidate(data, k=3) == (3, 3)\n"
        "    assert data == [1, 2]\n"
        "    try:\n        candidate([], k=-1)\n    except ValueError:\n        pass\n"
    )
    verdict, calls = judge_recorded(code, tests, "f", pool=pool)
    assert verdict.passed
    first, second = calls
    assert first.args == ([1, 2],) and first.kwargs == {"k": 3}
    assert first.returned == (3, 3) and type(first.returned) is tuple and first.raised is None
    assert first.stdout == "called\n" and first.logs == [("acme", "WARNING", "k=3")]
    assert first.files == {"out.txt": "3"}
    assert second.raised == "ValueError" and second.args == ([],)


def test_ast_work_is_serialized_on_interpreters_with_the_shared_depth_counter(pool):
    """Once a sandbox pool (which parallel work shares) exists."""
    import ast
    import sys
    import threading

    from capabench._compat import AST_LOCK

    if sys.version_info >= (3, 13):
        assert not getattr(ast.parse, "_capabench_locked", False)
        return
    assert ast.parse._capabench_locked
    entered = threading.Event()
    finished = []

    def parse():
        entered.set()
        finished.append(ast.parse("x = 1"))

    with AST_LOCK:
        worker = threading.Thread(target=parse)
        worker.start()
        entered.wait(5)
        worker.join(0.2)
        assert finished == []  # blocked while another thread holds the lock
    worker.join(5)
    assert len(finished) == 1


def test_compiled_tests_are_kept_on_disk_and_a_damaged_copy_is_replaced(
    tmp_path, monkeypatch, pool
):
    monkeypatch.setenv("CAPABENCH_CACHE", str(tmp_path))
    tests = "def check(candidate):\n    assert candidate(2) == 4\n"
    compile_once = compiled_tests.__wrapped__  # past the in-process cache
    data = compile_once(tests)
    (stored,) = (tmp_path / "compiled-tests").rglob("*.marshal")
    assert stored.read_bytes() == data
    stored.write_bytes(data[: len(data) // 2])  # a torn write
    assert compile_once(tests) == data
    assert stored.read_bytes() == data
    other = tests.replace("4", "5")
    assert compile_once(other) != data  # keyed by the tests' text
    verdict = judge("def f(x):\n    return x * 2\n", tests, "f", pool=pool)
    assert verdict.passed


class _CountingPool:
    """A pool that answers as the sandbox would and counts what it ran."""

    def __init__(self, pool, status: str | None = None) -> None:
        self.pool, self.status, self.runs = pool, status, 0
        self.isolation = pool.isolation

    def run(self, *args, **kwargs):
        self.runs += 1
        raw = self.pool.run(*args, **kwargs)
        return {**raw, "status": self.status} if self.status else raw


def test_harness_code_is_judged_once_per_verdicts_a_timeout_every_time(pool):
    from capabench.judge import Verdicts

    counting, verdicts = _CountingPool(pool), Verdicts()
    first = judge(ADD, ADD_TESTS, "add", pool=counting, verdicts=verdicts)
    again = judge(ADD, ADD_TESTS, "add", pool=counting, verdicts=verdicts)
    assert first.passed and again == first and counting.runs == 1
    # other tests, other limits or no verdicts at all: run again
    judge(ADD, ADD_TESTS.replace("== 0", "== 0 or True"), "add", pool=counting, verdicts=verdicts)
    judge(ADD, ADD_TESTS, "add", pool=counting, verdicts=verdicts, timeout_s=5.0)
    judge(ADD, ADD_TESTS, "add", pool=counting)
    assert counting.runs == 4
    # a timeout says how loaded the machine was, not what the code does: never kept
    slow, kept = _CountingPool(pool, status="timeout"), Verdicts()
    for _ in range(2):
        assert judge(ADD, ADD_TESTS, "add", pool=slow, verdicts=kept).status == "timeout"
    assert slow.runs == 2 and len(kept) == 0
