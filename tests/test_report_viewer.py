"""The report's session viewer and the side-by-side comparison of two runs: the outcome
pairs add up from the results, and the page (checked in headless Chromium) lists the
sessions, filters them and opens both runs' dialogues of one session next to each other."""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from capabench.cli import app
from capabench.report import load_runs
from capabench.report.render import write_report
from capabench.runner import RunConfig, Runner
from capabench.testing.browser import chromium


@pytest.fixture(scope="module")
def two_runs(built, pool, tmp_path_factory):
    bench, _ = built
    root = tmp_path_factory.mktemp("two-runs")
    for model in ("baseline/history-reader", "baseline/guesser"):
        config = RunConfig(model=model, conditions=["none", "same-user"], limit=30, concurrency=3)
        Runner(config, bench, root / model.split("/")[1], pool=pool).run()
    return root / "history-reader", root / "guesser"


def test_outcome_pairs_add_up_from_the_results(two_runs, tmp_path):
    runs = load_runs(list(two_runs))
    files = write_report(runs, tmp_path, compare=True)
    with files["compare.csv"].open() as f:
        rows = {r["condition"]: r for r in csv.DictReader(f)}
    solved = {(run.model, r.condition, r.session_id): r.solved for run in runs for r in run.results}
    for cond, row in rows.items():
        a = {k[2]: v for k, v in solved.items() if k[0] == runs[0].model and k[1] == cond}
        b = {k[2]: v for k, v in solved.items() if k[0] == runs[1].model and k[1] == cond}
        only_a = sum(a[s] and not b[s] for s in a)
        only_b = sum(b[s] and not a[s] for s in a)
        assert int(row[f"only {runs[0].model}"]) == only_a
        assert int(row[f"only {runs[1].model}"]) == only_b
        parts = ("solved by both", f"only {runs[0].model}", f"only {runs[1].model}", "by neither")
        assert sum(int(row[p]) for p in parts) == int(row["paired n"]) == 30
        assert row["p ES"] and row["p ES (Holm)"]
    with files["compare_sessions.csv"].open() as f:
        differ = list(csv.DictReader(f))
    assert len(differ) == sum(
        int(r[f"only {runs[0].model}"]) + int(r[f"only {runs[1].model}"]) for r in rows.values()
    )


@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium")
def test_the_viewer_opens_both_dialogues_of_a_session(two_runs, tmp_path):
    runs = load_runs(list(two_runs))
    write_report(runs, tmp_path, compare=True)
    page = tmp_path / "report.html"
    key = next(r.key for r in runs[0].results if r.condition == "none" and r.asks)
    dom = subprocess.run(
        [*chromium(tmp_path / "profile"), "--dump-dom", page.resolve().as_uri() + "#open=" + key],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "120 of 120 sessions" in dom  # two runs x 30 sessions x 2 conditions, all listed
    opened = dom.split('id="dialogues"', 1)[1].split("<style>", 1)[0]
    assert opened.count('<div class="col">') == 2  # both runs' dialogues, side by side
    assert f"{runs[0].model}: {key.split('|')[0]}" in opened and f"{runs[1].model}: " in opened
    assert "revealed:" in opened  # the history-reader asked without history: what was revealed
    assert 'id="filter-differs"' in dom and 'id="filter-mechanism"' in dom


def test_compare_wants_two_runs(two_runs, tmp_path):
    done = CliRunner().invoke(
        app, ["report", str(two_runs[0]), "--compare", "--out", str(tmp_path)]
    )
    assert done.exit_code == 2 and "--compare reads two run directories, not 1" in done.output
    done = CliRunner().invoke(
        app, ["report", *map(str, two_runs), "--compare", "--out", str(tmp_path)]
    )
    assert done.exit_code == 0 and "Side by side" in done.output
