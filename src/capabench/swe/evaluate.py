"""Grading stored runs, kept apart from running them: each stored patch without a grade,
by the local grader or the official SWE-bench harness, each grade saved as it comes."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from capabench.executors import Executor, bug_last
from capabench.executors.local import LocalExecutor
from capabench.swe.data.bundled import ensure_repos, repo_dir
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
from capabench.swe.store import SweStore
from capabench.swe.swe_records import Instance

GraderName = Literal["auto", "local", "swebench"]
# One graded test run, as SWE-bench's harness allows it (a real repository's test files can
# take minutes: pylint's tests/test_self.py about five on two cores).
LOCAL_TIMEOUT_S = 1800.0


def has_local_repo(instance: Instance, repos: Path | None) -> bool:
    try:
        repo_dir(instance, repos)
        return True
    except FileNotFoundError:
        return False


@dataclass
class LocalGradeSpec:
    """Workers that grade patches with the local grader."""

    instances: dict[str, Instance]
    repos: Path | None
    timeout_s: float

    def build(self, threads: int, cpus: float) -> LocalGrader:
        ensure_repos(self.instances.values(), self.repos)
        return LocalGrader(self)


@dataclass
class LocalGrader:
    spec: LocalGradeSpec

    def play(self, job: tuple[str, str, str]) -> Grade:
        _, instance_id, patch = job
        instance = self.spec.instances[instance_id]
        return grade_locally(
            instance, patch, repo_dir(instance, self.spec.repos), timeout_s=self.spec.timeout_s
        )

    def close(self) -> None:
        pass


class Control(BaseModel):
    """An instance's controls: its gold patch and its empty patch (the test patch alone),
    graded here. Gradable when the gold patch resolves it and the empty one does not."""

    instance_id: str
    gradable: bool
    reason: str = ""
    gold: Grade
    empty: Grade


def control_reason(gold: Grade, empty: Grade) -> str:
    """Why an instance is not gradable here, or '' when it is."""
    if gold.status != "scored" or not gold.resolved:
        problem = gold.detail or ", ".join(
            f"{t} {v}" for t, v in gold.tests.items() if v not in ("passed", "xfail")
        )
        return f"the gold patch does not resolve it ({gold.status}: {problem[:300]})"
    if empty.resolved:
        return "the empty patch resolves it (its FAIL_TO_PASS tests pass without a fix)"
    return ""


def controls_path(store: SweStore, instance_id: str) -> Path:
    return store.root / "controls" / f"{instance_id}.json"


def read_control(store: SweStore, instance_id: str) -> Control | None:
    path = controls_path(store, instance_id)
    return Control.model_validate_json(path.read_text()) if path.is_file() else None


def grade_controls(
    instances: list[Instance],
    store: SweStore,
    *,
    repos: Path | None = None,
    force: bool = False,
    timeout_s: float | None = None,
    progress: Callable[[Control], None] | None = None,
) -> dict[str, Control]:
    """Each instance's controls by the local grader, saved under <runs>/controls/ (kept
    until --force)."""
    out: dict[str, Control] = {}
    ensure_repos(instances, repos)
    for instance in instances:
        known = None if force else read_control(store, instance.instance_id)
        if known is None:
            repo = repo_dir(instance, repos)
            t = timeout_s or LOCAL_TIMEOUT_S
            gold = grade_locally(instance, instance.patch, repo, timeout_s=t)
            empty = grade_locally(instance, "", repo, timeout_s=t, run_empty=True)
            reason = control_reason(gold, empty)
            known = Control(
                instance_id=instance.instance_id,
                gradable=not reason,
                reason=reason,
                gold=gold,
                empty=empty,
            )
            path = controls_path(store, instance.instance_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(known.model_dump_json(indent=1))
        out[instance.instance_id] = known
        if progress:
            progress(known)
    return out


def ungraded(grade: Grade | None) -> bool:
    """No grade yet, or one that an instance's failed controls stood in for."""
    return grade is None or grade.status == "not_gradable"


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
    executor: Executor | None = None,
    in_flight: int = 1,
    controls: dict[str, Control] | None = None,
) -> dict[str, Grade]:
    """Grade stored patches that have no grade yet (all with force), each grade saved as it
    comes. `auto` grades locally when every instance has a local repository (the bundled
    ones, or clones under `repos`) and with the official SWE-bench harness otherwise.
    `timeout_s` bounds one graded test run (default 1800 s, as the harness).
    The local grader grades `in_flight` runs at once on the executor (here by default; on a
    Ray cluster each node needs the repositories); grades are saved here as they come."""
    by_id = {i.instance_id: i for i in instances}
    grades: dict[str, Grade] = {}

    def save(run_id: str, grade: Grade) -> None:
        store.save_evaluation(run_id, grade)
        grades[run_id] = grade
        if progress:
            progress(run_id, grade)

    # An instance whose controls failed here: its runs say nothing about the agent.
    excluded = {k: c for k, c in (controls or {}).items() if not c.gradable}
    for s in store.summaries():
        if s.instance_id in excluded and (force or store.evaluation(s.run_id) is None):
            save(s.run_id, Grade(status="not_gradable", detail=excluded[s.instance_id].reason))
    todo = [
        (s, by_id[s.instance_id])
        for s in store.summaries()
        if s.instance_id in by_id  # else a run of another dataset
        and s.instance_id not in excluded
        and (force or ungraded(store.evaluation(s.run_id)))
    ]
    local = all(has_local_repo(i, repos) for _, i in todo)
    if grader == "auto":
        grader = "local" if local else "swebench"

    if grader == "local":
        spec = LocalGradeSpec(
            {i.instance_id: i for _, i in todo}, repos, timeout_s or LOCAL_TIMEOUT_S
        )
        jobs = [(s.run_id, i.instance_id, store.patch(s.run_id)) for s, i in todo]
        stream = (executor or LocalExecutor()).map(spec, jobs, in_flight=in_flight)
        for outcome in bug_last(stream, "a grade"):
            if outcome.result is not None:  # a lost one stays ungraded: the next call grades it
                save(outcome.job[0], outcome.result)
        return grades
    if not todo:
        return grades
    subs = [Submission(s.run_id, i, store.patch(s.run_id)) for s, i in todo]
    spec = HarnessGradeSpec(
        options=replace(harness or HarnessOptions(), log=print),  # a console doesn't travel
        repos=repos,
        local=local,
        timeout_s=timeout_s or 1800.0,
    )
    if executor is None or executor.name == "local":
        grade_all_with_harness(subs, store.root / "swebench", spec, harness, save)
        return grades
    # On a cluster: one job, on a node that declares a `docker` resource (ray start
    # --resources '{"docker": 1}'); the grades come back here (its logs stay there).
    for outcome in executor.map(spec, [tuple(subs)], in_flight=1):
        if outcome.error or outcome.lost:
            raise outcome.exception or RuntimeError(outcome.error or outcome.lost)
        for run_id, grade in outcome.result.items():
            save(run_id, grade)
    return grades


