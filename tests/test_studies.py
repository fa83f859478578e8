from __future__ import annotations

import json

import pytest

from capabench.models import ModelOptions
from capabench.runner import RunConfig
from capabench.studies import STUDIES, StudyPlan, play, study
from capabench.tasks import load_humaneval
from capabench.testing.fake_openai import FakeOpenAI


def _plan(name, models, tmp_path, limit=30, **kw):
    configs = [RunConfig(model=m, conditions=[], limit=limit, concurrency=3, **kw) for m in models]
    dirs = [tmp_path / m.replace("/", "-") for m in models]
    return StudyPlan(study(name), configs, dirs, tmp_path / "difficulty.json")


def test_every_study_is_known_and_a_typo_says_which_exist():
    assert set(STUDIES) == {
        "main",
        "difficulty",
        "identity",
        "memory",
        "mechanism",
        "split",
        "learning-curve",
        "blank-control",
    }
    with pytest.raises(ValueError, match="known: main"):
        study("mian")


def test_session_studies_build_the_papers_tables(built, pool, tmp_path):
    bench, _ = built
    models = ["baseline/history-reader", "baseline/guesser"]
    tables = {}
    for name in ("main", "identity", "mechanism", "difficulty", "split"):
        data = play(_plan(name, models, tmp_path), bench, pool)
        tables.update(STUDIES[name].tables(data))
    table1 = {r["model"]: r for r in tables["table1"]}
    assert table1["baseline/history-reader"]["ΔFT-ES (pp)"] > 50 and len(table1) == 2
    assert table1["baseline/history-reader"]["ΔTTC (turns saved)"] > 0  # the paper's sign
    tests = tables["tests"]  # identity: shuffled and same-user against none, Holm-adjusted
    assert {(r["model"], r["treated"]) for r in tests} == {
        (m, c) for m in models for c in ("shuffled", "same-user")
    }
    assert all(r[f"p {m} (Holm)"] >= r[f"p {m}"] for r in tests for m in ("ES", "FT-ES", "TTC"))
    table3 = tables["table3"]
    assert [(r["condition"], r["metric"]) for r in table3] == [
        (c, m) for c in ("none", "shuffled", "same-user") for m in ("ES", "FT-ES", "TTC")
    ]
    assert set(table3[0]) == {"condition", "metric", *models}
    assert {r["mechanism"] for r in tables["table8"]} and all(
        r["condition"] == "same-user" for r in tables["table8"]
    )
    assert {r["difficulty"] for r in tables["table2"]} <= {"simple", "medium", "complex"}
    split = {r["model"]: r for r in tables["split"]}
    assert split["baseline/guesser"]["n history"] == split["baseline/guesser"]["n held-out"] == 30
    # The history split is kept apart: the held-out tables still count 30 sessions.
    assert table1["baseline/guesser"]["paired n"] == 30


def test_learning_curve_rises_with_the_history_the_user_gave(built, pool, tmp_path):
    bench, _ = built
    model = "baseline/history-reader"
    data = play(_plan("learning-curve", [model], tmp_path, limit=12), bench, pool)
    tables = STUDIES["learning-curve"].tables(data)
    rows = tables["curve"]
    assert [(r["model"], r["k"]) for r in rows] == [(model, k) for k in range(6)]
    assert all(r["n"] == 12 for r in rows)
    ft_es = [r["FT-ES"] for r in rows]
    asks = [r["asks/session"] for r in rows]
    assert ft_es[0] == 0 and ft_es == sorted(ft_es) and ft_es[-1] > ft_es[0]
    assert asks == sorted(asks, reverse=True) and asks[-1] < asks[0]
    assert all(r["FT-ES 95% low"] <= r["FT-ES"] <= r["FT-ES 95% high"] for r in rows)
    assert all(r["asks/session 95% low"] <= r["asks/session"] for r in rows)
    # All five resolved sessions: the same figures as the same-user condition.
    main = play(_plan("main", [model], tmp_path, limit=12), bench, pool)
    same = STUDIES["main"].tables(main)["table1"][0]
    assert rows[-1]["FT-ES"] == same["FT-ES same-user"] and rows[-1]["ES"] == same["ES same-user"]
    png = STUDIES["learning-curve"].plots(tables)["learning-curve.png"]
    assert png.startswith(b"\x89PNG")
    # The report of those runs carries the curve too: its CSV and the plot in the page.
    from capabench.report.render import write_report

    files = write_report(data.runs, tmp_path / "report")
    assert "learning-curve.png" in files and "learning-curve.csv" in files
    page = (tmp_path / "report" / "report.html").read_text()
    assert 'alt="learning-curve.png"' in page


