"""`capabench study NAME`: one of the paper's studies, its tables in the paper's layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from capabench.cli.app import app
from capabench.cli.common import default_run_dir, load_bench, print_rows, progress_bar
from capabench.cli.errors import fail
from capabench.cli.options import MODEL_HELP, PlayOptions, play_options


@app.command("study")
@play_options
def study_cmd(
    name: Annotated[
        str,
        typer.Argument(
            help="main, difficulty, identity, memory, mechanism, split, learning-curve, blank-control"
        ),
    ],
    models: Annotated[
        list[str], typer.Option("--model", help=MODEL_HELP + " (repeat for several)")
    ],
    runs: Annotated[
        Path, typer.Option("--runs", help="where each model's run directory lives")
    ] = Path("runs"),
    out: Annotated[
        Path | None, typer.Option("--out", help="CSV files (default: <runs>/studies)")
    ] = None,
    difficulty: Annotated[
        Path | None,
        typer.Option(
            "--difficulty", help="saved partition (default: <runs>/difficulty-<benchmark>.json)"
        ),
    ] = None,
    *,
    play: PlayOptions,
) -> None:
    """Run one of the paper's studies for the models and print its tables in the paper's layout."""
    from capabench.executors import ExecutorError
    from capabench.judge.sandbox import default_pool
    from capabench.report.render import write_csv
    from capabench.store import RunDirError
    from capabench.studies import StudyPlan, study
    from capabench.studies import play as play_study

    try:
        chosen = study(name)
    except ValueError as exc:
        raise fail(str(exc)) from None
    bench = load_bench(play.seed, play.benchmark)
    tag = bench.manifest.content_hash[:8]
    configs = [play.run_config(m, []) for m in models]
    plan = StudyPlan(
        chosen,
        configs,
        [runs / default_run_dir(m, bench).name for m in models],
        difficulty or runs / f"difficulty-{tag}.json",
    )
    bar, task = progress_bar(f"study {name}", None)
    try:
        with bar:
            data = play_study(plan, bench, default_pool(), progress=lambda _r: bar.advance(task))
    except (ValueError, RunDirError, ExecutorError) as exc:
        raise fail(str(exc)) from None
    out = out or runs / "studies"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot write the tables to {out}: {exc.strerror}") from None
    Console().print(chosen.about)
    for model in models:
        left_out = [c for c in chosen.llm_only if c not in chosen.conditions_for(model)]
        if left_out:
            Console().print(
                f"{model}: {', '.join(left_out)} need an LLM (they use the evaluated model); not played for it"
            )
    if chosen.by_difficulty:
        saved = json.loads(plan.difficulty_file.read_text())
        Console().print(
            f"difficulty partition: {plan.difficulty_file} (from {saved['model']}'s no-history run, {saved['reference_run']})"
        )
    tables = chosen.tables(data)
    for table, rows in tables.items():
        columns = {k: k for k in (rows[0] if rows else {})}
        print_rows(f"{name}: {table}", rows, columns)
        write_csv(out / f"{name}-{table}.csv", rows)
    for figure, png in (chosen.plots(tables) if chosen.plots else {}).items():
        (out / figure).write_bytes(png)
    Console().print(f"CSV in {out}; run directories: {', '.join(map(str, plan.run_dirs))}")
