"""Grades that can't be silently wrong: a listed test that did not run is "not run", and its
grade an error (flagged by sanity, apart on the dashboard, out of resolved rates); the
controls (gold and empty patch) decide what is gradable here; swebench's specs, test
directives and id matching; the paper's summaries joined to a SWE-bench dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from capabench.cli import app
from capabench.swe.data.bundled import repo_dir
from capabench.swe.data.datasets import DatasetError, load_instances
from capabench.swe.data.issue_texts import record_issue_texts
from capabench.swe.evaluate import evaluate, grade_controls
from capabench.swe.grading.envs import EnvProblem, find_python, ready_env
from capabench.swe.grading.local import grade_locally
from capabench.swe.grading.specs import directives, requirements_text, run_command, spec_for
from capabench.swe.grading.verdict import swebench_grading, verdict
from capabench.swe.store import RunSummary, SweStore
from capabench.swe.swe_records import Instance
from capabench.swe.views.audit import sanity
from capabench.swe.views.dashboard import _arms, build

# A test file added by the test patch, with a parameter that has a space in it (SWE-bench's
# data cuts such ids at the space: `test_spaced[a`).
EXTRA_TESTS = """import pytest


@pytest.mark.parametrize("text", ["a b", "c"])
def test_spaced(text):
    assert text
