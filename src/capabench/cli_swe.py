"""`capabench swe ...`: the ask-or-guess arm for coding agents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from capabench.cli_errors import console, fail
from capabench.swe.harness_images import DEFAULT_BASE_IMAGE

swe_app = typer.Typer(
    rich_markup_mode=None,  # help texts are plain: "local[/<gguf>]" is not markup
    help="The ask-or-guess arm: coding agents on ambiguous vs full issues.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console()

DatasetOpt = Annotated[
    Path | None, typer.Option("--dataset", help="JSONL/JSON/Parquet/save_to_disk/xlsx (default: the bundled one)")
]  # fmt: skip
BaseOpt = Annotated[
    Path | None, typer.Option("--base", help="for a workbook: the dataset it names")
]
RunsOpt = Annotated[Path, typer.Option("--runs", help="the run store")]
ReposOpt = Annotated[
    Path | None, typer.Option("--repos", help="git repositories by <owner>__<name> (bundled ones built in)")
]  # fmt: skip
ModelOpt = Annotated[
    str, typer.Option("--model", help="openai/<m> (--base-url), local, claude-*, gpt-*")
]
ConditionOpt = Annotated[str, typer.Option("--condition", help="ambiguous, full or both")]
DEFAULT_RUNS = Path("runs/swe")


def _instances(dataset: Path | None, base: Path | None):
    from capabench.swe.bundled import INSTANCES, bundled_dataset, bundled_dir
    from capabench.swe.datasets import DatasetError, load_instances

    if dataset is None and not (bundled_dir() / INSTANCES).is_file():
        console.print("building and checking the bundled dataset (first use, about 15 s)...")
    try:
        return load_instances(dataset or bundled_dataset(), base=base)
    except DatasetError as exc:
        raise fail(str(exc)) from None


def _conditions(condition: str) -> list:
    if condition == "both":
        return ["ambiguous", "full"]
    if condition not in ("ambiguous", "full"):
        raise fail(f"--condition must be ambiguous, full or both, not {condition!r}")
    return [condition]


def _runner(model: str, base_url: str | None, api_key: str | None, context: int | None, max_tokens: int,
            steps: int | None, structured: bool | None = None, *, time_limit: float = 3600.0,
            sandbox: bool = True, system_prompt: str = "preset", builtin_steps: int = 30):  # fmt: skip
    from capabench.models import ModelOptions
    from capabench.paths import cache_dir
    from capabench.swe.builtin_agent import BuiltinAgent
    from capabench.swe.experiment import make_runner, runner_name
    from capabench.swe.records import CLI_TURNS, Budget

    options = ModelOptions(base_url=base_url, api_key=api_key, context=context, max_tokens=max_tokens,
                           cache=str(cache_dir() / "responses.sqlite"))  # fmt: skip
    turns = steps or (builtin_steps if runner_name(model) == "builtin" else CLI_TURNS)
    try:
        runner = make_runner(model, options, budget=Budget(turns=turns, wall_s=time_limit),
                             sandbox=sandbox, system_prompt=system_prompt)  # fmt: skip
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None
    if isinstance(runner, BuiltinAgent):
        # Local models act under a JSON schema by default: a small model's free-text choice
        # of whether to ask would differ between CPUs and llama.cpp builds.
        runner.structured = model.startswith("local") if structured is None else structured
    return runner


StepsOpt = Annotated[
    int | None,
    typer.Option("--steps", min=1, help="the turn budget, every arm: model replies per session (default: 30 for the built-in agent, 150 for Codex and Claude)"),
]  # fmt: skip
TimeLimitOpt = Annotated[
    float, typer.Option("--time-limit", min=1, help="the wall-time budget of a session, every arm, in seconds")
]  # fmt: skip
SandboxOpt = Annotated[
    bool,
    typer.Option("--sandbox/--no-sandbox",
                 help="run the agent and its commands inside bubblewrap (default; fails where it doesn't work); --no-sandbox runs them on the host (recorded per run)"),
]  # fmt: skip
SystemPromptOpt = Annotated[
    str,
    typer.Option("--claude-system-prompt", help="the Claude arm's system prompt: preset (Claude Code's own) or bare (the SDK's one line)"),
]  # fmt: skip
StructuredOpt = Annotated[
    bool | None,
    typer.Option("--structured-actions/--free-actions",
                 help="built-in agent: decode each action as a JSON object under a schema (default: on for local models)"),
]  # fmt: skip


def _summary_row(table: Table, s) -> None:
    asked = f"yes ({len(s.asks)})" if s.asked else "no"
    table.add_row(
        s.instance_id, s.condition, s.model, s.stop_reason, asked, str(s.turns), str(s.patch_bytes)
    )


def _runs_table(summaries) -> Table:
    table = Table("instance", "condition", "model", "stop", "asked", "turns", "patch bytes")
    for s in summaries:
        _summary_row(table, s)
    return table


@swe_app.command("list")
def list_cmd(dataset: DatasetOpt = None, base: BaseOpt = None,
             limit: Annotated[int, typer.Option("--limit", min=1, help="rows to show")] = 50) -> None:  # fmt: skip
    """The dataset's instances."""
    rows = [(i.instance_id, i.repo, i.difficulty, str(len(i.fail_to_pass)), str(len(i.pass_to_pass)),
             " ".join(i.problem_statement.split())) for i in _instances(dataset, base)[:limit]]  # fmt: skip
    names = ("instance", "repo", "difficulty", "F2P", "P2P")
    widths = [max(len(name), *(len(r[k]) for r in rows)) for k, name in enumerate(names)]
    room = max(16, out.width - sum(widths) - 3 * len(names) - 4)  # the issue gets what is left
    table = Table(*names, "ambiguous issue")
    for row in rows:
        issue = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        table.add_row(*row[:-1], issue)
    out.print(table)


