"""Grading a captured patch, apart from the run that made it: the local grader (a fresh
checkout at the base commit, the agent's source edits, the instance's tests, the repository's
test command in a sandbox) and the rules every grader shares."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from capabench.swe.records import Instance, patch_files
from capabench.swe.workspace import apply_patch, checkout, limits, sandboxed

Status = Literal["scored", "error", "timeout", "not_evaluated"]
GRADER_VERSION = "local-1"


class Grade(BaseModel):
    """A judgement about a patch; `resolved` is None unless `status` is scored."""

    status: Status
    resolved: bool | None = None
    tests: dict[str, str] = {}  # test id -> passed | failed | error | skipped | missing
    localization_hit: bool | None = None
    source_files: tuple[str, ...] = ()
    stripped_test_files: tuple[str, ...] = ()
    detail: str = ""
    grader: str = GRADER_VERSION
    isolation: str = ""
    duration_s: float = 0.0


def is_test_file(path: str) -> bool:
    """Test files by the conventions pytest and SWE-bench repositories use."""
    parts = Path(path).parts
    name = parts[-1] if parts else ""
    return (
        any(p in ("tests", "test", "testing") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name == "conftest.py"
    )


def split_patch(patch: str) -> tuple[str, list[str], list[str]]:
    """(the patch without its test-file sections, source files, stripped test files)."""
    sections, current = [], []
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git ") and current:
            sections.append("".join(current))
            current = []
        current.append(line)
    if current:
        sections.append("".join(current))
    kept, sources, tests = [], [], []
    for section in sections:
        files = patch_files(section)
        if files and is_test_file(files[0]):
            tests.append(files[0])
        else:
            kept.append(section)
            sources.extend(files)
    return "".join(kept), sources, tests


def graded_part(instance: Instance, patch: str) -> tuple[str, dict]:
    """(the patch a grader applies: test files stripped, the fields every grade carries:
    source and stripped files, localization against the gold patch's files)."""
    source_patch, sources, stripped = split_patch(patch)
    common = {
        "source_files": tuple(sources),
        "stripped_test_files": tuple(stripped),
        "localization_hit": bool(set(instance.gold_files()) & set(sources)) if sources else False,
    }
    return source_patch, common


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
        return Grade(status="timeout" if detail == "timeout" else "error", detail=detail,
                     isolation=isolation, duration_s=elapsed, **common)  # fmt: skip
    tests = {t: outcome.get(t, "missing") for t in ids}
    return Grade(status="scored", resolved=all(v == "passed" for v in tests.values()), tests=tests,
                 isolation=isolation, duration_s=elapsed, **common)  # fmt: skip


def test_command(ids: list[str], report: Path) -> list[str]:
    """The repository's test command: pytest on the given test ids, a JUnit report out."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
            "-o", "junit_family=xunit1", *ids]  # fmt: skip


def run_tests(
    work: Path, ids: list[str], timeout_s: float
) -> tuple[dict[str, str] | None, str, str]:
    """({test id: outcome}, detail, isolation); outcome None on a timeout or no report."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONHASHSEED": "0"}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="capabench-tmp-") as tmp:
        report = Path(tmp) / "junit.xml"
        command, isolation = sandboxed(test_command(ids, report), work, tmp)
        proc = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, preexec_fn=limits)  # fmt: skip
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
        outcomes[key] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                         else "skipped" if "skipped" in kinds else "passed")  # fmt: skip
    return outcomes
