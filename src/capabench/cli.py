"""The `capabench` command."""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from capabench import judge as judging
from capabench.cli_errors import console, fail
from capabench.cli_swe import swe_app
from capabench.records import Task, Verdict
from capabench.tasks import TaskFileError, load_tasks

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}  # subcommands inherit it
app = typer.Typer(
    rich_markup_mode=None,  # help texts are plain: "local[/<gguf>]" is not markup
    help="capabench: personalized-ambiguity benchmarks for coding assistants.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)
tasks_app = typer.Typer(
    rich_markup_mode=None,
    help="Task sources: list and verify them.",
    no_args_is_help=True,
    context_settings=HELP_OPTIONS,
)
app.add_typer(tasks_app, name="tasks")
app.add_typer(swe_app, name="swe")


def _version(value: bool) -> None:
    if value:
        import capabench

        print(f"capabench {capabench.__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """capabench: personalized-ambiguity benchmarks for coding assistants."""


SourceOption = Annotated[str, typer.Option("--source", help="'humaneval' or a JSONL file of tasks")]


def _tasks(source: str) -> list[Task]:
    try:
        return load_tasks(source)
    except (TaskFileError, OSError) as exc:
        raise fail(str(exc)) from None


def _read(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror}") from None


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
    text = _read(code)
    if task is not None:
        if tests is not None:
            raise fail("give either --task or --tests/--entry-point, not both")
        found = {t.id: t for t in _tasks(source)}.get(task)
        if found is None:
            raise fail(f"no task {task!r} in {source}")
        submission = (judging.extract_code(text, found.entry_point) or "") if extract else text
        verdict = judging.judge_task(found, submission, timeout_s=timeout)
    elif tests is not None and entry_point is not None:
        submission = (judging.extract_code(text, entry_point) or "") if extract else text
        try:
            verdict = judging.judge(submission, _read(tests), entry_point, timeout_s=timeout)
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
    for task in _tasks(source):
        table.add_row(
            task.id, task.entry_point, str(task.prompt.count("\n")), str(task.test.count("\n"))
        )
    Console().print(table)


def judge_all(pairs: list[tuple[Task, str]], workers: int | None, label: str) -> list[Verdict]:
    """Judge (task, code) pairs on every core, with a progress bar."""
    pool = judging.default_pool()
    results: list[Verdict] = []
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"),
               TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=True) as bar:
        progress = bar.add_task(label, total=len(pairs))
        with ThreadPoolExecutor(workers or pool.size) as executor:
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
    tasks = _tasks(source)
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


def _progress(label: str, total: int):
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"),
               TimeRemainingColumn())  # fmt: skip
    bar = Progress(*columns, console=console, transient=True)
    return bar, bar.add_task(label, total=total)


def _model(spec: str | None):
    from capabench.models import make_model

    if spec is None:
        return None
    try:
        return make_model(spec)
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None


ModelOption = Annotated[str | None, typer.Option(help="model spec, e.g. scripted:replies.json")]


@app.command("build")
def build_cmd(
    out: Annotated[Path, typer.Option("--out", help="directory to write the benchmark to")],
    seed: Annotated[int, typer.Option("--seed", help="everything is deterministic from it")] = 0,
    generator_model: ModelOption = None,
    assistant_model: ModelOption = None,
    user_model: ModelOption = None,
) -> None:
    """Build the CAPA benchmark (600 sessions, 60 cells) and write it to --out.

    Without models every stage is deterministic. --generator-model rewrites requests under
    the paper's information control, --assistant-model plays the assistant in history
    dialogues, --user-model phrases the simulated user's answers; the validators run on
    whatever they produce, and templates or scripted dialogues stand in where they fail.
    """
    from capabench.benchmark import BenchmarkDirError, check_out_dir, write_benchmark
    from capabench.build.builder import BuildError, Models, build

    try:
        check_out_dir(out)  # before minutes of building
    except BenchmarkDirError as exc:
        raise fail(str(exc)) from None
    models = Models(
        generator=_model(generator_model),
        assistant=_model(assistant_model),
        user=_model(user_model),
    )
    start = time.perf_counter()
    bar, task = _progress("building cells", 61)
    try:
        with bar:
            bench = build(seed, progress=lambda _msg: bar.advance(task), models=models)
    except BuildError as exc:
        raise fail(str(exc)) from None
    manifest = write_benchmark(bench, out)
    table = Table(
        "seed", "cells", "sessions", "history", "held-out", "tasks used", "left out", "seconds"
    )
    c = manifest.counts
    table.add_row(str(seed), str(c["cells"]), str(c["sessions"]), str(c["history"]), str(c["heldout"]),
                  str(c["tasks_used"]), str(len(manifest.excluded_tasks)), f"{time.perf_counter() - start:.1f}")  # fmt: skip
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

    bar, task = _progress("building the default benchmark (once)", 61)
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
    bar, task = _progress("validating sessions", len(bench.sessions))
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


_MAIN_COLUMNS = {
    "model": "model", "paired n": "n", "ES none": "ES none", "FT-ES none": "FT-ES none", "TTC none": "TTC none",
    "ES same-user": "ES same", "FT-ES same-user": "FT-ES same", "TTC same-user": "TTC same",
    "ΔES (pp)": "ΔES", "ΔFT-ES (pp)": "ΔFT-ES", "ΔTTC (turns saved)": "ΔTTC",
    "p ES": "p ES", "p TTC": "p TTC",
}  # fmt: skip
_CONDITION_COLUMNS = {
    "model": "model", "condition": "condition", "n": "n", "ES": "ES", "FT-ES": "FT-ES", "TTC": "TTC",
    "ask rate": "ask%", "needless-ask rate": "needless%", "unanswered questions %": "unans%",
    "tokens/session": "tok/sess", "replies cut at the token limit": "cut", "infra errors": "infra",
}  # fmt: skip


def _print_rows(title: str, rows: list[dict], columns: dict[str, str], caption: str = "") -> None:
    """A readable terminal table: the key columns; the files carry everything."""
    # A terminal gets its own width (long cells wrap); logs and pipes get whole rows.
    out = Console() if sys.stdout.isatty() else Console(width=max(Console().width, 140))
    if not rows:
        out.print(f"{title}: nothing to show")
        return
    table = Table(title=title, caption=caption or None)
    for i, name in enumerate(columns.values()):
        # The first column (the model) stays whole; the others wrap, never cut to "baselin…".
        table.add_column(name, overflow="fold", no_wrap=i == 0)
    for row in rows:
        table.add_row(*("–" if row.get(k) is None else str(row[k]) for k in columns))
    out.print(table)


def _print_run_tables(runs, cluster: str = "cell") -> None:
    from capabench.report.tables import condition_rows, main_table_rows, methods

    named = methods(cluster)
    note = (
        "n: sessions both conditions completed (epochs averaged per session); none: no history, same: same-user "
        "history. ES, FT-ES in %; TTC in turns. ΔES = same-user − none; ΔTTC = none − same-user "
        f"(positive: fewer turns). Tests: {named['test ES']}; {named['test TTC']}. Holm-adjusted p in the files."
    )
    _print_rows("Table 1 layout", main_table_rows(runs), _MAIN_COLUMNS, note)
    _print_rows("all conditions", condition_rows(runs, cluster), _CONDITION_COLUMNS,
                f"n: sessions; intervals in the files: ES/FT-ES {named['interval ES']}; TTC {named['interval TTC']}. "
                "unans%: questions the simulated user answered 'use your judgement' (capabench audit-user re-reads them); "
                "cut: assistant replies stopped by --max-tokens (a cut submission can't pass: raise it)")  # fmt: skip


# Options shared by `run` and `study`.
LimitOpt = Annotated[
    int | None,
    typer.Option(
        "--limit",
        min=1,
        help="the first N sessions of a fixed order that takes every user once before any twice",
    ),
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", min=1, help="model calls in flight per endpoint")
]
ProcessesOpt = Annotated[
    int,
    typer.Option("--processes", min=1, help="worker processes sharing the concurrency (many calls at once on a small machine)"),
]  # fmt: skip
UserModelOpt = Annotated[
    str | None, typer.Option("--user-model", help="an LLM to phrase the user's answers")
]
UserMatcherOpt = Annotated[
    str,
    typer.Option(
        "--user-matcher",
        help="how the simulated user reads questions: rules (default), semantic (embeddings extra), llm (needs --user-model)",
    ),
]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="an OpenAI-compatible server")]
ApiKeyOpt = Annotated[
    str | None, typer.Option("--api-key", help="default: the provider's environment variable")
]
TemperatureOpt = Annotated[
    float, typer.Option("--temperature", min=0.0, max=2.0, help="sampling temperature (0: greedy)")
]
MaxTokensOpt = Annotated[int, typer.Option("--max-tokens", min=16, help="per assistant turn")]
ContextOpt = Annotated[
    int | None,
    typer.Option("--context", min=512, help="a local model's context window (default 8192)"),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="don't reuse cached responses")]
SeedOpt = Annotated[int, typer.Option("--seed", help="benchmark seed")]
BenchmarkOpt = Annotated[
    Path | None,
    typer.Option(
        "--benchmark",
        help="a benchmark directory made by `capabench build` (default: the seed's default benchmark)",
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option("--prices", help='JSON {"model prefix": [input, output]} USD per 1M tokens'),
]
TopKOpt = Annotated[
    int, typer.Option("--top-k", min=1, help="sessions a retrieval condition shows")
]
MODEL_HELP = "openai/<m>, anthropic/<m>, local[/<gguf>], baseline/<policy>"


def _run_config(model: str, conditions: list[str], *, limit, concurrency, seed, user_model, base_url, api_key, user_matcher,
                temperature, max_tokens, no_cache, prices, top_k, epochs: int = 1, processes: int = 1, context: int | None = None):  # fmt: skip
    from capabench.models import ModelOptions
    from capabench.paths import cache_dir
    from capabench.runner import RunConfig

    options = ModelOptions(base_url=base_url, api_key=api_key, temperature=temperature, concurrency=concurrency, max_tokens=max_tokens, context=context,
                           cache=None if no_cache else str(cache_dir() / "responses.sqlite"))  # fmt: skip
    return RunConfig(model=model, conditions=conditions, limit=limit, epochs=epochs, concurrency=concurrency,
                     seed=seed, user_model=user_model, user_matcher=user_matcher, options=options, top_k=top_k,
                     prices=str(prices) if prices else None, processes=processes)  # fmt: skip


def _benchmark(seed: int, directory: Path | None = None):
    """The benchmark a command plays: a built directory (--benchmark), or the default one of
    the seed (built once and cached)."""
    from capabench.benchmark import BenchmarkDirError, load_benchmark
    from capabench.build.default import default_benchmark

    if directory is not None:
        try:
            return load_benchmark(directory)
        except (BenchmarkDirError, OSError) as exc:
            raise fail(str(exc)) from None
    bar, task = _progress("preparing the benchmark", 61)
    with bar:
        return default_benchmark(seed, progress=lambda _msg: bar.advance(task))


def _default_run_dir(model: str, bench) -> Path:
    return Path("runs") / f"{model.replace('/', '-')}-{bench.manifest.content_hash[:8]}"


@app.command("run")
def run_cmd(
    model: Annotated[str, typer.Option("--model", help=MODEL_HELP)],
    conditions: Annotated[str, typer.Option("--conditions", help="comma-separated")] = "none,same-user",
    limit: LimitOpt = None,
    concurrency: ConcurrencyOpt = 4,
    processes: ProcessesOpt = 1,
    epochs: Annotated[int, typer.Option("--epochs", min=1, help="plays of each session (pass^k reads them)")] = 1,
    run_dir: Annotated[Path | None, typer.Option("--run-dir", help="default: runs/<model>-<benchmark>")] = None,
    user_model: UserModelOpt = None,
    user_matcher: UserMatcherOpt = "rules",
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    temperature: TemperatureOpt = 0.0,
    max_tokens: MaxTokensOpt = 2048,
    context: ContextOpt = None,
    no_cache: NoCacheOpt = False,
    seed: SeedOpt = 0,
    benchmark: BenchmarkOpt = None,
    prices: PricesOpt = None,
    top_k: TopKOpt = 2,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no tables (capabench report prints them)")] = False,
) -> None:  # fmt: skip
    """Evaluate a model or reference policy on the held-out sessions; re-running resumes."""
    from capabench.report import load_runs
    from capabench.runner import Runner
    from capabench.store import RunDirError

    bench = _benchmark(seed, benchmark)
    names = [c.strip() for c in conditions.split(",") if c.strip()]
    config = _run_config(model, names, limit=limit, concurrency=concurrency, seed=seed, user_model=user_model, user_matcher=user_matcher,
                         base_url=base_url, api_key=api_key, temperature=temperature, max_tokens=max_tokens,
                         no_cache=no_cache, prices=prices, top_k=top_k, epochs=epochs, processes=processes, context=context)  # fmt: skip
    path = run_dir or _default_run_dir(model, bench)
    try:
        runner = Runner(config, bench, path)
        pending = len(runner.jobs())
    except (ValueError, RunDirError) as exc:
        raise fail(str(exc)) from None
    total = len(runner.jobs(done=set()))
    bar, task = _progress(f"{model}: sessions", total)
    bar.update(task, completed=total - pending)
    try:
        with bar:
            runner.run(progress=lambda _r: bar.advance(task))
    except RunDirError as exc:
        raise fail(str(exc)) from None
    (run,) = load_runs([path], warn=_warn)
    if not quiet:
        _print_run_tables([run])
    Console().print(f"run directory: {path} ({len(run.results)} results)")
    _say_what_failed(run, config)


def _warn(message: str) -> None:
    console.print(f"[yellow]warning:[/] {escape(message)}", soft_wrap=True, highlight=False)


def _say_what_failed(run, config) -> None:
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
    console.print(f"[yellow]warning:[/] {len(failed)} of {len(run.results)} sessions ended in infrastructure "
                  f"errors ({escape(endpoint)}), not scored; rerun the same command to retry them. First: {escape(first)}")  # fmt: skip


@app.command("study")
def study_cmd(
    name: Annotated[str, typer.Argument(help="main, difficulty, identity, memory, mechanism, split, blank-control")],
    models: Annotated[list[str], typer.Option("--model", help=MODEL_HELP + " (repeat for several)")],
    limit: LimitOpt = None,
    concurrency: ConcurrencyOpt = 4,
    processes: ProcessesOpt = 1,
    runs: Annotated[Path, typer.Option("--runs", help="where each model's run directory lives")] = Path("runs"),
    out: Annotated[Path | None, typer.Option("--out", help="CSV files (default: <runs>/studies)")] = None,
    difficulty: Annotated[Path | None, typer.Option("--difficulty", help="saved partition (default: <runs>/difficulty-<benchmark>.json)")] = None,
    user_model: UserModelOpt = None,
    user_matcher: UserMatcherOpt = "rules",
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    temperature: TemperatureOpt = 0.0,
    max_tokens: MaxTokensOpt = 2048,
    context: ContextOpt = None,
    no_cache: NoCacheOpt = False,
    seed: SeedOpt = 0,
    benchmark: BenchmarkOpt = None,
    prices: PricesOpt = None,
    top_k: TopKOpt = 2,
) -> None:  # fmt: skip
    """Run one of the paper's studies for the models and print its tables in the paper's layout."""
    from capabench.judge.sandbox import default_pool
    from capabench.report.render import write_csv
    from capabench.store import RunDirError
    from capabench.studies import StudyPlan, play, study

    try:
        chosen = study(name)
    except ValueError as exc:
        raise fail(str(exc)) from None
    bench = _benchmark(seed, benchmark)
    tag = bench.manifest.content_hash[:8]
    settings = dict(limit=limit, concurrency=concurrency, seed=seed, user_model=user_model, user_matcher=user_matcher, base_url=base_url,
                    api_key=api_key, temperature=temperature, max_tokens=max_tokens, no_cache=no_cache,
                    prices=prices, top_k=top_k, processes=processes, context=context)  # fmt: skip
    configs = [_run_config(m, [], **settings) for m in models]
    plan = StudyPlan(chosen, configs, [runs / _default_run_dir(m, bench).name for m in models],
                     difficulty or runs / f"difficulty-{tag}.json")  # fmt: skip
    bar, task = _progress(f"study {name}", None)
    try:
        with bar:
            data = play(plan, bench, default_pool(), progress=lambda _r: bar.advance(task))
    except (ValueError, RunDirError) as exc:
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
    for table, rows in chosen.tables(data).items():
        columns = {k: k for k in (rows[0] if rows else {})}
        _print_rows(f"{name}: {table}", rows, columns)
        write_csv(out / f"{name}-{table}.csv", rows)
    Console().print(f"CSV in {out}; run directories: {', '.join(map(str, plan.run_dirs))}")


@app.command("report")
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(help="one or more run directories")],
    out: Annotated[Path, typer.Option("--out", help="where to write CSV/JSON/PNG/HTML")] = Path(
        "report"
    ),
    intervals: Annotated[
        str,
        typer.Option(
            "--intervals", help="resampling unit of the intervals: cell (users, default) or session"
        ),
    ] = "cell",
) -> None:
    """The paper's Table 1 for every model in the runs, all conditions, and report files."""
    from capabench.report import load_runs
    from capabench.report.render import write_report
    from capabench.store import RunDirError

    try:
        runs = load_runs(run_dirs, warn=_warn)
    except RunDirError as exc:
        raise fail(str(exc)) from None
    if intervals not in ("cell", "session"):
        raise fail(f"--intervals must be 'cell' or 'session', not {intervals!r}")
    _print_run_tables(runs, intervals)
    try:
        files = write_report(runs, out, cluster=intervals)
    except OSError as exc:
        raise fail(
            f"cannot write the report to {out}: {exc.strerror or exc}; choose another --out"
        ) from None
    Console().print(f"wrote {', '.join(sorted(files))} to {out}")


@app.command("list")
def list_cmd() -> None:
    """What exists: model kinds, reference policies, history conditions, studies, the simulated
    user's intent matchers and the convention families."""
    from capabench.conventions import REGISTRY as FAMILIES
    from capabench.history.base import CONDITIONS
    from capabench.models.base import REGISTRY as MODELS
    from capabench.simulate.intent import MATCHERS
    from capabench.simulate.policies import POLICIES
    from capabench.studies import STUDIES

    rows = [
        ("models (--model)", ", ".join({"local": "local[/<file.gguf>]", "scripted": "scripted:<replies.json>"}.get(k, f"{k}/<name>") for k in sorted(MODELS))),
        ("reference policies (--model)", ", ".join(f"baseline/{p}" for p in POLICIES)),
        ("conditions (--conditions)", ", ".join(sorted(CONDITIONS))),
        ("studies (capabench study NAME)", ", ".join(STUDIES)),
        ("intent matchers (--user-matcher)", ", ".join(MATCHERS)),
        ("convention families", ", ".join(sorted(FAMILIES))),
    ]  # fmt: skip
    table = Table("what", "names", show_lines=True)
    for what, names in rows:
        table.add_row(what, escape(names))
    Console().print(table)


@app.command("audit-user")
def audit_user_cmd(
    run_dir: Annotated[Path, typer.Argument(help="a run directory")],
    user_model: Annotated[str, typer.Option("--user-model", help="the second opinion: " + MODEL_HELP)],
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="per answer")] = 128,
    context: ContextOpt = None,
    no_cache: NoCacheOpt = False,
    benchmark: BenchmarkOpt = None,
) -> None:  # fmt: skip
    """Re-read every question the simulated user answered "use your judgement" with an LLM
    (the llm matcher, given the session's own conventions) and report how often it finds
    one: the simulator-miss rate, per condition. Writes <run_dir>/user-audit.json."""
    from capabench.models import ModelOptions, make_model
    from capabench.paths import cache_dir
    from capabench.report import load_runs
    from capabench.simulate.audit import audit_user
    from capabench.simulate.intent import make_matcher
    from capabench.store import RunDirError

    try:
        (run,) = load_runs([run_dir])
    except RunDirError as exc:
        raise fail(str(exc)) from None
    bench = _benchmark(run.manifest.get("benchmark_seed", run.manifest.get("seed", 0)))
    if bench.manifest.content_hash != run.manifest.get("benchmark_hash"):
        raise fail(
            f"{run_dir} was played on benchmark {run.manifest.get('benchmark_hash')!r}, not the default one of its seed ({bench.manifest.content_hash})"
        )
    if "user_matcher" not in run.manifest:
        raise fail(
            f"{run_dir} was played before capabench recorded unanswered questions; nothing to re-read"
        )
    options = ModelOptions(base_url=base_url, api_key=api_key, max_tokens=max_tokens, context=context, concurrency=1,
                           cache=None if no_cache else str(cache_dir() / "responses.sqlite"))  # fmt: skip
    try:
        matcher = make_matcher("llm", model=make_model(user_model, options))
    except ValueError as exc:
        raise fail(str(exc)) from None
    sessions = {s.id: s for s in bench.sessions}
    total = sum(len(r.unanswered) for r in run.results if r.status == "completed")
    bar, task = _progress("re-reading unanswered questions", total)
    with bar:
        audit = audit_user(run.results, sessions, matcher, run_matcher=run.manifest["user_matcher"],
                           progress=lambda: bar.advance(task))  # fmt: skip
    path = run_dir / "user-audit.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(audit.model_dump_json(indent=2) + "\n")
    tmp.replace(path)
    if not total:
        Console().print(
            f"nothing to audit: no question in {run_dir} went unanswered (or none was asked)"
        )
        return
    rows = [{
        "condition": c.condition, "questions": c.questions, "unanswered": c.unanswered, "unreadable": c.unreadable,
        "misses": c.misses, "miss rate %": None if c.miss_rate is None else round(100 * c.miss_rate, 1),
    } for c in audit.conditions]  # fmt: skip
    _print_rows(f"simulator misses by {user_model} (run read by {audit.run_matcher})", rows, {k: k for k in rows[0]},
                "misses: unanswered questions the second opinion found to target one of the session's conventions")  # fmt: skip
    Console().print(f"wrote {path}")


def main() -> None:  # pragma: no cover - console script entry
    app()


if __name__ == "__main__":  # pragma: no cover - python -m capabench.cli
    main()
