"""From a test run's status map to a grade, by SWE-bench's rules (swebench's
get_eval_tests_report and get_resolution_status, ids matched as its grading matches them),
with one rule of capabench's on top: a listed test that did not run is "not run", never
"failed". A grade whose listed tests didn't all run is an `error` with the reason, unless a
listed test that did run failed (then the patch is unresolved whatever the others would
have done, and the detail still names the tests that didn't run)."""

from __future__ import annotations

from capabench.swe.grading.grade import Grade
from capabench.swe.swe_records import Instance

NOT_RUN = "not run"
# swebench's TestStatus values, as a grade's test outcomes
OUTCOME = {
    "PASSED": "passed",
    "FAILED": "failed",
    "ERROR": "error",
    "SKIPPED": "skipped",
    "XFAIL": "xfail",
}


def swebench_grading():
    """swebench 5.x's grading module, or None where it isn't installed."""
    try:
        from swebench.harness import grading
    except ImportError:
        return None
    return grading


def resolve_id(case: str, status_map: dict[str, str]) -> str | None:
    """The status map's key for a listed test id: exact, or as swebench 5.x resolves ids
    that SWE-bench's data cut inside a parameter; None: the test did not run."""
    grading = swebench_grading()
    resolve = getattr(grading, "_resolve_case", None) if grading else None
    key = resolve(case, status_map) if resolve is not None else None
    if key is None and case in status_map:
        key = case
    if key is None:
        # swebench's later-pytest parser (sphinx, astropy, scikit-learn) keeps an ERROR
        # line's " - <message>" in the test's name: that line is this test's result
        key = next((k for k in status_map if k.startswith(f"{case} - ")), None)
    return key


def outcomes(instance: Instance, status_map: dict[str, str]) -> dict[str, str]:
    """{listed test id: passed | failed | error | skipped | xfail | not run}."""
    out = {}
    for case in (*instance.fail_to_pass, *instance.pass_to_pass):
        key = resolve_id(case, status_map)
        out[case] = (
            NOT_RUN if key is None else OUTCOME.get(status_map[key], status_map[key].lower())
        )
    return out


def resolved_by_swebench(instance: Instance, status_map: dict[str, str]) -> bool:
    """SWE-bench's resolution (FAIL_TO_PASS all pass, PASS_TO_PASS all maintained: a skipped
    PASS_TO_PASS test is no regression); all-pass where swebench isn't installed."""
    grading = swebench_grading()
    if grading is None:
        return all(
            status_map.get(resolve_id(t, status_map) or "", "") in ("PASSED", "XFAIL")
            for t in (*instance.fail_to_pass, *instance.pass_to_pass)
        )
    from swebench.harness.constants import FAIL_TO_PASS, PASS_TO_PASS, EvalType, ResolvedStatus

    report = grading.get_eval_tests_report(
        status_map,
        {FAIL_TO_PASS: list(instance.fail_to_pass), PASS_TO_PASS: list(instance.pass_to_pass)},
        eval_type=EvalType.PASS_AND_FAIL,
    )
    return grading.get_resolution_status(report) == ResolvedStatus.FULL.value


def verdict(instance: Instance, status_map: dict[str, str], **fields) -> Grade:
    """The grade of one test run whose results were read (`status_map`, the parser's
    {test: PASSED|FAILED|...}). `fields`: what every grade carries (files, isolation...)."""
    tests = outcomes(instance, status_map)
    missing = [t for t, v in tests.items() if v == NOT_RUN]
    f2p = set(instance.fail_to_pass)
    failing = [
        t for t, v in tests.items() if v in ("failed", "error") or (v == "skipped" and t in f2p)
    ]
    detail = fields.pop("detail", "")
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        note = f"{len(missing)} of {len(tests)} listed tests did not run: {shown}"
        if not status_map:
            note += " (the run reported no test at all)"
        detail = "; ".join(x for x in (note, detail) if x)
        if not failing:
            return Grade(status="error", tests=tests, detail=detail, **fields)
    resolved = not missing and resolved_by_swebench(instance, status_map)
    return Grade(status="scored", resolved=resolved, tests=tests, detail=detail, **fields)
