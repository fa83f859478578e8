"""`capabench build|benchmark|validate|inspect`: making and reading benchmarks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from capabench.cli.app import app
from capabench.cli.common import model_or_fail, progress_bar
from capabench.cli.errors import fail

ModelOption = Annotated[str | None, typer.Option(help="model spec, e.g. scripted:replies.json")]


@app.command("build")
def build_cmd(
    out: Annotated[Path, typer.Option("--out", help="directory to write the benchmark to")],
    seed: Annotated[int, typer.Option("--seed", help="everything is deterministic from it")] = 0,
    generator_model: ModelOption = None,
    assistant_model: ModelOption = None,
    user_model: ModelOption = None,
    tasks: Annotated[
        str, typer.Option("--tasks", help="humaneval, or a JSONL file of your own tasks")
    ] = "humaneval",
    profiles: Annotated[
        str | None,
        typer.Option("--profiles", help="comma-separated profile ids (default: all ten)"),
    ] = None,
    cells_per_pair: Annotated[
        int, typer.Option("--cells-per-pair", min=1, help="users per mechanism pair")
    ] = 4,
    history: Annotated[
        int, typer.Option("--history", min=1, help="resolved history sessions per user")
    ] = 5,
    heldout: Annotated[
        int, typer.Option("--heldout", min=1, help="held-out sessions per user")
    ] = 5,
) -> None:
    """Build the CAPA benchmark (the paper's: 600 sessions, 60 cells over HumanEval) and write
    it to --out; --tasks, --profiles, --cells-per-pair, --history and --heldout build it over
    your own task pool at your own size, with the same validators.

    Without models every stage is deterministic. --generator-model rewrites requests under
    the paper's information control, --assistant-model plays the assistant in history
    dialogues, --user-model phrases the simulated user's answers; the validators run on
    whatever they produce, and templates or scripted dialogues stand in where they fail.
    """
    from capabench.benchmark import BenchmarkDirError, check_out_dir, write_benchmark
    from capabench.build.builder import BuildError, Models, build
    from capabench.build.design import Design
    from capabench.profiles import PROFILES
    from capabench.tasks import TaskFileError, load_tasks

    chosen = (
        tuple(p.strip() for p in profiles.split(",") if p.strip())
        if profiles
        else tuple(p.id for p in PROFILES)
    )
    plan = Design(chosen, cells_per_pair, history, heldout)
    if problems := plan.problems():
        raise fail("; ".join(problems) + f" (profiles: {', '.join(p.id for p in PROFILES)})")
    try:
        check_out_dir(out)  # before minutes of building
        pool_tasks = None if tasks.lower() == "humaneval" else load_tasks(tasks)
    except (BenchmarkDirError, TaskFileError) as exc:
        raise fail(str(exc)) from None
    models = Models(
        generator=model_or_fail(generator_model),
        assistant=model_or_fail(assistant_model),
        user=model_or_fail(user_model),
    )
    start = time.perf_counter()
    bar, task = progress_bar("building cells", plan.cells + 1)
    try:
        with bar:
            bench = build(
                seed,
                progress=lambda _msg: bar.advance(task),
                models=models,
                tasks=pool_tasks,
                plan=plan,
            )
    except BuildError as exc:
        raise fail(str(exc)) from None
    manifest = write_benchmark(bench, out)
    table = Table(
        "seed", "cells", "sessions", "history", "held-out", "tasks used", "left out", "seconds"
    )
    c = manifest.counts
    table.add_row(
        str(seed),
        str(c["cells"]),
        str(c["sessions"]),
        str(c["history"]),
        str(c["heldout"]),
        str(c["tasks_used"]),
        str(len(manifest.excluded_tasks)),
        f"{time.perf_counter() - start:.1f}",
    )
    Console().print(table)
    Console().print(f"wrote {out} (content {manifest.content_hash[:12]})")


@app.command("benchmark")
def benchmark_cmd(
    seed: Annotated[int, typer.Option("--seed", help="benchmark seed")] = 0,
    check: Annotated[bool, typer.Option("--validate", help="also re-run every validator")] = False,
) -> None:
    """The default benchmark: built on first use, cached, and its location printed."""
    from capabench.benchmark import default_benchmark_path
    from capabench.build.default import default_benchmark

    bar, task = progress_bar("building the default benchmark (once)", 61)
    with bar:
        bench = default_benchmark(seed, progress=lambda _msg: bar.advance(task))
    path = default_benchmark_path(seed)
    c = bench.manifest.counts
    Console().print(
        f"{c['sessions']} sessions ({c['history']} history, {c['heldout']} held out) in {c['cells']} cells at {path}"
    )
    if check:
        validate_cmd(path)


@app.command("validate")
def validate_cmd(
    directory: Annotated[Path, typer.Argument(help="a built benchmark directory")],
) -> None:
    """Re-run every validator on a built benchmark; exit 1 on any violation."""
    from capabench.benchmark import BenchmarkDirError, load_benchmark
    from capabench.build.validate import validate

    try:
        bench = load_benchmark(directory)
    except (BenchmarkDirError, OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    start = time.perf_counter()
    bar, task = progress_bar("validating sessions", len(bench.sessions))
    with bar:
        report = validate(bench, progress=lambda: bar.advance(task))
    out = Console()
    table = Table(
        "family", "sessions", "discriminating", title="discrimination per convention family"
    )
    for family in sorted(report.appearances):
        table.add_row(family, str(report.appearances[family]), str(report.discriminating[family]))
    out.print(table)
    elapsed = time.perf_counter() - start
    if report.problems:
        for problem in report.problems[:50]:
            out.print(f"[red]x[/red] {escape(problem)}", soft_wrap=True, highlight=False)
        out.print(
            f"{len(report.problems)} violations in {report.sessions_checked} sessions ({elapsed:.1f}s)"
        )
        raise typer.Exit(1)
    out.print(
        f"all validators passed: {report.sessions_checked} sessions, {len(bench.cells)} cells ({elapsed:.1f}s)"
    )


@app.command("inspect")
def inspect_cmd(
    directory: Annotated[Path, typer.Argument(help="a built benchmark directory")],
    session_id: Annotated[
        str | None, typer.Argument(help="e.g. cell03-7; omit for an overview")
    ] = None,
) -> None:
    """Show a benchmark's cells, or one session as a person would read it."""
    from capabench.benchmark import BenchmarkDirError, load_benchmark

    try:
        bench = load_benchmark(directory)
    except (BenchmarkDirError, OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    out = Console()
    if session_id is None:
        table = Table("cell", "user", "profile", "conventions", "tasks")
        users = {u.id: u for u in bench.users}
        for cell in bench.cells:
            user = users[cell.user_id]
            conventions = ", ".join(f"{s.family}={s.alternative}" for s in user.slots)
            tasks = " ".join(
                s.task_id.split("/")[-1] for s in bench.sessions if s.cell == cell.index
            )
            table.add_row(str(cell.index), user.id, cell.profile_id, escape(conventions), tasks)
        out.print(table)
        return
    try:
        session = bench.session(session_id)
    except KeyError:
        raise fail(f"no session {session_id!r} (ids look like cell03-7)") from None
    from rich.panel import Panel
    from rich.syntax import Syntax

    out.print(
        f"[bold]{session.id}[/bold]  {session.split}  task {session.task_id}  user {session.user_id} ({session.profile_id})"
    )
    out.print(Panel(escape(session.request.strip()), title="initial request"))
    slots = Table(
        "family", "mechanism", "alternative", "what the user says when asked", title="hidden slots"
    )
    for slot in session.slots:
        slots.add_row(slot.family, slot.mechanism.value, slot.alternative, escape(slot.statement))
    out.print(slots)
    out.print(f"hidden tests call [bold]{session.entry_point}[/bold]")
    for turn in session.trace[1:]:
        title = (
            turn.role
            + (f" (submission: {turn.verdict})" if turn.verdict else "")
            + (f" (reveals {', '.join(turn.revealed)})" if turn.revealed else "")
        )
        out.print(Panel(escape(turn.text.strip()), title=title))
    if not session.trace:
        out.print(
            Panel(Syntax(session.reference, "python"), title="reference (held out: no trace)")
        )
