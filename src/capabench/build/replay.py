"""Run a function of generated code on given calls, in the sandbox, and keep what each
call returned or raised: how hidden tests are recorded and how a request's examples are
replayed."""

from __future__ import annotations

from capabench.conventions.hidden_tests import literal
from capabench.conventions.shape import Call
from capabench.judge import judge_recorded
from capabench.judge.sandbox import SandboxPool
from capabench.records import CallRecord

_DRIVER = """CALLS = [
{rows}]


def check(candidate):
    for args, kwargs in CALLS:
        try:
            candidate(*args, **kwargs)
        except Exception:
            pass
"""


def record_calls(
    code: str, entry_point: str, calls: list[Call], pool: SandboxPool | None = None
) -> list[CallRecord] | None:
    """What `code`'s `entry_point` does on each call, run in the sandbox; None when the
    driver itself didn't run through."""
    driver = _DRIVER.format(
        rows="".join(f"    ({literal(c.args)}, {literal(c.kwargs)}),\n" for c in calls)
    )
    verdict, records = judge_recorded(code, driver, entry_point, pool=pool)
    return records if verdict.passed and len(records) == len(calls) else None
