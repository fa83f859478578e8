"""`capabench swe list | batch | preflight`: the dataset, and sessions into the run store
(each model's runner from swe.agents' registry)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from capabench.cli.errors import console, fail
from capabench.cli.options import (
    ApiKeyOpt,
    BaseUrlOpt,
    ContextOpt,
    ExecutorOpt,
    MaxTokensOpt,
    RayAddressOpt,
    check_executor,
)
from capabench.cli.swe.app import (
    DEFAULT_RUNS,
    BaseOpt,
    ConditionOpt,
    DatasetOpt,
    ModelOpt,
    ReposOpt,
    RunsOpt,
    SummariesOpt,
    load_dataset,
    out,
    parse_conditions,
)

# An agent's reply is one action or a short message, not a whole solution as in `capabench run`.
AGENT_MAX_TOKENS = 1024


def _runner(
    model: str,
    base_url: str | None,
    api_key: str | None,
    context: int | None,
    max_tokens: int,
    *,
    preflight: bool = False,
    judge_model: str | None = None,
    **options,
):
    """The runner registered for `model` (swe.agents.registry), built with the run's options
    (swe.agents.RunnerOptions): the CLI sets nothing on it afterwards. Returns it with its
    recipe (how a worker elsewhere builds the same runner)."""
    from capabench.models import ModelOptions
    from capabench.paths import cache_dir
    from capabench.swe.agents import RunnerOptions
    from capabench.swe.batch import RunnerRecipe

    chat = ModelOptions(
        base_url=base_url,
        api_key=api_key,
        context=context,
        max_tokens=max_tokens,
        cache=str(cache_dir() / "responses.sqlite"),
    )
    recipe = RunnerRecipe(model, RunnerOptions(model=chat, **options), judge_model, preflight)
    try:
        return recipe.build(), recipe
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None


StepsOpt = Annotated[
    int | None,
    typer.Option(
        "--steps",
        min=1,
        help="the turn budget, every arm: model replies per session (default: 30 for the built-in agent, 150 for Codex and Claude)",
    ),
]
TimeLimitOpt = Annotated[
    float,
    typer.Option(
        "--time-limit", min=1, help="the wall-time budget of a session, every arm, in seconds"
    ),
]
SandboxOpt = Annotated[
    bool,
    typer.Option(
        "--sandbox/--no-sandbox",
        help="run the agent and its commands inside bubblewrap (default; fails where it doesn't work); --no-sandbox runs them on the host (recorded per run)",
    ),
]
SystemPromptOpt = Annotated[
    str,
    typer.Option(
        "--claude-system-prompt",
        help="the Claude arm's system prompt: preset (Claude Code's own) or bare (the SDK's one line)",
    ),
]
StructuredOpt = Annotated[
    bool | None,
    typer.Option(
        "--structured-actions/--free-actions",
        help="built-in agent: decode each action as a JSON object under a schema (default: on for local models)",
    ),
]


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


def list_cmd(
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    summaries: SummariesOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="rows to show")] = 50,
) -> None:
    """The dataset's instances."""
    rows = [
        (
            i.instance_id,
            i.repo,
            i.difficulty,
            str(len(i.fail_to_pass)),
            str(len(i.pass_to_pass)),
            " ".join(i.problem_statement.split()),
        )
        for i in load_dataset(dataset, base, summaries)[:limit]
    ]
    names = ("instance", "repo", "difficulty", "F2P", "P2P")
    widths = [max(len(name), *(len(r[k]) for r in rows)) for k, name in enumerate(names)]
    room = max(16, out.width - sum(widths) - 3 * len(names) - 4)  # the issue gets what is left
    table = Table(*names, "ambiguous issue")
    for row in rows:
        issue = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        table.add_row(*row[:-1], issue)
    out.print(table)