@swe_app.command("batch")
def batch_cmd(
    model: ModelOpt,
    condition: ConditionOpt = "both",
    count: Annotated[int | None, typer.Option("--count", min=1, help="instances (default: all)")] = None,
    instance: Annotated[list[str] | None, typer.Option("--instance", help="only these (repeat)")] = None,
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    runs: RunsOpt = DEFAULT_RUNS,
    repos: ReposOpt = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="an OpenAI-compatible server (or the SDK's endpoint)")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="default: the provider's environment variable")] = None,
    context: Annotated[int | None, typer.Option("--context", min=512, help="a local model's context")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="per model reply")] = 1024,
    steps: StepsOpt = None,
    skip_preflight: Annotated[bool, typer.Option("--skip-preflight", help="don't certify the ask channel first")] = False,
    structured: StructuredOpt = None,
    time_limit: TimeLimitOpt = 3600.0,
    sandbox: SandboxOpt = True,
    system_prompt: SystemPromptOpt = "preset",
    judge_model: Annotated[str | None, typer.Option("--ask-judge-model", help="Codex arm: an LLM judge (model spec) of each final message, recorded beside the classifier's verdict")] = None,
    judge_decides: Annotated[bool, typer.Option("--ask-judge-decides", help="with --ask-judge-model: the judge's verdict decides whether the agent asked")] = False,
) -> None:  # fmt: skip
    """Sessions for the next incomplete instances, one at a time; rerunning resumes. A
    preflight canary first certifies that the model's ask channel works."""
    from capabench.swe.experiment import PreflightFailed, batch, pending, preflight
    from capabench.swe.store import SweStore

    instances = _instances(dataset, base)
    if instance:
        unknown = set(instance) - {i.instance_id for i in instances}
        if unknown:
            raise fail(f"not in the dataset: {', '.join(sorted(unknown))}")
        instances = [i for i in instances if i.instance_id in instance]
    conditions = _conditions(condition)
    store = SweStore(runs)
    runner = _runner(model, base_url, api_key, context, max_tokens, steps, structured, time_limit=time_limit,
                     sandbox=sandbox, system_prompt=system_prompt)  # fmt: skip
    if judge_decides and not judge_model:
        raise fail("--ask-judge-decides needs --ask-judge-model")
    if judge_model:
        if not hasattr(runner, "ask_judge"):
            raise fail(
                "--ask-judge-model applies to the Codex arm (gpt-*/codex-*), whose asks are final messages"
            )
        runner.ask_judge, runner.judge_decides = _ask_judge(judge_model, None), judge_decides
    todo = pending(instances, conditions, model, store, count)
    if todo and not skip_preflight:
        try:
            outcome = preflight(runner, model)
        except PreflightFailed as exc:
            # A finding about the model, not a harness fault: recorded, shown, exit 0.
            store.save_preflight(model, {"model": model, "passed": False, "finding": str(exc)})
            console.print(
                f"[yellow]finding:[/] preflight: {escape(str(exc))}. {escape(model)}'s ask channel could not be "
                "certified, so its batch was not run (it would measure harness breakage, not asking); "
                "--skip-preflight runs it anyway",
                soft_wrap=True,
            )
            return
        store.save_preflight(
            model,
            {"model": model, "passed": True, "asks": len(outcome.asks), "turns": outcome.turns},
        )
        console.print(
            f"preflight: {model}'s ask channel was observed, answered and the session went on"
        )
    console.print(f"{len(todo)} session(s) to run for {model}; store: {runs}")
    done = batch(instances, conditions, model, runner, store, count=count, repos=repos,
                 progress=lambda s: console.print(f"  {s.instance_id} {s.condition}: {s.stop_reason}, "
                                                  f"asked={s.asked}, {s.turns} turns"))  # fmt: skip
    out.print(_runs_table(done))


