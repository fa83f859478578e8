"""What the command modules share: progress bars, tables, reading inputs and the benchmark a
command plays."""

from __future__ import annotations

import sys
from pathlib import Path

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

from capabench.cli.errors import console, fail
from capabench.records import Task
from capabench.tasks import TaskFileError, load_tasks


def tasks_of(source: str) -> list[Task]:
    try:
        return load_tasks(source)
    except (TaskFileError, OSError) as exc:
        raise fail(str(exc)) from None


def read_input(path: Path) -> str:
    try:
        return sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror}") from None


def progress_bar(label: str, total: int):
    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    bar = Progress(*columns, console=console, transient=True)
    return bar, bar.add_task(label, total=total)


def model_or_fail(spec: str | None):
    from capabench.models import make_model

    if spec is None:
        return None
    try:
        return make_model(spec)
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None


MAIN_COLUMNS = {
    "model": "model",
    "paired n": "n",
    "ES none": "ES none",
    "FT-ES none": "FT-ES none",
    "TTC none": "TTC none",
    "ES same-user": "ES same",
    "FT-ES same-user": "FT-ES same",
    "TTC same-user": "TTC same",
    "ΔES (pp)": "ΔES",
    "ΔFT-ES (pp)": "ΔFT-ES",
    "ΔTTC (turns saved)": "ΔTTC",
    "p ES": "p ES",
    "p TTC": "p TTC",
}
CONDITION_COLUMNS = {
    "model": "model",
    "condition": "condition",
    "n": "n",
    "ES": "ES",
    "FT-ES": "FT-ES",
    "TTC": "TTC",
    "ask rate": "ask%",
    "needless-ask rate": "needless%",
    "unanswered questions %": "unans%",
    "tokens/session": "tok/sess",
    "replies cut at the token limit": "cut",
    "infra errors": "infra",
}


def print_rows(title: str, rows: list[dict], columns: dict[str, str], caption: str = "") -> None:
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


def print_run_tables(runs, cluster: str = "cell") -> None:
    from capabench.report.tables import condition_rows, main_table_rows, methods

    named = methods(cluster)
    note = (
        "n: sessions both conditions completed (epochs averaged per session); none: no history, same: same-user "
        "history. ES, FT-ES in %; TTC in turns. ΔES = same-user − none; ΔTTC = none − same-user "
        f"(positive: fewer turns). Tests: {named['test ES']}; {named['test TTC']}. Holm-adjusted p in the files."
    )
    print_rows("Table 1 layout", main_table_rows(runs), MAIN_COLUMNS, note)
    print_rows(
        "all conditions",
        condition_rows(runs, cluster),
        CONDITION_COLUMNS,
        f"n: sessions; intervals in the files: ES/FT-ES {named['interval ES']}; TTC {named['interval TTC']}. "
        "unans%: questions the simulated user answered 'use your judgement' (capabench audit-user re-reads them); "
        "cut: assistant replies stopped by --max-tokens (a cut submission can't pass: raise it)",
    )


def load_bench(seed: int, directory: Path | None = None):
    """The benchmark a command plays: a built directory (--benchmark), or the default one of
    the seed (built once and cached)."""
    from capabench.benchmark import BenchmarkDirError, load_benchmark
    from capabench.build.default import default_benchmark

    if directory is not None:
        try:
            return load_benchmark(directory)
        except (BenchmarkDirError, OSError) as exc:
            raise fail(str(exc)) from None
    bar, task = progress_bar("preparing the benchmark", 61)
    with bar:
        return default_benchmark(seed, progress=lambda _msg: bar.advance(task))


def default_run_dir(model: str, bench) -> Path:
    return Path("runs") / f"{model.replace('/', '-')}-{bench.manifest.content_hash[:8]}"


def warn(message: str) -> None:
    console.print(f"[yellow]warning:[/] {escape(message)}", soft_wrap=True, highlight=False)
