"""`capabench judge` and `capabench tasks list|verify`: the sandboxed judge and task sources."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from capabench import judge as judging
from capabench.cli.app import app, tasks_app
from capabench.cli.common import progress_bar, read_input, tasks_of
from capabench.cli.errors import fail
from capabench.records import Task, Verdict

SourceOption = Annotated[str, typer.Option("--source", help="'humaneval' or a JSONL file of tasks")]


@app.command()
def judge(
    code: Annotated[Path, typer.Option("--code", help="file with the submission ('-' for stdin)")],
    task: Annotated[str | None, typer.Option("--task", help="task id, e.g. HumanEval/0")] = None,
    tests: Annotated[
        Path | None, typer.Option("--tests", help="file defining check(candidate)")
    ] = None,
    entry_point: Annotated[
        str | None, typer.Option("--entry-point", help="function the tests call")
    ] = None,
    source: SourceOption = "humaneval",
    extract: Annotated[
        bool, typer.Option("--extract", help="the file is an assistant message: extract its code")
    ] = False,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="seconds")] = 10.0,
) -> None:
    """Judge one submission in the sandbox and print the verdict as JSON (exit 0 only when it passed)."""
    text = read_input(code)
    if task is not None:
        if tests is not None:
            raise fail("give either --task or --tests/--entry-point, not both")
        found = {t.id: t for t in tasks_of(source)}.get(task)
        if found is None:
            raise fail(f"no task {task!r} in {source}")
        submission = (judging.extract_code(text, found.entry_point) or "") if extract else text
        verdict = judging.judge_task(found, submission, timeout_s=timeout)
    elif tests is not None and entry_point is not None:
        submission = (judging.extract_code(text, entry_point) or "") if extract else text
        try:
            verdict = judging.judge(submission, read_input(tests), entry_point, timeout_s=timeout)
        except judging.InvalidTests as exc:
            raise fail(str(exc)) from None
    else:
        raise fail("give --task ID, or --tests FILE with --entry-point NAME")
    print(verdict.model_dump_json(indent=2))
    raise typer.Exit(0 if verdict.passed else 1)


@tasks_app.command("list")
def tasks_list(source: SourceOption = "humaneval") -> None:
    """List the tasks of a source."""
    table = Table("id", "entry point", "prompt lines", "test lines")
    for task in tasks_of(source):
        table.add_row(
            task.id, task.entry_point, str(task.prompt.count("\n")), str(task.test.count("\n"))
        )
    Console().print(table)


def judge_all(pairs: list[tuple[Task, str]], workers: int | None, label: str) -> list[Verdict]:
    """Judge (task, code) pairs on every core, with a progress bar."""
    pool = judging.default_pool()
    results: list[Verdict] = []
    bar, progress = progress_bar(label, len(pairs))
    with bar, ThreadPoolExecutor(workers or pool.size) as executor:
        for verdict in executor.map(lambda pair: judging.judge_task(*pair, pool=pool), pairs):
            results.append(verdict)
            bar.advance(progress)
    return results


@tasks_app.command("verify")
def tasks_verify(
    source: SourceOption = "humaneval",
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="parallel judges (default: pool size)")
    ] = None,
) -> None:
    """Judge every task's reference solution in the sandbox; exit 1 if any fails."""
    tasks = tasks_of(source)
    start = time.perf_counter()
    verdicts = judge_all(
        [(t, t.reference_solution) for t in tasks], workers, f"judging {len(tasks)} references"
    )
    elapsed = time.perf_counter() - start
    failures = [(t, v) for t, v in zip(tasks, verdicts, strict=True) if not v.passed]
    out = Console()
    if failures:
        table = Table("task", "status", "detail", title="reference solutions that failed")
        for task, verdict in failures:
            table.add_row(task.id, verdict.status, verdict.detail[:200])
        out.print(table)
    summary = Table("source", "tasks", "passed", "failed", "isolation", "seconds", "judged / s")
    summary.add_row(
        source,
        str(len(tasks)),
        str(len(tasks) - len(failures)),
        str(len(failures)),
        verdicts[0].isolation,
        f"{elapsed:.2f}",
        f"{len(tasks) / elapsed:.1f}",
    )
    out.print(summary)
    raise typer.Exit(1 if failures else 0)
