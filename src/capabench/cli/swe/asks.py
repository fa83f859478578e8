"""`capabench swe reclassify | harvest`: the ask classifier against stored final messages
and hand labels, and the LLM judge the batch command can run beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from capabench.cli.errors import fail
from capabench.cli.swe.app import DEFAULT_RUNS, RunsOpt, out


def reclassify_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    config: Annotated[
        str | None,
        typer.Option("--config", help="the classifier: v1, v2, v3 or a config file [default: v3]"),
    ] = None,
    labels: Annotated[
        Path | None, typer.Option("--labels", help="a labelled harvest file: score against it")
    ] = None,
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--ask-judge-model",
            help="an LLM judge (model spec): its verdicts instead of --config's",
        ),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="the judge model's OpenAI-compatible endpoint")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Re-apply an ask classifier (or an LLM judge) to every stored final message and print the
    verdicts that change (read-only); with --labels, its precision and recall against hand
    labels instead."""
    from capabench.swe.asks.detection import DEFAULT, load
    from capabench.swe.asks.reclassify import reclassify
    from capabench.swe.store import SweStore

    config = config or DEFAULT
    try:
        clf = load(config)
    except (OSError, ValueError, KeyError) as exc:
        raise fail(
            f"--config {config}: not v1, v2, v3 or an ask-detection config ({exc})"
        ) from None
    if judge_model:
        clf = ask_judge(judge_model, base_url)
    if labels is not None:
        _score_labels(labels, clf, as_json)
        return
    if not runs.is_dir():
        raise fail(f"{runs}: no such runs directory (give the --runs of a `capabench swe batch`)")
    report = reclassify(SweStore(runs), clf)
    if as_json:
        out.print_json(report.model_dump_json())
        return
    out.print(
        f"classifier {report.version}: {report.messages} final message(s) in {report.runs} run(s); "
        f"{len(report.disagreements)} verdict(s) change; questions with edits: {report.questions_with_edits}"
    )
    table = Table("category", "fired")
    for name, n in sorted(report.firing.items()):
        table.add_row(name, str(n))
    out.print(table)
    for d in report.disagreements:
        out.print(
            f"  {d['run_id']} #{d['index']}: stored {d['stored']} -> now {d['now']}: {d['text'][:100]}"
        )


def _score_labels(labels: Path, clf, as_json: bool) -> None:
    from capabench.swe.asks.labels import read_labels, score

    try:
        rows = read_labels(labels)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise fail(str(exc)) from None
    if not rows:
        raise fail(f"{labels}: no labelled rows (fill the label column with ask or not)")
    scored = score(rows, clf)
    if as_json:
        out.print_json(
            json.dumps(
                {
                    **scored.model_dump(),
                    "precision": scored.overall.precision,
                    "recall": scored.overall.recall,
                }
            )
        )
        return
    table = Table("group", "n", "precision", "recall", "tp", "fp", "fn", "tn")
    for s in [scored.overall, *scored.groups]:
        table.add_row(
            s.group,
            str(s.n),
            _rate(s.precision),
            _rate(s.recall),
            str(s.tp),
            str(s.fp),
            str(s.fn),
            str(s.tn),
        )
    out.print(f"classifier {scored.version} against {len(rows)} labelled message(s) in {labels}")
    out.print(table)
    for e in scored.errors:
        out.print(
            f"  {e['run_id']} #{e['index']}: label {e['label']} -> {e['now']}: {e['text'][:100]}"
        )


def ask_judge(spec: str, base_url: str | None):
    from capabench.swe.asks.ask_judge import make_ask_judge

    try:
        return make_ask_judge(spec, base_url)
    except (ValueError, OSError) as exc:
        raise fail(f"--ask-judge-model {spec}: {exc}") from None


def _rate(value: float) -> str:
    return "–" if value != value else f"{value:.2f}"  # nan: nothing to divide by


def harvest_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    out_file: Annotated[
        Path, typer.Option("--out", help="the file to write: .csv or .jsonl")
    ] = Path("asks-harvest.csv"),
) -> None:
    """Export every stored final message with its verdict, the edit gate's input and its run's
    context, for hand labelling (fill the label column, then: swe reclassify --labels FILE)."""
    from capabench.swe.asks.labels import dumps, harvest
    from capabench.swe.store import SweStore

    if out_file.suffix not in (".csv", ".jsonl"):
        raise fail(f"--out {out_file}: name a .csv or .jsonl file")
    if out_file.exists():
        raise fail(f"--out {out_file} exists: capabench won't overwrite it (labels may be in it)")
    if not runs.is_dir():
        raise fail(f"{runs}: no such runs directory (give the --runs of a `capabench swe batch`)")
    rows = harvest(SweStore(runs))
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(dumps(rows, out_file.suffix[1:]), encoding="utf-8")
    out.print(f"wrote {len(rows)} final message(s) to {out_file}")