@swe_app.command("evaluate")
def evaluate_cmd(
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    runs: RunsOpt = DEFAULT_RUNS,
    repos: ReposOpt = None,
    force: Annotated[bool, typer.Option("--force", help="regrade graded runs")] = False,
    eval_timeout: Annotated[float | None, typer.Option("--eval-timeout", min=1, help="seconds per graded test run (default 300 local, 1800 harness)")] = None,
    grader: Annotated[str, typer.Option("--grader", help="auto, local or swebench (the official harness, Docker)")] = "auto",
    swebench_dataset: Annotated[str | None, typer.Option("--swebench-dataset", help="the harness's dataset (HF name or file)")] = None,
    split: Annotated[str, typer.Option("--split", help="the harness dataset's split")] = "test",
    max_workers: Annotated[int, typer.Option("--max-workers", min=1, help="harness containers at once")] = 4,
    base_image: Annotated[str, typer.Option("--base-image", help="for harness images of local repositories")] = DEFAULT_BASE_IMAGE,
) -> None:  # fmt: skip
    """Grade stored patches (runs are never re-run). `auto`: the local grader when every
    instance has a local repository (the bundled ones, or --repos), else the official
    SWE-bench harness, which needs a Docker engine."""
    from capabench.swe.experiment import evaluate
    from capabench.swe.store import SweStore
    from capabench.swe.swebench_grader import HarnessOptions, HarnessUnavailable

    if grader not in ("auto", "local", "swebench"):
        raise fail(f"--grader must be auto, local or swebench, not {grader!r}")
    store = SweStore(runs)
    instances = _instances(dataset, base)
    options = HarnessOptions(dataset=swebench_dataset, split=split, max_workers=max_workers,
                             base_image=base_image, log=console.print)  # fmt: skip
    try:
        grades = evaluate(instances, store, force=force, repos=repos, timeout_s=eval_timeout,
                          grader=grader, harness=options,  # type: ignore[arg-type]
                          progress=lambda r, g: console.print(
                              f"  {r}: {g.status}, resolved={g.resolved}{(' (' + g.detail + ')') if g.detail else ''}",
                              highlight=False, soft_wrap=True))  # fmt: skip
    except (FileNotFoundError, HarnessUnavailable) as exc:  # a missing repository or engine
        raise fail(str(exc)) from None
    by_arm: dict[tuple[str, str], list] = {}
    for summary in store.summaries():
        if summary.run_id in grades:
            by_arm.setdefault((summary.model, summary.condition), []).append(grades[summary.run_id])
    table = Table("model", "condition", "graded", "resolved", "localized", "error", "timeout")
    for (model, cond), gs in sorted(by_arm.items()):
        table.add_row(model, cond, str(len(gs)), str(sum(bool(g.resolved) for g in gs)),
                      str(sum(bool(g.localization_hit) for g in gs)),
                      str(sum(g.status == "error" for g in gs)), str(sum(g.status == "timeout" for g in gs)))  # fmt: skip
    out.print(table)
    out.print(f"graded {len(grades)} run(s); grades in {store.root / 'evaluations'}")


