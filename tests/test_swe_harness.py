"""The official SWE-bench harness as a grader: its per-instance files read (a harness
limitation is never a bad patch), runs of one instance split across invocations, a clear
refusal without Docker, and, where a Docker engine and the harness are here, the bundled
dataset graded by the real harness and compared with the local grader."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from capabench.cli import app
from capabench.swe.batch import run_one
from capabench.swe.data.bundled import repo_dir
from capabench.swe.data.bundled_repos import LIBRARIES
from capabench.swe.evaluate import evaluate
from capabench.swe.grading.harness import (
    HarnessUnavailable,
    Submission,
    harness_problem,
    read_instance,
    rounds,
)
from capabench.swe.grading.local import grade_locally
from capabench.swe.store import SweStore
from capabench.swe.swe_records import Instance, SessionOutcome
from capabench.swe.views.audit import locate

HARNESS_PROBLEM = harness_problem()  # asked once: it pings the Docker engine
BASE_IMAGE = os.environ.get("CAPABENCH_HARNESS_BASE_IMAGE", "python:3.11-slim")


@pytest.fixture(scope="module")
def instances(swe_bundled):
    return swe_bundled[1]


class WritingAgent:
    """Writes the given files into the checkout and stops: a stored patch of known content."""

    name = "writer"

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def run(self, task, ws) -> SessionOutcome:
        for path, text in self.files.items():
            (ws.path / path).parent.mkdir(parents=True, exist_ok=True)
            (ws.path / path).write_text(text)
        return SessionOutcome(stop_reason="completed", turns=1)


def _library(instance: Instance):
    return next(lib for lib in LIBRARIES if lib.full == instance.original_issue)


def _instance(iid: str) -> Instance:
    return Instance(
        instance_id=iid,
        repo="o/r",
        base_commit="0" * 40,
        problem_statement="a",
        original_issue="b",
        fail_to_pass=("t.py::a",),
        patch="",
    )


def test_runs_of_one_instance_go_to_separate_invocations():
    subs = [Submission(f"r{k}", _instance(iid), "") for k, iid in enumerate("abacab")]
    groups = rounds(subs, key=lambda s: s.instance.instance_id)
    assert [[s.run_id for s in g] for g in groups] == [["r0", "r1", "r3"], ["r2", "r5"], ["r4"]]
    for group in groups:
        ids = [s.instance.instance_id for s in group]
        assert len(ids) == len(set(ids))


def _report(tmp_path, entry: dict):
    log_dir = tmp_path / "i-1"
    log_dir.mkdir(exist_ok=True)
    (log_dir / "report.json").write_text(json.dumps({"i-1": entry}))
    return read_instance(log_dir, "i-1")


def test_harness_reports_are_read_and_its_failures_are_not_called_bad_patches(tmp_path):
    # The shape swebench 5.x writes to logs/run_evaluation/<run>/<model>/<instance>/report.json.
    ran = {
        "patch_is_None": False,
        "patch_exists": True,
        "patch_successfully_applied": True,
        "infra_failure": False,
        "tests_status": {
            "FAIL_TO_PASS": {"success": ["t.py::a"], "failure": []},
            "PASS_TO_PASS": {"success": ["t.py::b"], "failure": ["t.py::c"]},
            "FAIL_TO_FAIL": {"success": [], "failure": []},
            "PASS_TO_FAIL": {"success": [], "failure": []},
        },
    }
    assert _report(tmp_path, {**ran, "resolved": False}) == (
        "scored",
        False,
        {"t.py::a": "passed", "t.py::b": "passed", "t.py::c": "failed"},
        "",
    )
    assert _report(tmp_path, {**ran, "resolved": True})[:2] == ("scored", True)
    infra = {
        **ran,
        "resolved": False,
        "patch_successfully_applied": False,
        "infra_failure": True,
        "infra_failure_reason": "pip could not reach the index",
    }
    status, resolved, _, detail = _report(tmp_path, infra)
    assert (status, resolved) == ("error", None) and "pip could not reach" in detail
    unparsed = {**ran, "resolved": False, "patch_successfully_applied": False}
    assert _report(tmp_path, unparsed)[:2] == ("error", None)

    # No report: the harness's own logs say why.
    (tmp_path / "i-1" / "report.json").unlink()
    (tmp_path / "i-1" / "test_output.txt").write_text("...\n\nTimeout error: 30 seconds exceeded.")
    assert read_instance(tmp_path / "i-1", "i-1")[:2] == ("timeout", None)
    (tmp_path / "i-1" / "test_output.txt").unlink()
    (tmp_path / "i-1" / "run_instance.log").write_text(
        ">>>>> Patch Apply Failed:\nerror: corrupt patch"
    )
    assert read_instance(tmp_path / "i-1", "i-1") == (
        "scored",
        False,
        {},
        "agent patch does not apply",
    )
    (tmp_path / "i-1" / "run_instance.log").write_text("Error building image capabench-swe/x:abc")
    status, resolved, _, detail = read_instance(tmp_path / "i-1", "i-1")
    assert (status, resolved) == ("error", None) and "run_instance.log" in detail
    assert read_instance(tmp_path / "missing", "i-1")[:2] == ("error", None)


def _gold_run(instance: Instance, store: SweStore, condition: str = "full", which: str = "gold"):
    files = getattr(_library(instance), which)
    return run_one(instance, condition, "scripted/writer", WritingAgent(files), store)  # type: ignore[arg-type]


def test_without_a_docker_engine_the_official_grader_says_so_and_grades_nothing(
    instances, tmp_path, monkeypatch
):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    store = SweStore(tmp_path / "runs")
    summary = _gold_run(instances[0], store)
    with pytest.raises(HarnessUnavailable, match="--grader local") as err:
        evaluate(instances, store, grader="swebench")
    assert "Docker" in str(err.value) or "not installed" in str(err.value)
    assert store.evaluation(summary.run_id) is None
    cli = CliRunner()
    refused = cli.invoke(
        app, ["swe", "evaluate", "--runs", str(store.root), "--grader", "swebench"]
    )
    assert refused.exit_code == 2 and "--grader local" in refused.output
    assert "Docker" in refused.output or "capabench[swebench]" in refused.output
    # `auto` grades the bundled dataset locally: no Docker needed.
    graded = cli.invoke(app, ["swe", "evaluate", "--runs", str(store.root)])
    assert graded.exit_code == 0 and "graded 1 run(s)" in graded.output
    grade = store.evaluation(summary.run_id)
    assert grade is not None and grade.grader.startswith("local") and grade.resolved is True


@pytest.mark.skipif(HARNESS_PROBLEM is not None, reason=f"{HARNESS_PROBLEM}")
def test_the_official_harness_and_the_local_grader_agree_on_the_bundled_dataset(
    instances, tmp_path
):
    import docker

    client = docker.from_env()
    try:
        client.images.get(BASE_IMAGE)
    except docker.errors.ImageNotFound:
        try:
            client.images.pull(BASE_IMAGE)
        except docker.errors.DockerException as exc:
            pytest.skip(
                f"no base image {BASE_IMAGE} here ({exc}); set CAPABENCH_HARNESS_BASE_IMAGE"
            )
    from capabench.swe.grading.harness import HarnessOptions

    store = SweStore(tmp_path / "runs")
    runs = {}  # run id -> (instance, expected resolved)
    for instance in instances[:3]:  # two runs per instance: two harness invocations
        runs[_gold_run(instance, store).run_id] = (instance, True)
        runs[_gold_run(instance, store, "ambiguous", "guess").run_id] = (instance, False)
    test_only = run_one(
        instances[0],
        "ambiguous",
        "scripted/tests-only",
        WritingAgent({"tests/test_extra.py": "def test_x():\n    pass\n"}),
        store,
    )

    seen = []
    grades = evaluate(
        instances,
        store,
        grader="swebench",
        timeout_s=120,
        harness=HarnessOptions(base_image=BASE_IMAGE, max_workers=2, log=lambda m: None),
        progress=lambda r, g: seen.append(r),
    )
    assert sorted(seen) == sorted([*runs, test_only.run_id])
    assert grades[test_only.run_id].detail == "empty source patch"
    assert grades[test_only.run_id].stripped_test_files == ("tests/test_extra.py",)
    for run_id, (instance, expected) in runs.items():
        official = grades[run_id]
        assert official.grader.startswith("swebench-") and official.status == "scored", official
        assert official.resolved is expected, (run_id, official)
        assert official.localization_hit is True
        local = grade_locally(instance, store.patch(run_id), repo_dir(instance))
        assert (official.resolved, official.tests) == (local.resolved, local.tests), run_id
        assert store.evaluation(run_id) == official  # saved as it came
    # The harness's own artifacts are kept beside the runs.
    work = store.root / "swebench"
    assert len(list(work.glob("*.predictions.jsonl"))) == 2
    assert len(list(work.glob("logs/run_evaluation/*/*/*/report.json"))) == len(runs)
    located = {r["run_id"]: r["artifacts"] for r in locate(store)}
    assert all(located[run_id]["harness logs"] for run_id in runs)
    assert "harness logs" not in located[test_only.run_id]  # never sent to the harness

    # A harness that fails as a whole (here: a dataset file that isn't there) grades nothing as
    # a bad patch: every run is an error that carries the harness's own last words.
    other = SweStore(tmp_path / "other")
    _gold_run(instances[0], other)
    (broken,) = evaluate(
        instances,
        other,
        grader="swebench",
        harness=HarnessOptions(dataset=str(tmp_path / "missing.json")),
    ).values()
    assert (broken.status, broken.resolved) == (
        "error",
        None,
    ) and "the harness exited" in broken.detail
