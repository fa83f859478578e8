"""Judging submissions: code extraction and sandboxed execution against hidden tests."""

from __future__ import annotations

import base64
import marshal

from capabench.judge.extract import extract_code
from capabench.judge.sandbox import InvalidTests, Limits, SandboxPool, default_pool
from capabench.judge.verdicts import Verdicts
from capabench.records import CallRecord, FailureCase, Task, Verdict

__all__ = [
    "InvalidTests",
    "Limits",
    "SandboxPool",
    "Verdicts",
    "extract_code",
    "judge",
    "judge_recorded",
    "judge_task",
    "task_submission",
]


def judge(
    code: str,
    tests: str,
    entry_point: str,
    *,
    timeout_s: float = 10.0,
    pool: SandboxPool | None = None,
    limits: Limits | None = None,
    verdicts: Verdicts | None = None,
) -> Verdict:
    """Run `check(<entry_point>)` from `tests` against `code` in the sandbox.

    Passing means the harness saw `check` return; neither the exit code nor anything
    the submission prints can make a pass. `verdicts`: the verdicts reached so far, for
    code the harness wrote (capabench.judge.verdicts).
    """
    limits = limits or Limits(timeout_s=timeout_s)
    key = (code, tests, entry_point, limits)
    if verdicts is not None and (known := verdicts.get(key)) is not None:
        return known
    verdict = _judge(code, tests, entry_point, pool, limits, record=False)[0]
    if verdicts is not None:
        verdicts.keep(key, verdict)
    return verdict


def judge_recorded(
    code: str,
    tests: str,
    entry_point: str,
    *,
    timeout_s: float = 10.0,
    pool: SandboxPool | None = None,
    limits: Limits | None = None,
) -> tuple[Verdict, list[CallRecord]]:
    """`judge`, plus every call the tests made and what came back: how a reference is spied on."""
    return _judge(
        code, tests, entry_point, pool, limits or Limits(timeout_s=timeout_s), record=True
    )


def _judge(
    code: str,
    tests: str,
    entry_point: str,
    pool: SandboxPool | None,
    limits: Limits,
    *,
    record: bool,
) -> tuple[Verdict, list[CallRecord]]:
    pool = pool or default_pool()
    if not code or not code.strip():
        return Verdict(
            passed=False, status="no_code", detail="no code was submitted", isolation=pool.isolation
        ), []
    raw = pool.run(code, tests, entry_point, limits, record=record)
    status = raw["status"]
    if status == "invalid_tests":
        raise InvalidTests(raw.get("detail", "unusable tests"))
    if "record_error" in raw:
        raise InvalidTests(raw["record_error"])
    calls = (
        [CallRecord(**entry) for entry in marshal.loads(base64.b64decode(raw["record"]))]
        if "record" in raw
        else []
    )
    if status not in ("passed", "failed", "error", "timeout", "resource_limit"):
        status = "error"
    case = raw.get("case")
    verdict = Verdict(
        passed=status == "passed",
        status=status,
        detail=raw.get("detail", ""),
        duration_s=raw.get("duration_s", 0.0),
        calls=raw.get("calls", 0),
        case=FailureCase(**case) if case else None,
        stdout=raw.get("stdout", ""),
        stderr=raw.get("stderr", ""),
        isolation=pool.isolation,
    )
    return verdict, calls


def task_submission(task: Task, code: str) -> str:
    """The module to judge for `code` answering `task`.

    The prompt goes first so its imports and helper functions are there; a whole
    function then redefines the entry point, a bare body completes the prompt's
    (HumanEval's completion style).
    """
    if not code.strip():
        return ""
    if any(line.startswith(f"def {task.entry_point}(") for line in code.splitlines()):
        return task.prompt + "\n\n" + code
    return task.prompt + code


def judge_task(task: Task, code: str, **kwargs) -> Verdict:
    return judge(task_submission(task, code), task.judge_tests, task.entry_point, **kwargs)
