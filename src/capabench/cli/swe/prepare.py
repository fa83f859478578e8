"""`capabench swe prepare`: repositories and environments (from swebench's specs) for a
dataset's instances, so the local grader can grade them offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from capabench.cli.errors import console, fail
from capabench.cli.swe.app import BaseOpt, DatasetOpt, SummariesOpt, load_dataset, out


def prepare_cmd(
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    summaries: SummariesOpt = None,
    repos: Annotated[
        Path | None,
        typer.Option(
            "--repos",
            help="a local mirror folder (<owner>__<name> clones) for offline machines; "
            "default: clone from GitHub into the cache",
        ),
    ] = None,
    instance: Annotated[
        list[str] | None, typer.Option("--instance", help="only these (repeat)")
    ] = None,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="build environments again, failed ones too")
    ] = False,
) -> None:
    """Per instance a repository with its base commit, and per (repository, version) an
    environment built from swebench's spec: a venv with the spec's Python (pyenv, uv or
    PATH), its packages from PyPI, the checkout installed as the spec says. Built one at a
    time, cached and reused; an instance that can't be prepared is listed with the reason
    (exit 1) and is never graded."""
    from capabench.swe.grading.prepare import prepare

    instances = load_dataset(dataset, base, summaries)
    if instance:
        unknown = set(instance) - {i.instance_id for i in instances}
        if unknown:
            raise fail(f"not in the dataset: {', '.join(sorted(unknown))}")
        instances = [i for i in instances if i.instance_id in instance]
    results = prepare(instances, repos, rebuild=rebuild, log=console.print)
    table = Table("instance", "environment", "status", "build s", "size MiB", "reason")
    for r in results:
        table.add_row(
            r.instance_id,
            r.env or "(capabench's own)",
            r.status + (" (reused)" if r.reused else ""),
            f"{r.build_s:.0f}" if r.env else "",
            f"{r.size_bytes / 2**20:.0f}" if r.size_bytes else "",
            r.reason,
        )
    out.print(table)
    failed = [r for r in results if r.status != "ready"]
    out.print(
        f"{len(results) - len(failed)} of {len(results)} instance(s) ready; "
        f"{len(failed)} can't be graded here"
    )
    if failed:
        raise typer.Exit(1)