"""


def _new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


@pytest.fixture(scope="module")
def bundled(swe_bundled):
    return swe_bundled[1]


def _with(instance: Instance, **changes) -> Instance:
    return instance.model_copy(update=changes)


@pytest.mark.parametrize(
    "listed",
    [
        "test_slugify_keeps_words",  # a bare sympy-style name: not a pytest node id
        "tests/test_core.py::test_that_was_deleted",  # a test the checkout doesn't have
        "tests/test_extra.py::test_spaced[x",  # cut at a space, matching no test that ran
    ],
)
def test_a_listed_test_that_did_not_run_is_an_error_never_unresolved(bundled, listed, tmp_path):
    base = bundled[0]
    instance = _with(
        base,
        pass_to_pass=(*base.pass_to_pass, listed),
        test_patch=base.test_patch + _new_file("tests/test_extra.py", EXTRA_TESTS),
    )
    grade = grade_locally(instance, instance.patch, repo_dir(instance))
    assert grade.status == "error" and grade.resolved is None, grade
    assert grade.tests[listed] == "not run"
    assert all(grade.tests[t] == "passed" for t in base.fail_to_pass)  # the others ran
    assert "1 of" in grade.detail and listed in grade.detail
    # sanity flags it; the dashboard shows it apart and keeps it out of the resolved rate
    store = SweStore(tmp_path / "runs")
    summary = _summary(instance, "r1")
    store.write_once(store.path("runs", "r1"), summary.model_dump_json())
    store.write_once(store.path("patches", "r1"), "")
    store.save_evaluation("r1", grade)
    assert any(f.severity == "attention" and "did not run" in f.what for f in sanity(store, None))
    cell = _arms(store.summaries(), {"r1": grade})[0]["cells"]["ambiguous"]
    assert cell["grading_error"] == "1/1" and cell["resolved"] == "n/a"


def _summary(instance: Instance, run_id: str, patch: str = "") -> RunSummary:
    return RunSummary(
        run_id=run_id,
        instance_id=instance.instance_id,
        condition="ambiguous",
        model="scripted",
        runner="builtin",
        runner_version="",
        repo=instance.repo,
        base_commit=instance.base_commit,
        prompt_sha256=instance.task("ambiguous").prompt_sha256,
        started=f"2026-01-01T00:00:0{run_id[-1]}",
        duration_s=1.0,
        stop_reason="completed",
        asked=False,
        asks=[],
        turns=1,
        input_tokens=0,
        output_tokens=0,
        tools=[],
        patch_bytes=len(patch.encode()),
    )


@pytest.mark.skipif(swebench_grading() is None, reason="swebench is not installed")
def test_an_id_cut_at_a_space_is_matched_as_swebench_matches_it(bundled):
    base = bundled[0]
    cut = "tests/test_extra.py::test_spaced[a"
    instance = _with(
        base,
        pass_to_pass=(*base.pass_to_pass, cut),
        test_patch=base.test_patch + _new_file("tests/test_extra.py", EXTRA_TESTS),
    )
    grade = grade_locally(instance, instance.patch, repo_dir(instance))
    assert grade.status == "scored" and grade.resolved, grade
    assert grade.tests[cut] == "passed"


def test_a_failing_listed_test_decides_unresolved_and_names_the_tests_not_run(bundled):
    base = bundled[0]
    instance = _with(base, pass_to_pass=(*base.pass_to_pass, "test_bare_name"))
    grade = grade_locally(instance, "", repo_dir(instance), run_empty=True)  # no fix
    assert grade.status == "scored" and grade.resolved is False
    assert any(grade.tests[t] == "failed" for t in base.fail_to_pass)
    assert grade.tests["test_bare_name"] == "not run" and "did not run" in grade.detail


def test_verdict_follows_swebench_rules_on_a_status_map(bundled):
    instance = _with(bundled[0], fail_to_pass=("f",), pass_to_pass=("p",))
    assert verdict(instance, {"f": "PASSED", "p": "PASSED"}).resolved is True
    assert verdict(instance, {"f": "PASSED", "p": "FAILED"}).resolved is False
    assert verdict(instance, {"f": "SKIPPED", "p": "PASSED"}).resolved is False  # F2P skipped
    if swebench_grading() is not None:  # a skipped PASS_TO_PASS test is no regression there
        assert verdict(instance, {"f": "PASSED", "p": "SKIPPED"}).resolved is True
    # the later-pytest parser keeps an ERROR line's message in the name: still this test
    errored = verdict(instance, {"f - ExtensionError: no module": "ERROR", "p": "PASSED"})
    assert errored.tests["f"] == "error" and errored.status == "scored" and not errored.resolved
    nothing = verdict(instance, {})
    assert nothing.status == "error" and "no test at all" in nothing.detail


def test_controls_exclude_an_instance_whose_gold_fails_or_whose_empty_patch_resolves(
    bundled, tmp_path
):
    good, broken, trivial = bundled[0], bundled[1], bundled[2]
    broken = _with(broken, patch=bundled[2].patch)  # another library's fix: applies nowhere
    # FAIL_TO_PASS already passing without the fix: the empty patch resolves it
    trivial = _with(trivial, fail_to_pass=trivial.pass_to_pass[:1], pass_to_pass=())
    store = SweStore(tmp_path / "runs")
    for n, instance in enumerate((good, broken, trivial)):
        summary = _summary(instance, f"r{n}", instance.patch)
        store.write_once(store.path("runs", f"r{n}"), summary.model_dump_json())
        store.write_once(store.path("patches", f"r{n}"), instance.patch)
    controls = grade_controls([good, broken, trivial], store)
    assert controls[good.instance_id].gradable
    assert "gold patch does not resolve" in controls[broken.instance_id].reason
    assert "empty patch resolves" in controls[trivial.instance_id].reason
    assert (tmp_path / "runs" / "controls" / f"{good.instance_id}.json").is_file()
    grades = evaluate([good, broken, trivial], store, controls=controls)
    assert grades["r0"].status == "scored" and grades["r0"].resolved
    assert {grades["r1"].status, grades["r2"].status} == {"not_gradable"}
    cell = _arms(store.summaries(), grades)[0]["cells"]["ambiguous"]
    assert cell["resolved"] == "1/1" and cell["not_gradable"] == "2/3"
    notes = [f for f in sanity(store, None) if "not gradable" in f.what]
    assert len(notes) == 2 and all(f.severity == "note" for f in notes)


# SWE-bench's shape: one form of the issue, the test lists as JSON text, a version.
def _swebench_row(instance: Instance, **extra) -> dict:
    return {
        "instance_id": instance.instance_id,
        "repo": "pytest-dev/pytest",
        "base_commit": instance.base_commit,
        "problem_statement": instance.original_issue,
        "FAIL_TO_PASS": json.dumps(list(instance.fail_to_pass)),
        "PASS_TO_PASS": json.dumps(list(instance.pass_to_pass)),
        "patch": instance.patch,
        "test_patch": instance.test_patch,
        "version": 5.4,
        "environment_setup_commit": instance.base_commit,
    } | extra


def test_summaries_join_a_swebench_dataset_by_instance_id(bundled, tmp_path):
    data = tmp_path / "verified.jsonl"
    data.write_text("".join(json.dumps(_swebench_row(i)) + "\n" for i in bundled[:3]))
    csv = tmp_path / "underspecified.csv"
    csv.write_text(
        "instance_id,problem_statement,claude_sonnet3.5\n"
        f'{bundled[0].instance_id},"A vague, short summary.",0\n'
        f"{bundled[2].instance_id},Another summary,1\n"
        "astropy__astropy-1,not in the dataset,0\n"
    )
    joined = load_instances(data, summaries=csv)
    assert [i.instance_id for i in joined] == [bundled[0].instance_id, bundled[2].instance_id]
    assert joined[0].problem_statement == "A vague, short summary."
    assert joined[0].original_issue == bundled[0].original_issue
    assert joined[0].version == "5.4" and joined[0].environment_setup_commit
    jsonl = tmp_path / "summaries.jsonl"
    jsonl.write_text(json.dumps({"instance_id": bundled[1].instance_id, "summary": "S"}) + "\n")
    assert load_instances(data, summaries=jsonl)[0].problem_statement == "S"
    with pytest.raises(DatasetError, match="--summaries"):
        load_instances(data)  # one form of the issue only
    no_tests = tmp_path / "no-tests.jsonl"
    no_tests.write_text(json.dumps(_swebench_row(bundled[0], FAIL_TO_PASS="")) + "\n")
    with pytest.raises(DatasetError, match="missing FAIL_TO_PASS"):
        load_instances(no_tests, summaries=csv)


def test_specs_give_swebench_test_commands_directives_and_requirements(bundled):
    pytest_like = _with(bundled[0], repo="pytest-dev/pytest", version="5.4")
    spec = spec_for(pytest_like)
    assert spec.python == "3.9" and spec.test_cmd == "pytest -rA"
    assert spec.install == "python -m pip install -e ."
    files = [f for f in directives(pytest_like)]
    assert files and run_command(pytest_like, spec) == "pytest -rA " + " ".join(files)
    django = _with(
        bundled[0],
        repo="django/django",
        version="3.0",
        test_patch="diff --git a/tests/auth_tests/test_views.py b/tests/auth_tests/test_views.py\n"
        "diff --git a/tests/fixtures/data.json b/tests/fixtures/data.json\n",
    )
    assert directives(django) == ["auth_tests.test_views"]  # Django's runner, no data files
    assert "runtests.py" in spec_for(django).test_cmd
    assert spec_for(bundled[0]) is None  # capabench's own repositories: no spec
    with pytest.raises(KeyError, match=r"no spec for pytest-dev/pytest 0\.0"):
        spec_for(_with(pytest_like, version="0.0"))
    files_at = {
        "requirements_test.txt": "-r requirements_test_min.txt\ncoverage~=6.4\n# a comment\n-e .\n",
        "requirements_test_min.txt": "-e .[testutils]\nastroid==2.12.13\npytest~=7.1\n",
    }
    pylint = spec_for(_with(bundled[0], repo="pylint-dev/pylint", version="2.15"))
    reqs = requirements_text(files_at.get, pylint).splitlines()
    # swebench's rule: includes inlined first, the checkout itself (-e ..., .[test]) left out
    assert reqs == ["astroid==2.12.13", "pytest~=7.1", "coverage~=6.4"]


def test_a_swebench_instance_without_its_environment_is_an_error_with_what_to_do(
    bundled, tmp_path, monkeypatch
):
    repo = repo_dir(bundled[0])
    monkeypatch.setenv("CAPABENCH_CACHE", str(tmp_path / "cache"))
    pytest_like = _with(bundled[0], repo="pytest-dev/pytest", version="5.4")
    with pytest.raises(EnvProblem, match="capabench swe prepare"):
        ready_env(pytest_like, spec_for(pytest_like), repo)
    grade = grade_locally(pytest_like, pytest_like.patch, repo)
    assert grade.status == "error" and "capabench swe prepare" in grade.detail
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EnvProblem, match=r"no Python 2\.1.*pyenv.*uv.*pyenv install 2\.1"):
        find_python("2.1")


def test_batch_without_a_repository_says_so_in_one_line(bundled, tmp_path):
    row = _swebench_row(bundled[0], repo="acme/nowhere")
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(row | {"original_issue": "full"}) + "\n")
    result = CliRunner().invoke(
        app,
        [
            *("swe", "batch", "--model", "openai/x", "--base-url", "http://127.0.0.1:9/v1"),
            *("--dataset", str(data), "--runs", str(tmp_path)),
        ],
    )
    assert result.exit_code != 0
    assert "no repository for acme/nowhere" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 3


def test_the_dashboard_shows_the_issue_texts_the_run_recorded_without_the_dataset(
    bundled, tmp_path
):
    instance = _with(bundled[0], problem_statement="A summary only this run recorded.")
    store = SweStore(tmp_path / "runs")
    store.write_once(store.path("runs", "r1"), _summary(instance, "r1").model_dump_json())
    store.write_once(store.path("patches", "r1"), "")
    record_issue_texts(store.root, [instance])
    page = build(store, [], tmp_path / "dash.html").read_text()  # no dataset given
    assert "A summary only this run recorded." in page


def test_a_spec_s_cpus_reach_the_tests_as_docker_gives_them(tmp_path):
    from capabench.swe.grading.env_tests import CFS, CPU_MAX, cpu_binds
    from capabench.swe.grading.specs import EnvSpec

    spec = EnvSpec(repo="pylint-dev/pylint", version="2.15", python="3.9", test_cmd="pytest")
    assert cpu_binds(spec, tmp_path) == []  # no nano_cpus: the host's cgroup as it is
    many = spec.model_copy(update={"nano_cpus": 10**6 * 10**9})
    assert cpu_binds(many, tmp_path) == []  # more CPUs than this host has: not pretended
    one = cpu_binds(spec.model_copy(update={"nano_cpus": 10**9}), tmp_path)
    if (CFS / "cpu.cfs_quota_us").is_file() or CPU_MAX.is_file():
        sources = [source for source, _ in one]
        quota = Path(sources[0]).read_text().split()[0]
        period = (Path(sources[1]).read_text() if len(sources) > 1 else "x 100000").split()[-1]
        assert int(quota) == int(period)  # one CPU: a quota of one period