def test_the_difficulty_partition_is_saved_once_and_reused(built, pool, tmp_path):
    bench, _ = built
    first = play(_plan("difficulty", ["baseline/guesser"], tmp_path), bench, pool)
    saved = json.loads((tmp_path / "difficulty.json").read_text())
    assert saved["model"] == "baseline/guesser" and saved["labels"] == first.difficulty
    # Another model's study keeps the saved partition, not its own no-history labels.
    second = play(_plan("difficulty", ["baseline/history-reader"], tmp_path), bench, pool)
    assert second.difficulty == first.difficulty
    # Sessions the saved partition doesn't cover are counted apart, not dropped.
    wider = play(_plan("difficulty", ["baseline/guesser"], tmp_path, limit=40), bench, pool)
    rows = STUDIES["difficulty"].tables(wider)["table2"]
    assert rows[-1]["difficulty"] == "not in the partition" and sum(r["n"] for r in rows) == 40


def test_blank_control_counts_first_tries_and_revisions(pool, tmp_path):
    tasks = load_humaneval()
    seen: dict[str, int] = {}

    def answer(messages):
        task = next(t for t in tasks if t.prompt in messages[1]["content"])
        seen[task.id] = seen.get(task.id, 0) + 1
        if task.id.endswith(("0", "5")) and seen[task.id] == 1:
            return f"```python\ndef {task.entry_point}(*args):\n    return None\n```"  # wrong, then right
        return f"```python\n{task.prompt}{task.reference_solution}```"

    with FakeOpenAI(answer) as server:
        options = ModelOptions(base_url=server.base_url)
        data = play(
            _plan("blank-control", ["openai/fake"], tmp_path, limit=20, options=options), None, pool
        )
    (row,) = STUDIES["blank-control"].tables(data)["blank-control"]
    firsts = sum(not t.endswith(("0", "5")) for t in seen)
    assert row["n"] == 20 and row["ES"] == 100.0
    assert row["first-try solved"] == f"{firsts}/20"
    assert row["TTC"] == pytest.approx((firsts + 2 * (20 - firsts)) / 20, abs=1e-3)
    revised = next(r for r in data.blank["openai/fake"] if r.solved_turn == 2)
    assert "fails the tests" in revised.turns[2].text


def test_study_command_prints_the_table_and_writes_csv(built, tmp_path):
    from typer.testing import CliRunner

    from capabench.benchmark import default_benchmark_path, write_benchmark
    from capabench.cli import app

    bench, _ = built
    if not default_benchmark_path(0).exists():  # the command loads the cached default benchmark
        write_benchmark(bench, default_benchmark_path(0))
    result = CliRunner().invoke(
        app,
        [
            "study",
            "identity",
            "--model",
            "baseline/history-reader",
            "--limit",
            "4",
            "--runs",
            str(tmp_path),
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "identity: table3" in result.output and "shuffled" in result.output
    rows = (tmp_path / "studies" / "identity-table3.csv").read_text().splitlines()
    assert rows[0] == "condition,metric,baseline/history-reader" and len(rows) == 10
    curve = CliRunner().invoke(
        app,
        [
            "study",
            "learning-curve",
            "--model",
            "baseline/history-reader",
            "--limit",
            "4",
            "--runs",
            str(tmp_path),
        ],
        env={"COLUMNS": "200"},
    )
    assert curve.exit_code == 0, curve.output
    rows = (tmp_path / "studies" / "learning-curve-curve.csv").read_text().splitlines()
    assert rows[0].startswith("model,k,n,ES") and len(rows) == 7  # one row per (model, k)
    assert (tmp_path / "studies" / "learning-curve.png").read_bytes().startswith(b"\x89PNG")
    wrong = CliRunner().invoke(app, ["study", "tables", "--model", "baseline/oracle"])
    assert wrong.exit_code == 2 and "unknown study 'tables'" in wrong.output


def test_memory_costs_are_per_user_beside_the_method():
    from types import SimpleNamespace

    from capabench.studies import memory_cost

    def result(cell, **info):
        return SimpleNamespace(cell=cell, history_info=info)

    amem = [
        result(1, build_calls=9, build_tokens_in=100, build_tokens_out=20, build_seconds=2.0),
        result(1, build_calls=9, build_tokens_in=100, build_tokens_out=20, build_seconds=2.0),
        result(2, build_calls=7, build_tokens_in=50, build_tokens_out=10, build_seconds=1.0,
               memory_reused=True),
    ]  # fmt: skip
    assert memory_cost(amem) == {
        "memory calls/user": 8.0,  # per user, not per session: cell 1 counts once
        "memory tokens/user": 90.0,
        "memory s/user": 1.5,
        "memories reused": 1,
    }
    mem0 = [result(1, build_calls=5, build_seconds=3.0)]  # mem0: tokens not attributable
    assert memory_cost(mem0)["memory tokens/user"] is None
    assert set(memory_cost([result(1, gate="x")]).values()) == {None}
