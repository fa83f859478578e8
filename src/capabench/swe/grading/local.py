"""The local grader: a fresh checkout at the base commit, the agent's source edits, the
instance's test patch, then the repository's tests in a sandbox without network: for a
SWE-bench repository its spec's test command in its prepared environment, read by
swebench's log parser (grading/env_tests.py); for the bundled ones pytest with this
interpreter and a JUnit report. Either way SWE-bench's rules decide (grading/verdict.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from capabench.swe.containment import limits, sandboxed
from capabench.swe.git import apply_patch, checkout
from capabench.swe.grading.env_tests import (
    TestsDidNotRun,
    copy_generated,
    pre_install,
    run_env_tests,
    status_map,
)
from capabench.swe.grading.envs import EnvProblem, ready_env
from capabench.swe.grading.grade import Grade, graded_part
from capabench.swe.grading.specs import spec_for
from capabench.swe.grading.verdict import verdict
from capabench.swe.swe_records import Instance


def grade_locally(
    instance: Instance,
    patch: str,
    repo: Path,
    *,
    timeout_s: float = 300.0,
    run_empty: bool = False,
) -> Grade:
    """Resolved only when every FAIL_TO_PASS and PASS_TO_PASS test passes after the agent's
    source edits and the instance's test patch; a listed test that did not run makes the
    grade an error (grading/verdict.py). An empty source patch is unresolved without running
    anything, unless `run_empty` (the empty-patch control). A SWE-bench repository is graded
    in its prepared environment by its spec's test command and swebench's log parser; the
    bundled ones with pytest and this interpreter."""
    start = time.monotonic()
    source_patch, common = graded_part(instance, patch)
    if not source_patch.strip() and not run_empty:
        return Grade(status="scored", resolved=False, detail="empty source patch", **common)
    try:
        spec = spec_for(instance)
        env = ready_env(instance, spec, repo) if spec is not None else None
    except (KeyError, EnvProblem) as exc:
        return Grade(status="error", detail=str(exc).strip("'\""), **common)
    with tempfile.TemporaryDirectory(prefix="capabench-grade-") as tmp:
        work = Path(tmp) / "repo"
        checkout(repo, instance.base_commit, work)
        if spec is not None and env is not None:
            copy_generated(env / "testbed", work)
            if problem := pre_install(spec, work):
                return Grade(status="error", detail=problem, **common)
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
        if spec is not None and env is not None:
            found, detail, isolation = _env_run(instance, spec, env, work, timeout_s)
        else:
            ids = [*instance.fail_to_pass, *instance.pass_to_pass]
            outcome, detail, isolation = run_tests(work, ids, timeout_s)
            found = None if outcome is None else {k: v.upper() for k, v in outcome.items()}
    elapsed = round(time.monotonic() - start, 3)
    if found is None:
        return Grade(
            status="timeout" if detail == "timeout" else "error",
            detail=detail,
            isolation=isolation,
            duration_s=elapsed,
            **common,
        )
    return verdict(instance, found, isolation=isolation, duration_s=elapsed, **common)


def _env_run(instance, spec, env, work, timeout_s) -> tuple[dict[str, str] | None, str, str]:
    """(swebench's status map or None, why none, isolation)."""
    try:
        log, isolation = run_env_tests(instance, spec, env, work, timeout_s)
    except TimeoutError:
        return None, "timeout", "bwrap"
    except TestsDidNotRun as exc:
        return None, str(exc), ""
    try:
        return status_map(instance, spec, log), "", isolation
    except TestsDidNotRun as exc:
        return None, str(exc), isolation


def covered_files(ids: list[str], work: Path) -> list[str]:
    """The files a run covers: those of the listed ids (`path::name`) that exist, so that
    an id naming no test leaves that test not run instead of aborting the whole run."""
    files = dict.fromkeys(t.partition("::")[0] for t in ids)
    return [f for f in files if f.endswith(".py") and (work / f).is_file()]


def pytest_command(files: list[str], report: Path) -> list[str]:
    """The bundled repositories' test command: pytest on the listed tests' files, a JUnit
    report out."""
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
        *files,
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
        files = covered_files(ids, work)
        if not files:
            return {}, "", "process"  # no listed test can run: each is "not run"
        command, isolation = sandboxed(pytest_command(files, report), work, tmp)
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