@dataclass
class HarnessGradeSpec:
    """Where the official harness grades: a host with a Docker engine."""

    options: HarnessOptions
    repos: Path | None
    local: bool
    timeout_s: float
    resources: dict = field(default_factory=lambda: {"docker": 1})  # Ray places it by this

    def build(self, threads: int, cpus: float) -> HarnessGrader:
        return HarnessGrader(self)


@dataclass
class HarnessGrader:
    spec: HarnessGradeSpec

    def play(self, subs: tuple[Submission, ...]) -> dict[str, Grade]:
        grades: dict[str, Grade] = {}
        workdir = Path(tempfile.mkdtemp(prefix="capabench-swebench-"))
        grade_all_with_harness(
            list(subs), workdir, self.spec, None, lambda r, g: grades.__setitem__(r, g)
        )
        return grades

    def close(self) -> None:
        pass


def grade_all_with_harness(subs, workdir: Path, spec: HarnessGradeSpec, given, save) -> None:
    """Grade submissions with the official harness in `workdir` (on this host's Docker),
    building the images from local repositories when no harness dataset is given."""
    if problem := harness_problem():
        raise HarnessUnavailable(
            f"{problem}. The official harness grades inside Docker; grade with the local grader "
            "instead (--grader local, with clones of the repositories under --repos DIR), or "
            "run evaluate on a machine with a Docker engine."
        )
    options = given or spec.options
    dataset = options.dataset
    if dataset is None:  # local repositories: capabench builds the images itself
        dataset = DEFAULT_DATASET
        if spec.local:
            ensure_repos([s.instance for s in subs], spec.repos)
            used = list({s.instance.instance_id: s.instance for s in subs}.values())
            dataset = str(
                prepare(
                    used,
                    lambda i: repo_dir(i, spec.repos),
                    workdir / "dataset.json",
                    base_image=options.base_image,
                    log=options.log,
                )
            )
    grade_with_harness(
        subs,
        workdir,
        dataset=dataset,
        split=options.split,
        timeout_s=spec.timeout_s,
        max_workers=options.max_workers,
        progress=save,
    )
