"""Bad or surprising inputs, as a new user types them: each exits non-zero with a message that
names the problem, never a traceback, and leaves what the user had untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from capabench.cli import app


@pytest.fixture(scope="module")
def world(built, tmp_path_factory):
    """Files and directories the cases point at: a note in a directory of the user's, a
    finished run, a damaged run, the benchmark."""
    from capabench.benchmark import default_benchmark_path, write_benchmark

    bench, bench_dir = built
    if not default_benchmark_path(0).exists():  # the commands use the cached default benchmark
        write_benchmark(bench, default_benchmark_path(0))
    root = tmp_path_factory.mktemp("world")
    (root / "file.txt").write_text("mine\n")
    (root / "mine").mkdir()
    (root / "mine" / "notes.txt").write_text("my notes\n")
    (root / "bad.jsonl").write_text('{"task_id": "x", "prompt": 3}\n')
    (root / "replies.json").write_text('["ok"]')
    run = root / "run"
    out = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "baseline/oracle",
            "--limit",
            "2",
            "--conditions",
            "none",
            "--run-dir",
            str(run),
        ],
    )
    assert out.exit_code == 0, out.output
    torn = root / "torn"
    torn.mkdir()
    (torn / "manifest.json").write_text('{"model": "baseline/oracle", "condi')
    return {"root": root, "bench": bench_dir, "run": run, "torn": torn}


RUN = ["run", "--model", "baseline/oracle", "--limit", "2", "--conditions", "none"]

# (case id, arguments with {root}/{run}/{bench}/{torn} placeholders, words the message must hold)
CASES = [
    ("unknown model", ["run", "--model", "nonsense/x"], "unknown model"),
    ("unknown policy", ["run", "--model", "baseline/nope"], "unknown baseline"),
    ("unknown condition", [*RUN[:3], "--conditions", "nonesuch"], "unknown condition"),
    ("limit 0", [*RUN[:3], "--limit", "0"], "--limit"),
    ("concurrency 0", [*RUN, "--concurrency", "0"], "--concurrency"),
    ("epochs 0", [*RUN, "--epochs", "0"], "--epochs"),
    ("negative temperature", [*RUN, "--temperature", "-1"], "--temperature"),
    ("tiny max tokens", [*RUN, "--max-tokens", "1"], "--max-tokens"),
    ("processes 0", [*RUN, "--processes", "0"], "--processes"),
    ("run dir is a file", [*RUN, "--run-dir", "{root}/file.txt"], "is a file"),
    ("run dir under a file", [*RUN, "--run-dir", "{root}/file.txt/sub"], "is a file"),
    (
        "run dir holds the user's files",
        [*RUN, "--run-dir", "{root}/mine"],
        "not empty and not a run directory",
    ),
    ("run dir with a torn manifest", [*RUN, "--run-dir", "{torn}"], "not valid JSON"),
    ("unknown user matcher", [*RUN, "--user-matcher", "regex"], "unknown --user-matcher"),
    ("resume with another context", [*RUN, "--run-dir", "{run}", "--context", "1024"], "--context"),
    (
        "resume with another user model",
        [*RUN, "--run-dir", "{run}", "--user-model", "scripted:{root}/replies.json"],
        "--user-model",
    ),
    (
        "swe with an unknown model",
        ["swe", "batch", "--model", "nonsense", "--count", "1"],
        "ask-or-guess arm",
    ),
    (
        "swe with a reference policy",
        ["swe", "batch", "--model", "baseline/oracle", "--count", "1"],
        "reference policies",
    ),
    ("llm matcher without a model", [*RUN, "--user-matcher", "llm"], "needs --user-model"),
    (
        "benchmark that doesn't exist",
        [*RUN, "--benchmark", "{root}/nowhere"],
        "not a benchmark directory",
    ),
    ("benchmark that is a run", [*RUN, "--benchmark", "{run}"], "is a run directory"),
    ("prices file missing", [*RUN, "--prices", "{root}/prices.json"], "prices"),
    (
        "resume with another temperature",
        [*RUN, "--run-dir", "{run}", "--temperature", "0.7"],
        "--temperature",
    ),
    (
        "resume with other max tokens",
        [*RUN, "--run-dir", "{run}", "--max-tokens", "512"],
        "--max-tokens",
    ),
    ("resume with another top-k", [*RUN, "--run-dir", "{run}", "--top-k", "3"], "--top-k"),
    (
        "resume with another base url",
        [*RUN, "--run-dir", "{run}", "--base-url", "http://127.0.0.1:9/v1"],
        "--base-url",
    ),
    (
        "resume with another model",
        [
            "run",
            "--model",
            "baseline/asker",
            "--limit",
            "2",
            "--conditions",
            "none",
            "--run-dir",
            "{run}",
        ],
        "--model",
    ),
    ("report of nothing", ["report", "{root}/nowhere"], "not a run directory"),
    ("report of a file", ["report", "{root}/file.txt"], "is a file"),
    ("report of a torn manifest", ["report", "{torn}"], "not valid JSON"),
    ("report of a benchmark", ["report", "{bench}"], "not a run manifest"),
    (
        "report out is a file",
        ["report", "{run}", "--out", "{root}/file.txt"],
        "cannot write the report",
    ),
    ("report intervals unknown", ["report", "{run}", "--intervals", "users"], "--intervals"),
    ("inspect a run", ["inspect", "{run}"], "is a run directory"),
    ("inspect nothing", ["inspect", "{root}/nowhere"], "not a benchmark directory"),
    ("inspect an unknown session", ["inspect", "{bench}", "cell99-9"], "cell99-9"),
    ("validate a run", ["validate", "{run}"], "is a run directory"),
    ("build out is a file", ["build", "--out", "{root}/file.txt"], "is a file"),
    (
        "build out holds the user's files",
        ["build", "--out", "{root}/mine"],
        "not empty and not a benchmark",
    ),
    ("build out under a file", ["build", "--out", "{root}/file.txt/bench"], "is a file"),
    (
        "judge a missing file",
        ["judge", "--code", "{root}/nowhere.py", "--task", "HumanEval/0"],
        "cannot read",
    ),
    (
        "judge an unknown task",
        ["judge", "--code", "{root}/file.txt", "--task", "HumanEval/999"],
        "no task",
    ),
    (
        "judge tests without entry point",
        ["judge", "--code", "{root}/file.txt", "--tests", "{root}/file.txt"],
        "--entry-point",
    ),
    (
        "tasks from a missing file",
        ["tasks", "list", "--source", "{root}/nowhere.jsonl"],
        "nowhere.jsonl",
    ),
    ("tasks from a malformed file", ["tasks", "list", "--source", "{root}/bad.jsonl"], "bad.jsonl"),
    ("unknown study", ["study", "mian", "--model", "baseline/oracle"], "unknown study"),
    (
        "study with an unknown model",
        ["study", "main", "--model", "nonsense/x", "--limit", "2"],
        "unknown model",
    ),
    (
        "audit of nothing",
        ["audit-user", "{root}/nowhere", "--user-model", "local"],
        "not a run directory",
    ),
    (
        "audit of a benchmark",
        ["audit-user", "{bench}", "--user-model", "local"],
        "not a run manifest",
    ),
    ("sanity of nothing", ["swe", "sanity", "--runs", "{root}/nowhere"], "no such runs directory"),
    (
        "harvest of nothing",
        ["swe", "harvest", "--runs", "{root}/nowhere", "--out", "{root}/h.csv"],
        "no such runs directory",
    ),
    (
        "reclassify nothing",
        ["swe", "reclassify", "--runs", "{root}/nowhere"],
        "no such runs directory",
    ),
    (
        "labels that aren't there",
        ["swe", "reclassify", "--labels", "{root}/nowhere.csv"],
        "cannot read",
    ),
    ("harvest to a text file", ["swe", "harvest", "--out", "{root}/h.txt"], ".csv or .jsonl"),
    (
        "swe batch sideways",
        ["swe", "batch", "--model", "local", "--condition", "sideways"],
        "--condition",
    ),
    (
        "swe list of a missing dataset",
        ["swe", "list", "--dataset", "{root}/nowhere.jsonl"],
        "nowhere.jsonl",
    ),
    ("unknown command", ["frobnicate"], "No such command"),
    ("run without a model", ["run"], "--model"),
]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(("args", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_input_is_one_clear_error_and_changes_nothing(world, args, words):
    places = {k: str(v) for k, v in world.items()}
    before = _snapshot(world["root"])
    out = CliRunner().invoke(app, [a.format(**places) for a in args])
    assert out.exit_code not in (0, None), out.output
    assert isinstance(out.exception, SystemExit), (
        out.exception,
        out.output,
    )  # an exit, not a crash
    assert "Traceback" not in out.output
    assert words.lower() in out.output.lower(), out.output
    assert _snapshot(world["root"]) == before  # nothing of the user's changed, nothing half-written


def test_there_are_at_least_forty_cases():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


def test_a_run_of_only_infrastructure_errors_says_so_and_fails(world, tmp_path):
    out = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "openai/any",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--api-key",
            "none",
            "--limit",
            "1",
            "--conditions",
            "none",
            "--run-dir",
            str(tmp_path / "dead"),
            "--no-cache",
        ],
    )
    assert out.exit_code != 0
    assert "nothing was measured" in out.output and "http://127.0.0.1:9/v1" in out.output
    report = CliRunner().invoke(
        app, ["report", str(tmp_path / "dead"), "--out", str(tmp_path / "report")]
    )
    rows = json.loads((tmp_path / "report" / "report.json").read_text())["conditions"]
    assert rows == [{"model": "openai/any", "condition": "none", "n": 0, "infra errors": 1}], (
        report.output
    )


def test_a_damaged_result_line_is_reported(world, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(world["run"], run)
    with (run / "results.jsonl").open("a") as fh:
        fh.write('{"key": "broken"\n')
    out = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert out.exit_code == 0 and "results.jsonl:3: not a valid result" in out.output.replace(
        "\n", ""
    )


def test_ctrl_c_during_a_run_says_what_was_kept_and_how_to_resume(world, tmp_path, monkeypatch):
    import dataclasses

    from capabench.runner import Runner

    played = Runner.run

    def interrupted(self, progress=None):
        config, self.config = self.config, dataclasses.replace(self.config, limit=1)
        played(self, progress)  # one session finishes and is stored, then Ctrl-C
        self.config = config
        raise KeyboardInterrupt

    monkeypatch.setattr(Runner, "run", interrupted)
    run = tmp_path / "run"
    out = CliRunner().invoke(app, [*RUN, "--run-dir", str(run)])
    assert out.exit_code == 130 and "Traceback" not in out.output
    assert f"interrupted: 1 of 2 session(s) kept in {run}" in " ".join(out.output.split())
    assert len((run / "results.jsonl").read_text().splitlines()) == 1
    monkeypatch.setattr(Runner, "run", played)
    again = CliRunner().invoke(app, [*RUN, "--run-dir", str(run)])
    assert again.exit_code == 0 and "(2 results)" in again.output, again.output
