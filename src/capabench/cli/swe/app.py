"""The `capabench swe` command group, and what its commands share: the Typer app, the
options several of them take, and reading the dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from capabench.cli.errors import console, fail

swe_app = typer.Typer(
    rich_markup_mode=None,  # help texts are plain: "local[/<gguf>]" is not markup
    help="The ask-or-guess arm: coding agents on ambiguous vs full issues.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console()

DatasetOpt = Annotated[
    Path | None,
    typer.Option(
        "--dataset", help="JSONL/JSON/Parquet/save_to_disk/xlsx (default: the bundled one)"
    ),
]
BaseOpt = Annotated[
    Path | None, typer.Option("--base", help="for a workbook: the dataset it names")
]
SummariesOpt = Annotated[
    Path | None,
    typer.Option(
        "--summaries",
        help="CSV/JSONL of instance_id + summary (the paper's underspecified.csv): the "
        "ambiguous issues, joined by instance_id to --dataset, a SWE-bench dataset",
    ),
]
RunsOpt = Annotated[Path, typer.Option("--runs", help="the run store")]
ReposOpt = Annotated[
    Path | None,
    typer.Option("--repos", help="git repositories by <owner>__<name> (bundled ones built in)"),
]
ModelOpt = Annotated[
    str, typer.Option("--model", help="openai/<m> (--base-url), local, claude-*, gpt-*")
]
ConditionOpt = Annotated[str, typer.Option("--condition", help="ambiguous, full or both")]
DEFAULT_RUNS = Path("runs/swe")


def load_dataset(dataset: Path | None, base: Path | None, summaries: Path | None = None):
    from capabench.swe.data.bundled import INSTANCES, bundled_dataset, bundled_dir
    from capabench.swe.data.datasets import DatasetError, load_instances

    if dataset is None and not (bundled_dir() / INSTANCES).is_file():
        console.print("building and checking the bundled dataset (first use, about 15 s)...")
    try:
        if summaries is not None and dataset is None:
            raise DatasetError("--summaries joins a SWE-bench dataset: give it with --dataset FILE")
        return load_instances(dataset or bundled_dataset(), base=base, summaries=summaries)
    except DatasetError as exc:
        raise fail(str(exc)) from None


def parse_conditions(condition: str) -> list:
    if condition == "both":
        return ["ambiguous", "full"]
    if condition not in ("ambiguous", "full"):
        raise fail(f"--condition must be ambiguous, full or both, not {condition!r}")
    return [condition]
