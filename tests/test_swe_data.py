"""The ask-or-guess arm's datasets, bundled repositories and local grader."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from capabench.swe.data.bundled import build_bundled, repo_dir
from capabench.swe.data.bundled_repos import LIBRARIES
from capabench.swe.data.datasets import DatasetError, load_instances
from capabench.swe.grading.grade import is_test_file, split_patch
from capabench.swe.grading.local import grade_locally, parse_junit


@pytest.fixture(scope="module")
def bundled(swe_bundled):
    return swe_bundled


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_bundled_dataset_has_six_libraries_each_with_an_open_decision(bundled):
    _, instances = bundled
    assert len(instances) == 6 and len({i.repo for i in instances}) == 6
    for instance in instances:
        assert instance.problem_statement != instance.original_issue
        assert len(instance.original_issue) > len(instance.problem_statement)
        assert instance.fail_to_pass and instance.pass_to_pass and instance.gold_files()
        task = instance.task("ambiguous")
        # The agent sees the ambiguous issue and nothing of the oracles.
        assert instance.problem_statement in task.prompt
        assert instance.original_issue not in task.prompt
        for secret in (*instance.fail_to_pass, instance.patch, instance.test_patch):
            assert secret not in task.prompt
        assert set(task.model_dump()) == {
            "instance_id",
            "repo",
            "base_commit",
            "condition",
            "prompt",
            "prompt_sha256",
        }
        assert instance.task("full").prompt.endswith(instance.original_issue)


def test_bundled_build_is_deterministic(bundled, tmp_path):
    _, instances = bundled
    again = build_bundled(tmp_path / "again")
    assert [i.base_commit for i in again] == [i.base_commit for i in instances]
    assert [i.patch for i in again] == [i.patch for i in instances]


def test_two_processes_building_the_dataset_at_once_both_get_it(tmp_path):
    # Each prints the dataset and its folder's inode: one build means one folder, never
    # replaced under the other process's feet.
    code = (
        "import os; from capabench.swe.data.bundled import bundled_dataset; p = bundled_dataset(); "
        "print(p, os.stat(p.parent).st_ino)"
    )
    env = {**os.environ, "CAPABENCH_CACHE": str(tmp_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-500:] for _, err in results]
    (seen,) = {out.strip() for out, _ in results}
    path, inode = seen.split()
    assert os.stat(Path(path).parent).st_ino == int(inode)
    assert len(load_instances(Path(path))) == 6


def test_grader_resolves_gold_and_rejects_the_other_reading(bundled):
    _, instances = bundled
    instance = next(i for i in instances if "slugkit" in i.repo)
    repo = repo_dir(instance)
    gold = grade_locally(instance, instance.patch, repo)
    assert gold.status == "scored" and gold.resolved and gold.localization_hit
    assert set(gold.tests) == {*instance.fail_to_pass, *instance.pass_to_pass}
    assert gold.isolation in ("bwrap", "process")
    lib = next(lib for lib in LIBRARIES if lib.name == "slugkit")
    guess_patch = _diff(repo, instance.base_commit, lib.guess)
    guess = grade_locally(instance, guess_patch, repo)
    assert guess.status == "scored" and guess.resolved is False
    assert guess.tests["tests/test_slugify.py::test_accents_are_transliterated"] == "failed"
    assert all(guess.tests[t] == "passed" for t in instance.pass_to_pass)


def test_grader_strips_agent_test_edits_and_scores_empty_patches_unrun(bundled):
    _, instances = bundled
    instance = instances[0]
    repo = repo_dir(instance)
    # An agent that "fixes" the issue by rewriting the tests: its test edits are stripped.
    cheat = instance.test_patch.replace("creme-brulee", "cr-me-br-l-e")
    grade = grade_locally(instance, cheat, repo)
    assert grade.status == "scored" and grade.resolved is False and grade.tests == {}
    assert grade.detail == "empty source patch" and grade.stripped_test_files == (
        "tests/test_slugify.py",
    )
    assert grade.localization_hit is False
    both = grade_locally(instance, instance.patch + cheat, repo)
    assert both.resolved and both.stripped_test_files == ("tests/test_slugify.py",)
    broken = grade_locally(
        instance, instance.patch.replace("import re", "import nothing_here"), repo
    )
    assert (
        broken.status == "scored" and broken.resolved is False and "does not apply" in broken.detail
    )


def test_grader_times_out_a_hanging_patch(bundled):
    _, instances = bundled
    instance = instances[0]
    lib = next(lib for lib in LIBRARIES if lib.name == "slugkit")
    source = lib.gold["slugkit/__init__.py"] + "\nwhile True:\n    pass\n"
    hang = _diff(repo_dir(instance), instance.base_commit, {"slugkit/__init__.py": source})
    grade = grade_locally(instance, hang, repo_dir(instance), timeout_s=5)
    assert grade.status == "timeout" and grade.resolved is None


def test_test_file_rules_and_junit_ids():
    assert (
        is_test_file("tests/test_x.py")
        and is_test_file("pkg/x_test.py")
        and is_test_file("conftest.py")
    )
    assert not is_test_file("pkg/testing_utils.py") and not is_test_file("src/contest.py")
    patch = "diff --git a/a.py b/a.py\n+x\ndiff --git a/tests/test_a.py b/tests/test_a.py\n+y\n"
    kept, sources, tests = split_patch(patch)
    assert (
        kept == "diff --git a/a.py b/a.py\n+x\n"
        and sources == ["a.py"]
        and tests == ["tests/test_a.py"]
    )
    xml = """<testsuites><testsuite>
      <testcase classname="tests.test_a" file="tests/test_a.py" name="test_ok"/>
      <testcase classname="tests.test_a.TestK" file="tests/test_a.py" name="test_m"><failure/></testcase>
      <testcase classname="tests.test_a" file="tests/test_a.py" name="test_e"><error/></testcase>
    </testsuite></testsuites>"""
    assert parse_junit(xml) == {
        "tests/test_a.py::test_ok": "passed",
        "tests/test_a.py::TestK::test_m": "failed",
        "tests/test_a.py::test_e": "error",
    }


def test_loaders_read_every_format_alike(bundled, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.ipc
    import pyarrow.parquet

    path, instances = bundled
    rows = _rows(path)
    as_json = tmp_path / "d.json"
    as_json.write_text(json.dumps(rows))
    table = pa.Table.from_pylist(rows)
    pyarrow.parquet.write_table(table, tmp_path / "d.parquet")
    disk = tmp_path / "saved"  # HuggingFace save_to_disk: Arrow stream files and state.json
    disk.mkdir()
    arrow = str(disk / "data-00000-of-00001.arrow")
    with pa.OSFile(arrow, "wb") as sink, pyarrow.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    (disk / "state.json").write_text(
        json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]})
    )
    (disk / "dataset_info.json").write_text("{}")
    split = tmp_path / "dict"
    shutil.copytree(disk, split / "test")
    (split / "dataset_dict.json").write_text(json.dumps({"splits": ["test"]}))
    for source in (as_json, tmp_path / "d.parquet", disk, split):
        loaded = load_instances(source)
        assert [i.model_dump(exclude={"source"}) for i in loaded] == [
            i.model_dump(exclude={"source"}) for i in instances
        ], source


def test_workbook_rows_join_their_base_dataset(bundled, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    path, instances = bundled
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["instance_id", "underspecified_issue", "removed_categories"])
    sheet.append([instances[1].instance_id, "Quotes in CSV are broken.", "expected behaviour"])
    book.save(tmp_path / "mi.xlsx")
    (loaded,) = load_instances(tmp_path / "mi.xlsx", base=path)
    assert loaded.problem_statement == "Quotes in CSV are broken."
    assert (
        loaded.original_issue == instances[1].original_issue and loaded.patch == instances[1].patch
    )
    assert loaded.extra == {"removed_categories": "expected behaviour"}
    with pytest.raises(DatasetError, match="give the dataset they come from"):
        load_instances(tmp_path / "mi.xlsx")
    sheet.append(["nobody__nothing-1", "x"])
    book.save(tmp_path / "bad.xlsx")
    with pytest.raises(DatasetError, match=r"row 3 \(nobody__nothing-1\): not in the base dataset"):
        load_instances(tmp_path / "bad.xlsx", base=path)


def test_bad_datasets_say_where_and_what(bundled, tmp_path):
    path, _ = bundled
    rows = _rows(path)
    cases = {
        "missing": (
            {**rows[0], "original_issue": ""},
            r"row 1 \(capabench__slugkit-1\): missing original_issue",
        ),
        "tests": (
            {**rows[0], "FAIL_TO_PASS": "not json"},
            r"FAIL_TO_PASS: not a JSON list of test ids",
        ),
        "empty": ({**rows[0], "FAIL_TO_PASS": "[]"}, r"fail_to_pass: .*at least 1"),
    }
    for name, (row, message) in cases.items():
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text(json.dumps(row) + "\n")
        with pytest.raises(DatasetError, match=message):
            load_instances(bad)
    twice = tmp_path / "twice.jsonl"
    twice.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[0]) + "\n")
    with pytest.raises(DatasetError, match=r"row 2 .* appears twice"):
        load_instances(twice)
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(rows[0]) + "\n{oops\n")
    with pytest.raises(DatasetError, match="line 2: not JSON"):
        load_instances(broken)
    with pytest.raises(DatasetError, match="not a dataset"):
        load_instances(_touch(tmp_path / "x.csv"))
    with pytest.raises(DatasetError, match="no such file"):
        load_instances(tmp_path / "nowhere.jsonl")


def _touch(path):
    path.write_text("")
    return path


def _diff(repo, commit, files):
    """The patch that turns `commit` of `repo` into one with `files` written."""
    import tempfile
    from pathlib import Path

    from capabench.swe.git import checkout, git

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        checkout(repo, commit, work)
        for rel, text in files.items():
            (work / rel).write_text(text)
        return git("diff", cwd=work)