@swe_app.command("reclassify")
def reclassify_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    config: Annotated[str, typer.Option("--config", help="the classifier: v1, v2 or a config file")] = "v2",
    labels: Annotated[Path | None, typer.Option("--labels", help="a labelled harvest file: score against it")] = None,
    judge_model: Annotated[str | None, typer.Option("--ask-judge-model", help="an LLM judge (model spec): its verdicts instead of --config's")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="the judge model's OpenAI-compatible endpoint")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:  # fmt: skip
    """Re-apply an ask classifier (or an LLM judge) to every stored final message and print the
    verdicts that change (read-only); with --labels, its precision and recall against hand
    labels instead."""
    from capabench.swe.ask_detection import load, reclassify
    from capabench.swe.store import SweStore

    try:
        clf = load(config)
    except (OSError, ValueError, KeyError) as exc:
        raise fail(f"--config {config}: not v1, v2 or an ask-detection config ({exc})") from None
    if judge_model:
        clf = _ask_judge(judge_model, base_url)
    if labels is not None:
        _score_labels(labels, clf, as_json)
        return
    report = reclassify(SweStore(runs), clf)
    if as_json:
        out.print_json(report.model_dump_json())
        return
    out.print(f"classifier {report.version}: {report.messages} final message(s) in {report.runs} run(s); "
              f"{len(report.disagreements)} verdict(s) change; questions with edits: {report.questions_with_edits}")  # fmt: skip
    table = Table("category", "fired")
    for name, n in sorted(report.firing.items()):
        table.add_row(name, str(n))
    out.print(table)
    for d in report.disagreements:
        out.print(
            f"  {d['run_id']} #{d['index']}: stored {d['stored']} -> now {d['now']}: {d['text'][:100]}"
        )


def _score_labels(labels: Path, clf, as_json: bool) -> None:
    from capabench.swe.ask_labels import read_labels, score

    try:
        rows = read_labels(labels)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise fail(str(exc)) from None
    if not rows:
        raise fail(f"{labels}: no labelled rows (fill the label column with ask or not)")
    scored = score(rows, clf)
    if as_json:
        out.print_json(json.dumps({**scored.model_dump(), "precision": scored.overall.precision,
                                   "recall": scored.overall.recall}))  # fmt: skip
        return
    table = Table("group", "n", "precision", "recall", "tp", "fp", "fn", "tn")
    for s in [scored.overall, *scored.groups]:
        table.add_row(s.group, str(s.n), _rate(s.precision), _rate(s.recall),
                      str(s.tp), str(s.fp), str(s.fn), str(s.tn))  # fmt: skip
    out.print(f"classifier {scored.version} against {len(rows)} labelled message(s) in {labels}")
    out.print(table)
    for e in scored.errors:
        out.print(
            f"  {e['run_id']} #{e['index']}: label {e['label']} -> {e['now']}: {e['text'][:100]}"
        )


def _ask_judge(spec: str, base_url: str | None):
    from capabench.models import ModelOptions, make_model
    from capabench.paths import cache_dir
    from capabench.swe.ask_judge import AskJudge

    options = ModelOptions(
        base_url=base_url, max_tokens=160, cache=str(cache_dir() / "responses.sqlite")
    )
    try:
        return AskJudge(make_model(spec, options), spec)
    except (ValueError, OSError) as exc:
        raise fail(f"--ask-judge-model {spec}: {exc}") from None


def _rate(value: float) -> str:
    return "–" if value != value else f"{value:.2f}"  # nan: nothing to divide by


@swe_app.command("harvest")
def harvest_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    out_file: Annotated[Path, typer.Option("--out", help="the file to write: .csv or .jsonl")] = Path("asks-harvest.csv"),
) -> None:  # fmt: skip
    """Export every stored final message with its verdict, the edit gate's input and its run's
    context, for hand labelling (fill the label column, then: swe reclassify --labels FILE)."""
    from capabench.swe.ask_labels import dumps, harvest
    from capabench.swe.store import SweStore

    if out_file.suffix not in (".csv", ".jsonl"):
        raise fail(f"--out {out_file}: name a .csv or .jsonl file")
    if out_file.exists():
        raise fail(f"--out {out_file} exists: capabench won't overwrite it (labels may be in it)")
    rows = harvest(SweStore(runs))
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(dumps(rows, out_file.suffix[1:]), encoding="utf-8")
    out.print(f"wrote {len(rows)} final message(s) to {out_file}")


