"""A benchmark over a task pool of our own (tests/data/custom_tasks/pool.jsonl: 40 tasks
written for this test, not HumanEval's) at a size of our own: it validates, the reference
policies keep their figures on it, and a pool too small for the design is refused with the
numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from capabench.benchmark import load_benchmark
from capabench.cli import app
from capabench.metrics import summarize
from capabench.runner import RunConfig, Runner

POOL = Path(__file__).parent / "data" / "custom_tasks" / "pool.jsonl"
SMALL = ["--profiles", "terse-expert,friendly-novice,academic", "--cells-per-pair", "1"]


@pytest.fixture(scope="module")
def custom(tmp_path_factory):
    out = tmp_path_factory.mktemp("custom") / "bench"
    args = ["build", "--tasks", str(POOL), *SMALL, "--history", "3", "--heldout", "2"]
    done = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    return out


def test_a_custom_pool_builds_validates_and_keeps_its_tasks(custom):
    bench = load_benchmark(custom)
    assert len(bench.cells) == 15 and len(bench.sessions) == 75
    assert {s.task_id.split("/")[0] for s in bench.sessions} == {"Custom"}
    assert bench.manifest.tasks == "custom" and len(bench.tasks) == 40
    assert bench.manifest.design["history"] == 3
    assert sum(s.split == "heldout" for s in bench.sessions) == 30
    done = CliRunner().invoke(app, ["validate", str(custom)])
    assert done.exit_code == 0 and "all validators passed: 75 sessions, 15 cells" in done.output


def test_the_reference_policies_keep_their_figures_on_it(custom, pool, tmp_path):
    bench = load_benchmark(custom)
    figures = {}
    for model in ("baseline/oracle", "baseline/history-reader"):
        config = RunConfig(model=model, conditions=["none", "same-user"], concurrency=3)
        results = Runner(config, bench, tmp_path / model.split("/")[1], pool=pool).run()
        for cond in ("none", "same-user"):
            s = summarize([r for r in results if r.condition == cond])
            figures[model, cond] = (s.n, s.es, s.ft_es, s.ttc)
    for cond in ("none", "same-user"):
        assert figures["baseline/oracle", cond] == (30, 1.0, 1.0, 1.0)
    assert figures["baseline/history-reader", "same-user"][2] >= 0.95
    assert figures["baseline/history-reader", "none"][2] == 0.0  # it must ask without history


def test_a_pool_too_small_or_a_design_that_cannot_balance_is_refused(tmp_path):
    too_many = ["--history", "25", "--heldout", "20"]
    done = CliRunner().invoke(
        app, ["build", "--tasks", str(POOL), *SMALL, *too_many, "--out", str(tmp_path / "b")]
    )
    assert done.exit_code == 2
    assert "the task pool has 40 tasks that can carry conventions" in done.output
    assert "each user needs 45 distinct ones (25 history + 20 held-out)" in done.output
    uneven = ["--profiles", "terse-expert,academic", "--cells-per-pair", "1"]
    done = CliRunner().invoke(app, ["build", *uneven, "--out", str(tmp_path / "c")])
    assert done.exit_code == 2
    assert "15 cells (15 mechanism pairs x 1) can't be shared evenly by 2 profiles" in done.output
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
