from __future__ import annotations

import json

import pytest

from capabench.records import Task
from capabench.tasks import TaskFileError, load_humaneval, load_jsonl, load_tasks


def test_humaneval_has_all_164_problems():
    tasks = load_humaneval()
    assert len(tasks) == 164
    assert len({t.id for t in tasks}) == 164
    first = tasks[0]
    assert first.id == "HumanEval/0"
    assert first.entry_point == "has_close_elements"
    assert "def check(candidate)" in first.test
    assert first.signature.startswith(
        "def has_close_elements(numbers: List[float], threshold: float) -> bool"
    )
    assert load_tasks("humaneval") == tasks


def _write(tmp_path, rows):
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


GOOD = {
    "task_id": "mine/1",
    "prompt": "def inc(x):\n",
    "entry_point": "inc",
    "canonical_solution": "    return x + 1\n",
    "test": "def check(candidate):\n    assert candidate(1) == 2\n",
}


def test_jsonl_accepts_humaneval_and_our_field_names(tmp_path):
    ours = {
        "id": "mine/2",
        "prompt": "def dec(x):\n",
        "entry_point": "dec",
        "reference_solution": "    return x - 1\n",
        "test": "def check(c):\n    assert c(1) == 0\n",
    }
    tasks = load_jsonl(_write(tmp_path, [GOOD, "", ours]))
    assert [t.id for t in tasks] == ["mine/1", "mine/2"]
    assert tasks[0].reference_code == "def inc(x):\n    return x + 1\n"
    assert all(isinstance(t, Task) and t.source == "custom" for t in tasks)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("{not json", r"tasks.jsonl:2: invalid JSON"),
        ('["a list"]', r"tasks.jsonl:2: expected a JSON object"),
        (
            {k: v for k, v in GOOD.items() if k != "entry_point"} | {"task_id": "x"},
            r"tasks.jsonl:2: field 'entry_point': Field required",
        ),
        (
            GOOD | {"task_id": "y", "entry_point": "not valid"},
            r"tasks.jsonl:2: field 'entry_point': .*not a Python identifier",
        ),
        (
            GOOD | {"task_id": "z", "prompt": 3},
            r"tasks.jsonl:2: field 'prompt': Input should be a valid string",
        ),
        (GOOD | {"task_id": "w", "colour": "red"}, r"tasks.jsonl:2: field 'colour': Extra inputs"),
        (GOOD, r"tasks.jsonl:2: field 'id': duplicate task id 'mine/1' \(first on line 1\)"),
    ],
)
def test_jsonl_errors_name_file_line_and_field(tmp_path, row, expected):
    path = _write(tmp_path, [GOOD, row])
    with pytest.raises(TaskFileError, match=expected):
        load_jsonl(path)


def test_empty_file_and_unknown_source_are_errors(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(TaskFileError, match="no tasks"):
        load_jsonl(empty)
    with pytest.raises(TaskFileError, match="unknown task source"):
        load_tasks(str(tmp_path / "missing.jsonl"))


def test_task_must_parse_and_judge_tests_keep_helpers_not_the_solution():
    with pytest.raises(ValueError, match="prompt \\+ reference solution is not valid Python"):
        Task(
            id="x",
            prompt="def f(x):\n",
            entry_point="f",
            reference_solution="    return (x\n",
            test="def check(c): pass\n",
        )
    task = Task(
        id="y",
        prompt="import math\n\nSCALE = 2\n\n@staticmethod\ndef helper(v):\n    return v * SCALE\n\ndef f(x):\n",
        entry_point="f",
        reference_solution="    return helper(x) + math.floor(0.5)\n",
        test="def check(candidate):\n    assert candidate(1) == helper(1)\n",
    )
    tests = task.judge_tests
    assert "import math" in tests and "SCALE = 2" in tests and "@staticmethod\ndef helper" in tests
    assert "def f(" not in tests and "return helper(x)" not in tests
    assert tests.rstrip().endswith("assert candidate(1) == helper(1)")