@swe_app.command("dashboard")
def dashboard_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    out_file: Annotated[Path, typer.Option("--out", help="the HTML file")] = Path("swe-dashboard.html"),
) -> None:  # fmt: skip
    """Write the self-contained HTML dashboard over every stored run (read-only on the runs)."""
    from capabench.swe.dashboard import build
    from capabench.swe.store import SweStore

    path = build(SweStore(runs), _instances(dataset, base), out_file, repo_root=Path.cwd())
    out.print(f"wrote {path}")


@swe_app.command("locate")
def locate_cmd(
    instance: Annotated[str, typer.Argument(help="an instance id or part of one (empty: all)")] = "",
    runs: RunsOpt = DEFAULT_RUNS,
    condition: Annotated[str | None, typer.Option("--condition", help="ambiguous or full (default: both)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:  # fmt: skip
    """Every run of an instance and where each of its artifacts is (missing ones marked)."""
    import json

    from capabench.swe.audit import locate
    from capabench.swe.store import SweStore

    found = [r for r in locate(SweStore(runs), instance) if condition in (None, r["condition"])]
    if as_json:
        out.print_json(json.dumps(found))
        return
    if not found:
        raise fail(f"no runs of {instance!r} in {runs}")
    for r in found:
        out.print(f"{r['instance_id']}  {r['condition']}  {r['model']} ({r['runner']})  stop={r['stop']}  "
                  f"asked={r['asked']}  grade={r['grade']}  [{r['run_id']}]")  # fmt: skip
        for slot, path in r["artifacts"].items():
            out.print(f"    {slot:12} {path or 'MISSING'}")


@swe_app.command("sanity")
def sanity_cmd(
    runs: RunsOpt = DEFAULT_RUNS,
    last: Annotated[int | None, typer.Option("--last", min=1, help="only the N most recent runs")] = None,
) -> None:  # fmt: skip
    """A health report of recent runs; exits 1 when something needs attention."""
    from capabench.swe.audit import sanity
    from capabench.swe.store import SweStore

    if not Path(runs).is_dir():
        raise fail(f"{runs}: no such runs directory (give the --runs of a `capabench swe batch`)")
    findings = sanity(SweStore(runs), last)
    for f in findings:
        out.print(f"{f.severity:9} {f.run_id}: {f.what}", highlight=False, soft_wrap=True)
    attention = sum(f.severity == "attention" for f in findings)
    out.print(f"{attention} finding(s) need attention, {len(findings) - attention} note(s)")
    raise typer.Exit(1 if attention else 0)


@swe_app.command("preflight")
def preflight_cmd(
    model: ModelOpt,
    base_url: Annotated[str | None, typer.Option("--base-url", help="an OpenAI-compatible server (or the SDK's endpoint)")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="default: the provider's environment variable")] = None,
    context: Annotated[int | None, typer.Option("--context", min=512, help="a local model's context window")] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=16, help="per model reply")] = 1024,
    structured: StructuredOpt = None,
    steps: StepsOpt = None,
    time_limit: TimeLimitOpt = 3600.0,
    sandbox: SandboxOpt = True,
    system_prompt: SystemPromptOpt = "preset",
) -> None:  # fmt: skip
    """Certify a model's ask channel with one forced ask round-trip (exit 1 if it fails)."""
    from capabench.swe.experiment import PreflightFailed, preflight

    runner = _runner(model, base_url, api_key, context, max_tokens, steps, structured, time_limit=time_limit,
                     sandbox=sandbox, system_prompt=system_prompt, builtin_steps=8)  # fmt: skip
    try:
        outcome = preflight(runner, model)
    except PreflightFailed as exc:
        console.print(
            f"[red]preflight failed:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(1) from None
    out.print(f"preflight passed: {len(outcome.asks)} ask(s), {outcome.turns} turns")
