"""The local grader: a fresh checkout at the base commit, the agent's source edits, the
instance's tests, the repository's test command (pytest with this interpreter) in a sandbox."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from capabench.swe.git import apply_patch, checkout
from capabench.swe.grading.grade import Grade, graded_part
from capabench.swe.records import Instance
from capabench.swe.sandbox import limits, sandboxed


def grade_locally(instance: Instance, patch: str, repo: Path, *, timeout_s: float = 300.0) -> Grade:
    """Resolved only when every FAIL_TO_PASS and PASS_TO_PASS test passes after the agent's
    source edits and the instance's test patch; an empty source patch is unresolved without
    running anything."""
    start = time.monotonic()
    source_patch, common = graded_part(instance, patch)
    if not source_patch.strip():
        return Grade(status="scored", resolved=False, detail="empty source patch", **common)
    with tempfile.TemporaryDirectory(prefix="capabench-grade-") as tmp:
        work = Path(tmp) / "repo"
        checkout(repo, instance.base_commit, work)
        for name, text in (("agent patch", source_patch), ("test patch", instance.test_patch)):
            if text.strip() and (problem := apply_patch(work, text)):
                if name == "agent patch":  # a patch that doesn't apply resolves nothing
                    return Grade(
                        status="scored",
                        resolved=False,
                        detail=f"{name} does not apply: {problem}",
                        **common,
                    )
                return Grade(status="error", detail=f"{name} does not apply: {problem}", **common)
        ids = [*instance.fail_to_pass, *instance.pass_to_pass]
        outcome, detail, isolation = run_tests(work, ids, timeout_s)
    elapsed = round(time.monotonic() - start, 3)
    if outcome is None:
        return Grade(
            status="timeout" if detail == "timeout" else "error",
            detail=detail,
            isolation=isolation,
            duration_s=elapsed,
            **common,
        )
    tests = {t: outcome.get(t, "missing") for t in ids}
    return Grade(
        status="scored",
        resolved=all(v == "passed" for v in tests.values()),
        tests=tests,
        isolation=isolation,
        duration_s=elapsed,
        **common,
    )


def test_command(ids: list[str], report: Path) -> list[str]:
    """The repository's test command: pytest on the given test ids, a JUnit report out."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        "-o",
        "junit_family=xunit1",
        *ids,
    ]


def run_tests(
    work: Path, ids: list[str], timeout_s: float
) -> tuple[dict[str, str] | None, str, str]:
    """({test id: outcome}, detail, isolation); outcome None on a timeout or no report."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }
    with tempfile.TemporaryDirectory(prefix="capabench-tmp-") as tmp:
        report = Path(tmp) / "junit.xml"
        command, isolation = sandboxed(test_command(ids, report), work, tmp)
        proc = subprocess.Popen(
            command,
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=limits,
        )
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return None, "timeout", isolation
        if not report.is_file():
            return None, f"no test report (exit {proc.returncode}): {out[-800:]}", isolation
        return parse_junit(report.read_text()), "", isolation


def parse_junit(text: str) -> dict[str, str]:
    """pytest's xunit1 report as {path::name: outcome} (classes as path::Class::name)."""
    outcomes = {}
    for case in ET.fromstring(text).iter("testcase"):
        file = case.get("file") or case.get("classname", "").replace(".", "/") + ".py"
        classname = case.get("classname", "")
        module = file[:-3].replace("/", ".") if file.endswith(".py") else ""
        inner = (
            classname[len(module) + 1 :] if module and classname.startswith(module + ".") else ""
        )
        key = "::".join(x for x in (file, inner, case.get("name", "")) if x)
        kinds = {child.tag for child in case}
        outcomes[key] = (
            "failed"
            if "failure" in kinds
            else "error"
            if "error" in kinds
            else "skipped"
            if "skipped" in kinds
            else "passed"
        )
    return outcomes
