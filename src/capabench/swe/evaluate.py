"""Grading stored runs, kept apart from running them: each stored patch without a grade,
by the local grader or the official SWE-bench harness, each grade saved as it comes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from capabench.swe.data.bundled import repo_dir
from capabench.swe.grading.grade import Grade
from capabench.swe.grading.harness import (
    DEFAULT_DATASET,
    HarnessOptions,
    HarnessUnavailable,
    Submission,
    grade_with_harness,
    harness_problem,
)
from capabench.swe.grading.harness_images import prepare
from capabench.swe.grading.local import grade_locally
from capabench.swe.records import Instance
from capabench.swe.store import SweStore

GraderName = Literal["auto", "local", "swebench"]


def has_local_repo(instance: Instance, repos: Path | None) -> bool:
    try:
        repo_dir(instance, repos)
        return True
    except FileNotFoundError:
        return False


def evaluate(
    instances: list[Instance],
    store: SweStore,
    *,
    force: bool = False,
    repos: Path | None = None,
    timeout_s: float | None = None,
    grader: GraderName = "auto",
    harness: HarnessOptions | None = None,
    progress: Callable[[str, Grade], None] | None = None,
) -> dict[str, Grade]:
    """Grade stored patches that have no grade yet (all with force), each grade saved as it
    comes. `auto` grades locally when every instance has a local repository (the bundled
    ones, or clones under `repos`) and with the official SWE-bench harness otherwise.
    `timeout_s` bounds one graded test run (default 300 s locally, the harness's 1800 s)."""
    by_id = {i.instance_id: i for i in instances}
    todo = [
        (s, by_id[s.instance_id])
        for s in store.summaries()
        if s.instance_id in by_id  # else a run of another dataset
        and (force or store.evaluation(s.run_id) is None)
    ]
    local = all(has_local_repo(i, repos) for _, i in todo)
    if grader == "auto":
        grader = "local" if local else "swebench"
    grades: dict[str, Grade] = {}

    def save(run_id: str, grade: Grade) -> None:
        store.save_evaluation(run_id, grade)
        grades[run_id] = grade
        if progress:
            progress(run_id, grade)

    if grader == "local":
        for summary, instance in todo:
            save(
                summary.run_id,
                grade_locally(
                    instance,
                    store.patch(summary.run_id),
                    repo_dir(instance, repos),
                    timeout_s=timeout_s or 300.0,
                ),
            )
        return grades
    if not todo:
        return grades
    if problem := harness_problem():
        raise HarnessUnavailable(
            f"{problem}. The official harness grades inside Docker; grade with the local grader "
            "instead (--grader local, with clones of the repositories under --repos DIR), or "
            "run evaluate on a machine with a Docker engine."
        )
    options = harness or HarnessOptions()
    workdir = store.root / "swebench"
    dataset = options.dataset
    if dataset is None:  # local repositories: capabench builds the images itself
        dataset = DEFAULT_DATASET
        if local:
            used = list({i.instance_id: i for _, i in todo}.values())
            dataset = str(
                prepare(
                    used,
                    lambda i: repo_dir(i, repos),
                    workdir / "dataset.json",
                    base_image=options.base_image,
                    log=options.log,
                )
            )
    subs = [Submission(s.run_id, i, store.patch(s.run_id)) for s, i in todo]
    grade_with_harness(
        subs,
        workdir,
        dataset=dataset,
        split=options.split,
        timeout_s=timeout_s or 1800.0,
        max_workers=options.max_workers,
        progress=save,
    )
    return grades