def batch_cmd(
    model: ModelOpt,
    condition: ConditionOpt = "both",
    count: Annotated[
        int | None, typer.Option("--count", min=1, help="instances (default: all)")
    ] = None,
    instance: Annotated[
        list[str] | None, typer.Option("--instance", help="only these (repeat)")
    ] = None,
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    summaries: SummariesOpt = None,
    runs: RunsOpt = DEFAULT_RUNS,
    repos: ReposOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    context: ContextOpt = None,
    max_tokens: MaxTokensOpt = AGENT_MAX_TOKENS,
    steps: StepsOpt = None,
    skip_preflight: Annotated[
        bool, typer.Option("--skip-preflight", help="don't certify the ask channel first")
    ] = False,
    structured: StructuredOpt = None,
    time_limit: TimeLimitOpt = 3600.0,
    sandbox: SandboxOpt = True,
    system_prompt: SystemPromptOpt = "preset",
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--ask-judge-model",
            help="Codex arm: an LLM judge (model spec) of each final message, recorded beside the classifier's verdict",
        ),
    ] = None,
    judge_decides: Annotated[
        bool,
        typer.Option(
            "--ask-judge-decides",
            help="with --ask-judge-model: the judge's verdict decides whether the agent asked",
        ),
    ] = False,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="sessions at once (each its own checkout)")
    ] = 1,
    executor: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
) -> None:
    """Sessions for the next incomplete instances, one at a time; rerunning resumes. A
    preflight canary first certifies that the model's ask channel works."""
    from capabench.executors import ExecutorError, make_executor
    from capabench.swe.agents import registration
    from capabench.swe.batch import batch, pending
    from capabench.swe.data.issue_texts import record_issue_texts
    from capabench.swe.preflight import before_batch
    from capabench.swe.store import SweStore

    instances = load_dataset(dataset, base, summaries)
    if instance:
        unknown = set(instance) - {i.instance_id for i in instances}
        if unknown:
            raise fail(f"not in the dataset: {', '.join(sorted(unknown))}")
        instances = [i for i in instances if i.instance_id in instance]
    conditions = parse_conditions(condition)
    store = SweStore(runs)
    if judge_decides and not judge_model:
        raise fail("--ask-judge-decides needs --ask-judge-model")
    if judge_model and "ask_judge" not in registration(model).takes:
        raise fail(
            "--ask-judge-model applies to the Codex arm (gpt-*/codex-*), whose asks are final messages"
        )
    check_executor(executor, ray_address)
    runner, recipe = _runner(
        model,
        base_url,
        api_key,
        context,
        max_tokens,
        turns=steps,
        wall_s=time_limit,
        structured=structured,
        sandbox=sandbox,
        system_prompt=system_prompt,
        judge_model=judge_model,
        judge_decides=judge_decides,
    )
    todo = pending(instances, conditions, model, store, count)
    _check_repos([i for i, _ in todo], repos)
    record_issue_texts(runs, list({i.instance_id: i for i, _ in todo}.values()))
    check = before_batch(runner, model, store, pending=bool(todo), skip=skip_preflight)
    if check is not None and not check.passed:  # a finding about the model: shown, exit 0
        console.print(
            f"[yellow]finding:[/] preflight: {escape(check.finding or '')}. {escape(model)}'s ask channel could not be "
            "certified, so its batch was not run (it would measure harness breakage, not asking); "
            "--skip-preflight runs it anyway",
            soft_wrap=True,
        )
        return
    if check is not None:
        console.print(
            f"preflight: {model}'s ask channel was observed, answered and the session went on"
        )
    console.print(f"{len(todo)} session(s) to run for {model}; store: {runs}")
    try:
        done = batch(
            instances,
            conditions,
            model,
            runner,
            store,
            count=count,
            repos=repos,
            progress=lambda s: console.print(
                f"  {s.instance_id} {s.condition}: {s.stop_reason}, asked={s.asked}, {s.turns} turns"
            ),
            executor=make_executor(executor, address=ray_address),
            recipe=recipe,
            in_flight=concurrency,
        )
    except ExecutorError as exc:
        raise fail(str(exc)) from None
    out.print(_runs_table(done))


def _check_repos(instances, repos) -> None:
    """Every repository the sessions need, before any starts: one line naming the first
    missing one (not a traceback from inside a session)."""
    from capabench.swe.data.bundled import ensure_repos, repo_dir

    ensure_repos(instances, repos)
    for instance in instances:
        try:
            repo_dir(instance, repos)
        except FileNotFoundError as exc:
            raise fail(str(exc)) from None


def preflight_cmd(
    model: ModelOpt,
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    context: ContextOpt = None,
    max_tokens: MaxTokensOpt = AGENT_MAX_TOKENS,
    structured: StructuredOpt = None,
    steps: StepsOpt = None,
    time_limit: TimeLimitOpt = 3600.0,
    sandbox: SandboxOpt = True,
    system_prompt: SystemPromptOpt = "preset",
) -> None:
    """Certify a model's ask channel with one forced ask round-trip (exit 1 if it fails)."""
    from capabench.swe.preflight import PreflightFailed, preflight

    runner, _ = _runner(
        model,
        base_url,
        api_key,
        context,
        max_tokens,
        turns=steps,
        wall_s=time_limit,
        structured=structured,
        sandbox=sandbox,
        system_prompt=system_prompt,
        preflight=True,
    )
    try:
        outcome = preflight(runner, model)
    except PreflightFailed as exc:
        console.print(
            f"[red]preflight failed:[/red] {escape(str(exc))}", soft_wrap=True, highlight=False
        )
        raise typer.Exit(1) from None
    out.print(f"preflight passed: {len(outcome.asks)} ask(s), {outcome.turns} turns")
