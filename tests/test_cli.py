from __future__ import annotations

import json

from typer.testing import CliRunner

from capabench.cli import app

runner = CliRunner()
TESTS = "def check(candidate):\n    assert candidate(3) == 9\n"


def test_judge_task_pass_and_fail(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("def truncate_number(number):\n    return number % 1.0\n")
    result = runner.invoke(app, ["judge", "--task", "HumanEval/2", "--code", str(good)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "passed"

    bad = tmp_path / "bad.py"
    bad.write_text("def truncate_number(number):\n    return 0.0\n")
    result = runner.invoke(app, ["judge", "--task", "HumanEval/2", "--code", str(bad)])
    verdict = json.loads(result.stdout)
    assert result.exit_code == 1
    assert verdict["status"] == "failed" and verdict["case"]["input"] == "truncate_number(3.5)"


def test_judge_custom_tests_with_extraction(tmp_path):
    message = tmp_path / "reply.md"
    message.write_text("Here it is:\n```python\ndef sq(x):\n    return x * x\n```\nAnything else?")
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    args = ["judge", "--tests", str(tests), "--entry-point", "sq", "--code", str(message)]
    assert runner.invoke(app, args).exit_code == 1  # a message is not code...
    result = runner.invoke(app, [*args, "--extract"])  # ...until its code is extracted
    assert result.exit_code == 0, result.output
    question = tmp_path / "question.md"
    question.write_text("Should the result be sorted?")
    result = runner.invoke(
        app,
        [
            "judge",
            "--tests",
            str(tests),
            "--entry-point",
            "sq",
            "--code",
            str(question),
            "--extract",
        ],
    )
    assert json.loads(result.stdout)["status"] == "no_code"


def test_judge_usage_errors(tmp_path):
    code = tmp_path / "c.py"
    code.write_text("x = 1\n")
    cases = [
        (["judge", "--code", str(code)], "give --task ID, or --tests FILE"),
        (["judge", "--task", "HumanEval/999", "--code", str(code)], "no task 'HumanEval/999'"),
        (["judge", "--task", "HumanEval/0", "--code", str(tmp_path / "nope.py")], "cannot read"),
        (
            ["judge", "--tests", str(code), "--entry-point", "f", "--code", str(code)],
            "no top-level check",
        ),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)


def test_tasks_verify_reports_broken_references(tmp_path):
    rows = [
        {
            "task_id": "t/ok",
            "prompt": "def sq(x):\n",
            "entry_point": "sq",
            "canonical_solution": "    return x * x\n",
            "test": TESTS,
        },
        {
            "task_id": "t/broken",
            "prompt": "def sq(x):\n",
            "entry_point": "sq",
            "canonical_solution": "    return x + x\n",
            "test": TESTS,
        },
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    result = runner.invoke(app, ["tasks", "verify", "--source", str(path)])
    assert result.exit_code == 1
    assert "t/broken" in result.stdout and "sq(3) returned 6, expected 9" in result.stdout
    assert (
        "t/ok" not in result.stdout.split("reference solutions that failed")[1].split("source")[0]
    )


def test_tasks_list_and_bad_source(tmp_path):
    result = runner.invoke(app, ["tasks", "list"])
    assert result.exit_code == 0 and "HumanEval/163" in result.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    result = runner.invoke(app, ["tasks", "list", "--source", str(bad)])
    assert result.exit_code == 2 and "bad.jsonl:1: invalid JSON" in result.output


def _commands(group, prefix=()):
    import typer.main

    command = typer.main.get_command(group)
    for name, sub in getattr(command, "commands", {}).items():
        yield (*prefix, name)
        if hasattr(sub, "commands"):
            yield from ((*prefix, name, inner) for inner in sub.commands)


def test_every_commands_help_renders():
    """Help texts are plain text: `local[/<gguf>]` once crashed `run --help` as rich markup."""
    from typer.testing import CliRunner

    from capabench.cli import app

    commands = list(_commands(app))
    assert ("run",) in commands and ("swe", "batch") in commands
    for command in [(), *commands]:
        for flag in ("--help", "-h"):
            out = CliRunner().invoke(app, [*command, flag])
            assert out.exit_code == 0 and "Usage" in out.output, (command, flag, out.output[-500:])
    version = CliRunner().invoke(app, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("capabench ")


def test_every_option_has_help():
    import typer.main

    from capabench.cli import app

    missing = []
    for path in _commands(app):
        command = typer.main.get_command(app)
        for name in path:
            command = command.commands[name]
        missing += [
            f"{' '.join(path)} {p.opts[0]}"
            for p in command.params
            if getattr(p, "help", "x") in (None, "") and p.opts[0].startswith("--")
        ]
    assert not missing, missing
