"""`capabench swe dashboard | locate | sanity`: read-only views of the run store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from capabench.cli.errors import fail
from capabench.cli.swe.app import (
    DEFAULT_RUNS,
    BaseOpt,
    DatasetOpt,
    RunsOpt,
    SummariesOpt,
    load_dataset,
    out,
)


def dashboard_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    summaries: SummariesOpt = None,
    out_file: Annotated[Path, typer.Option("--out", help="the HTML file")] = Path(
        "swe-dashboard.html"
    ),
) -> None:
    """Write the self-contained HTML dashboard over every stored run (read-only on the runs)."""
    from capabench.swe.store import SweStore
    from capabench.swe.views.dashboard import build

    path = build(
        SweStore(runs), load_dataset(dataset, base, summaries), out_file, repo_root=Path.cwd()
    )
    out.print(f"wrote {path}")


def locate_cmd(
    instance: Annotated[
        str, typer.Argument(help="an instance id or part of one (empty: all)")
    ] = "",
    runs: RunsOpt = DEFAULT_RUNS,
    condition: Annotated[
        str | None, typer.Option("--condition", help="ambiguous or full (default: both)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Every run of an instance and where each of its artifacts is (missing ones marked)."""
    import json

    from capabench.swe.store import SweStore
    from capabench.swe.views.audit import locate

    found = [r for r in locate(SweStore(runs), instance) if condition in (None, r["condition"])]
    if as_json:
        out.print_json(json.dumps(found))
        return
    if not found:
        raise fail(f"no runs of {instance!r} in {runs}")
    for r in found:
        out.print(
            f"{r['instance_id']}  {r['condition']}  {r['model']} ({r['runner']})  stop={r['stop']}  "
            f"asked={r['asked']}  grade={r['grade']}  [{r['run_id']}]"
        )
        for slot, path in r["artifacts"].items():
            out.print(f"    {slot:12} {path or 'MISSING'}")


def sanity_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    last: Annotated[
        int | None, typer.Option("--last", min=1, help="only the N most recent runs")
    ] = None,
) -> None:
    """A health report of recent runs; exits 1 when something needs attention."""
    from capabench.swe.store import SweStore
    from capabench.swe.views.audit import sanity

    if not Path(runs).is_dir():
        raise fail(f"{runs}: no such runs directory (give the --runs of a `capabench swe batch`)")
    findings = sanity(SweStore(runs), last)
    for f in findings:
        out.print(f"{f.severity:9} {f.run_id}: {f.what}", highlight=False, soft_wrap=True)
    attention = sum(f.severity == "attention" for f in findings)
    out.print(f"{attention} finding(s) need attention, {len(findings) - attention} note(s)")
    raise typer.Exit(1 if attention else 0)
