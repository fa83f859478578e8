"""`capabench report|list|audit-user`: reading runs, what exists, and the simulated user's audit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from capabench.cli.app import app
from capabench.cli.common import load_bench, print_rows, print_run_tables, progress_bar, warn
from capabench.cli.errors import fail
from capabench.cli.options import (
    MODEL_HELP,
    ApiKeyOpt,
    BaseUrlOpt,
    BenchmarkOpt,
    ContextOpt,
    NoCacheOpt,
)


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
    compare: Annotated[
        bool,
        typer.Option(
            "--compare", help="two runs side by side: outcome pairs per session, paired tests"
        ),
    ] = False,
) -> None:
    """The paper's Table 1 for every model in the runs, all conditions, and report files
    (report.html with a session viewer)."""
    from capabench.report import load_runs
    from capabench.report.render import write_report
    from capabench.store import RunDirError

    try:
        runs = load_runs(run_dirs, warn=warn)
    except RunDirError as exc:
        raise fail(str(exc)) from None
    if intervals not in ("cell", "session"):
        raise fail(f"--intervals must be 'cell' or 'session', not {intervals!r}")
    if compare and len(runs) != 2:
        raise fail(f"--compare reads two run directories, not {len(runs)}")
    print_run_tables(runs, intervals)
    try:
        files = write_report(runs, out, cluster=intervals, compare=compare)
    except OSError as exc:
        raise fail(
            f"cannot write the report to {out}: {exc.strerror or exc}; choose another --out"
        ) from None
    if compare:
        from capabench.report.compare import compare_rows

        rows, differ = compare_rows(*runs)
        print_rows("Side by side", rows, {k: k for k in rows[0]} if rows else {})
        Console().print(f"{len(differ)} sessions solved by one run only: compare_sessions.csv")
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
        (
            "models (--model)",
            ", ".join(
                {"local": "local[/<file.gguf>]", "scripted": "scripted:<replies.json>"}.get(
                    k, f"{k}/<name>"
                )
                for k in sorted(MODELS)
            ),
        ),
        ("reference policies (--model)", ", ".join(f"baseline/{p}" for p in POLICIES)),
        ("conditions (--conditions)", ", ".join(sorted(CONDITIONS))),
        ("studies (capabench study NAME)", ", ".join(STUDIES)),
        ("intent matchers (--user-matcher)", ", ".join(MATCHERS)),
        ("convention families", ", ".join(sorted(FAMILIES))),
    ]
    table = Table("what", "names", show_lines=True)
    for what, names in rows:
        table.add_row(what, escape(names))
    Console().print(table)


@app.command("audit-user")
def audit_user_cmd(
    run_dir: Annotated[Path, typer.Argument(help="a run directory")],
    user_model: Annotated[
        str, typer.Option("--user-model", help="the second opinion: " + MODEL_HELP)
    ],
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="per answer")] = 128,
    context: ContextOpt = None,
    no_cache: NoCacheOpt = False,
    benchmark: BenchmarkOpt = None,
) -> None:
    """Re-read every question the simulated user answered "use your judgement" with an LLM
    (the llm matcher, given the session's own conventions) and report how often it finds
    one: the simulator-miss rate, per condition. Writes <run_dir>/user-audit.json."""
    from capabench.models import ModelOptions, make_model
    from capabench.paths import cache_dir
    from capabench.report import load_runs
    from capabench.simulate.intent import make_matcher
    from capabench.simulate.user_audit import audit_user
    from capabench.store import RunDirError

    try:
        (run,) = load_runs([run_dir])
    except RunDirError as exc:
        raise fail(str(exc)) from None
    bench = load_bench(run.manifest.get("benchmark_seed", run.manifest.get("seed", 0)))
    if bench.manifest.content_hash != run.manifest.get("benchmark_hash"):
        raise fail(
            f"{run_dir} was played on benchmark {run.manifest.get('benchmark_hash')!r}, not the default one of its seed ({bench.manifest.content_hash})"
        )
    if "user_matcher" not in run.manifest:
        raise fail(
            f"{run_dir} was played before capabench recorded unanswered questions; nothing to re-read"
        )
    options = ModelOptions(
        base_url=base_url,
        api_key=api_key,
        max_tokens=max_tokens,
        context=context,
        concurrency=1,
        cache=None if no_cache else str(cache_dir() / "responses.sqlite"),
    )
    try:
        matcher = make_matcher("llm", model=make_model(user_model, options))
    except ValueError as exc:
        raise fail(str(exc)) from None
    sessions = {s.id: s for s in bench.sessions}
    total = sum(len(r.unanswered) for r in run.results if r.status == "completed")
    bar, task = progress_bar("re-reading unanswered questions", total)
    with bar:
        audit = audit_user(
            run.results,
            sessions,
            matcher,
            run_matcher=run.manifest["user_matcher"],
            progress=lambda: bar.advance(task),
        )
    path = run_dir / "user-audit.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(audit.model_dump_json(indent=2) + "\n")
    tmp.replace(path)
    if not total:
        Console().print(
            f"nothing to audit: no question in {run_dir} went unanswered (or none was asked)"
        )
        return
    rows = [
        {
            "condition": c.condition,
            "questions": c.questions,
            "unanswered": c.unanswered,
            "unreadable": c.unreadable,
            "misses": c.misses,
            "miss rate %": None if c.miss_rate is None else round(100 * c.miss_rate, 1),
        }
        for c in audit.conditions
    ]
    print_rows(
        f"simulator misses by {user_model} (run read by {audit.run_matcher})",
        rows,
        {k: k for k in rows[0]},
        "misses: unanswered questions the second opinion found to target one of the session's conventions",
    )
    Console().print(f"wrote {path}")
