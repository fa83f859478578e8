"""Grading through the official SWE-bench harness (`swebench.harness.run_evaluation`), which
runs each instance's tests inside its own Docker image.

capabench keeps the rules every grader shares (agent-edited test files stripped, an empty
source patch unresolved without a container, localization from the stored patch); the harness
decides resolution from its per-instance report.json. It keys predictions by instance_id, so
runs of the same instance (both conditions, several models) go to sequential invocations."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TypeVar

from capabench.swe.grading.grade import Grade, graded_part
from capabench.swe.grading.harness_images import DEFAULT_BASE_IMAGE
from capabench.swe.swe_records import Instance

T = TypeVar("T")
HARNESS = "swebench.harness.run_evaluation"
# What interactive-swe and missing-info derive from.
DEFAULT_DATASET = "SWE-bench/SWE-bench_Verified"
# The harness's own markers (swebench.harness.constants), read from its logs.
APPLY_PATCH_FAIL = ">>>>> Patch Apply Failed"
TIMEOUT_MARK = "Timeout error:"


class HarnessUnavailable(RuntimeError):
    """The official harness can't run here (not installed, or no Docker engine)."""


def harness_version() -> str | None:
    try:
        return metadata.version("swebench")
    except metadata.PackageNotFoundError:
        return None


def harness_problem() -> str | None:
    """Why the official harness can't run on this machine, or None when it can."""
    version = harness_version()
    if version is None:
        return "the official SWE-bench harness is not installed (pip install 'capabench[swebench]')"
    if version.split(".")[0] != "5":  # per-instance images and eval scripts in the dataset: 5.x
        return f"capabench drives swebench 5.x; {version} is installed (pip install 'capabench[swebench]')"
    try:
        import docker

        docker.from_env(timeout=10).ping()
    except Exception as exc:  # the SDK raises several kinds for "no engine"
        host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        return f"no Docker engine answered at {host} ({type(exc).__name__}: {str(exc)[:200]})"
    return None


@dataclass(frozen=True)
class HarnessOptions:
    dataset: str | None = None  # HF name or file; None: built from local repositories or Verified
    split: str = "test"
    max_workers: int = 4
    base_image: str = DEFAULT_BASE_IMAGE  # for the images built from local repositories
    log: Callable[[str], None] = print


@dataclass(frozen=True)
class Submission:
    run_id: str
    instance: Instance
    patch: str  # the whole stored patch; test files are stripped here


def rounds(items: list[T], key: Callable[[T], str]) -> list[list[T]]:
    """Invocations in which no instance (`key`) appears twice, in order."""
    out: list[tuple[set[str], list[T]]] = []
    for item in items:
        for seen, group in out:
            if key(item) not in seen:
                seen.add(key(item))
                group.append(item)
                break
        else:
            out.append(({key(item)}, [item]))
    return [group for _, group in out]


def grade_with_harness(
    subs: list[Submission],
    workdir: Path,
    *,
    dataset: str = DEFAULT_DATASET,
    split: str = "test",
    timeout_s: float = 1800.0,
    max_workers: int = 4,
    progress: Callable[[str, Grade], None] | None = None,
) -> dict[str, Grade]:
    """Grades by run id; the harness's predictions, logs and reports stay under `workdir`."""
    if problem := harness_problem():
        raise HarnessUnavailable(problem)
    grader = f"swebench-{harness_version()}"
    grades: dict[str, Grade] = {}

    def done(run_id: str, grade: Grade) -> None:
        grades[run_id] = grade
        if progress:
            progress(run_id, grade)

    todo = []
    for sub in subs:
        source_patch, common = graded_part(sub.instance, sub.patch)
        if source_patch.strip():
            todo.append((sub, source_patch, common))
        else:
            done(
                sub.run_id,
                Grade(
                    status="scored",
                    resolved=False,
                    detail="empty source patch",
                    grader=grader,
                    **common,
                ),
            )
    workdir.mkdir(parents=True, exist_ok=True)
    stamp = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(2)}"
    for k, chosen in enumerate(rounds(todo, key=lambda t: t[0].instance.instance_id)):
        harness_run = f"capabench-{stamp}-{k}"
        predictions = workdir / f"{harness_run}.predictions.jsonl"
        predictions.write_text(
            "".join(
                json.dumps(
                    {
                        "instance_id": s.instance.instance_id,
                        "model_name_or_path": s.run_id,
                        "model_patch": p,
                    }
                )
                + "\n"
                for s, p, _ in chosen
            )
        )
        command = [
            sys.executable,
            "-m",
            HARNESS,
            "--dataset_name",
            dataset,
            "--split",
            split,
            "--predictions_path",
            str(predictions),
            "--run_id",
            harness_run,
            "--max_workers",
            str(max_workers),
            "--timeout",
            str(int(timeout_s)),
            "--report_dir",
            str(workdir),
            "--instance_ids",
            *[s.instance.instance_id for s, _, _ in chosen],
        ]
        start = time.monotonic()
        log = workdir / f"{harness_run}.log"
        with log.open("w") as fh:
            proc = subprocess.run(command, cwd=workdir, stdout=fh, stderr=subprocess.STDOUT)
        elapsed = round(time.monotonic() - start, 3)
        for sub, _, common in chosen:
            logs = workdir / "logs" / "run_evaluation" / harness_run / sub.run_id.replace("/", "__")
            status, resolved, tests, detail = read_instance(
                logs / sub.instance.instance_id, sub.instance.instance_id
            )
            if status == "error" and proc.returncode != 0:
                detail += f"; the harness exited {proc.returncode}: {_tail(log)}"
            done(
                sub.run_id,
                Grade(
                    status=status,
                    resolved=resolved,
                    tests=tests,
                    detail=detail,
                    grader=grader,
                    isolation="docker (swebench)",
                    duration_s=elapsed,
                    **common,
                ),
            )
    return grades


def read_instance(log_dir: Path, instance_id: str) -> tuple[str, bool | None, dict[str, str], str]:
    """(status, resolved, {test id: passed|failed}, detail) from the harness's files for one
    prediction. A harness limitation is an error, never a bad patch."""
    report = log_dir / "report.json"
    if report.is_file():
        entry = json.loads(report.read_text())[instance_id]
        if entry.get("infra_failure"):
            reason = entry.get("infra_failure_reason", "")
            return "error", None, {}, f"the harness reports an environment failure: {reason}"
        if not entry.get("patch_successfully_applied"):
            return (
                "error",
                None,
                {},
                f"the harness found no test results in {log_dir.name}/test_output.txt",
            )
        tests = {}
        for kind in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            status = entry.get("tests_status", {}).get(kind, {})
            tests |= {t: "passed" for t in status.get("success", [])}
            tests |= {t: "failed" for t in status.get("failure", [])}
        return "scored", bool(entry["resolved"]), tests, ""
    output = log_dir / "test_output.txt"
    if output.is_file() and TIMEOUT_MARK in output.read_text(errors="replace"):
        return "timeout", None, {}, "the graded test run exceeded --eval-timeout"
    instance_log = log_dir / "run_instance.log"
    text = instance_log.read_text(errors="replace") if instance_log.is_file() else ""
    if APPLY_PATCH_FAIL in text:  # as the local grader: a patch that doesn't apply resolves nothing
        return "scored", False, {}, "agent patch does not apply"
    where = instance_log if text else log_dir
    return "error", None, {}, f"the harness wrote no report for this instance (see {where})"


def _tail(path: Path, chars: int = 300) -> str:
    text = path.read_text(errors="replace").strip()
    return text[-chars:].replace("\n", " | ")
