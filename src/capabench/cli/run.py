"""`capabench run`: play a model or reference policy on the held-out sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from capabench.cli.app import app
from capabench.cli.common import default_run_dir, load_bench, print_run_tables, progress_bar, warn
from capabench.cli.errors import console, fail
from capabench.cli.options import MODEL_HELP, PlayOptions, play_options


@app.command("run")
@play_options
def run_cmd(
    model: Annotated[str, typer.Option("--model", help=MODEL_HELP)],
    conditions: Annotated[
        str, typer.Option("--conditions", help="comma-separated")
    ] = "none,same-user",
    epochs: Annotated[
        int, typer.Option("--epochs", min=1, help="plays of each session (pass^k reads them)")
    ] = 1,
    run_dir: Annotated[
        Path | None, typer.Option("--run-dir", help="default: runs/<model>-<benchmark>")
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="no tables (capabench report prints them)")
    ] = False,
    *,
    play: PlayOptions,
) -> None:
    """Evaluate a model or reference policy on the held-out sessions; re-running resumes."""
    from capabench.executors import ExecutorError
    from capabench.report import load_runs
    from capabench.runner import Runner
    from capabench.store import RunDirError

    bench = load_bench(play.seed, play.benchmark)
    names = [c.strip() for c in conditions.split(",") if c.strip()]
    config = play.run_config(model, names, epochs=epochs)
    path = run_dir or default_run_dir(model, bench)
    try:
        runner = Runner(config, bench, path)
        pending = len(runner.jobs())
    except (ValueError, RunDirError) as exc:
        raise fail(str(exc)) from None
    total = len(runner.jobs(done=set()))
    bar, task = progress_bar(f"{model}: sessions", total)
    bar.update(task, completed=total - pending)
    try:
        with bar:
            runner.run(progress=lambda _r: bar.advance(task))
    except (RunDirError, ExecutorError) as exc:
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        kept = total - len(runner.jobs())
        Console(stderr=True).print(
            f"interrupted: {kept} of {total} session(s) kept in {path}; "
            "the same command resumes from there"
        )
        raise typer.Exit(130) from None
    (run,) = load_runs([path], warn=warn)
    if not quiet:
        print_run_tables([run])
    Console().print(f"run directory: {path} ({len(run.results)} results)")
    say_what_failed(run, config)


def say_what_failed(run, config) -> None:
    """Infrastructure errors are not results: name them, and exit 1 when nothing at all
    could be measured."""
    failed = [r for r in run.results if r.status != "completed"]
    if not failed:
        return
    endpoint = config.options.base_url or f"the {config.model.split('/')[0]} endpoint"
    first = (
        failed[0].error.strip().splitlines()[0][:300] if failed[0].error.strip() else "no detail"
    )
    if len(failed) == len(run.results):
        raise fail(
            f"nothing was measured: all {len(failed)} sessions ended in infrastructure errors ({endpoint}): {first}"
        )
    console.print(
        f"[yellow]warning:[/] {len(failed)} of {len(run.results)} sessions ended in infrastructure "
        f"errors ({escape(endpoint)}), not scored; rerun the same command to retry them. First: {escape(first)}"
    )
