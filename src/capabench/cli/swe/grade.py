"""`capabench swe evaluate`: grading the stored runs, apart from running them."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from capabench.cli.errors import console, fail
from capabench.cli.options import ExecutorOpt, RayAddressOpt, check_executor
from capabench.cli.swe.app import (
    DEFAULT_RUNS,
    BaseOpt,
    DatasetOpt,
    ReposOpt,
    RunsOpt,
    SummariesOpt,
    load_dataset,
    out,
)
from capabench.swe.grading.harness_images import DEFAULT_BASE_IMAGE


def evaluate_cmd(
    dataset: DatasetOpt = None,
    base: BaseOpt = None,
    summaries: SummariesOpt = None,
    runs: RunsOpt = DEFAULT_RUNS,
    repos: ReposOpt = None,
    force: Annotated[bool, typer.Option("--force", help="regrade graded runs")] = False,
    eval_timeout: Annotated[
        float | None,
        typer.Option(
            "--eval-timeout",
            min=1,
            help="seconds per graded test run (default 1800, as SWE-bench)",
        ),
    ] = None,
    grader: Annotated[
        str, typer.Option("--grader", help="auto, local or swebench (the official harness, Docker)")
    ] = "auto",
    swebench_dataset: Annotated[
        str | None,
        typer.Option("--swebench-dataset", help="the harness's dataset (HF name or file)"),
    ] = None,
    split: Annotated[str, typer.Option("--split", help="the harness dataset's split")] = "test",
    max_workers: Annotated[
        int, typer.Option("--max-workers", min=1, help="harness containers at once")
    ] = 4,
    base_image: Annotated[
        str, typer.Option("--base-image", help="for harness images of local repositories")
    ] = DEFAULT_BASE_IMAGE,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="local grades at once")
    ] = 1,
    executor: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    controls: Annotated[
        bool,
        typer.Option(
            "--controls",
            help="first grade each instance's gold and empty patch (locally): an instance whose "
            "gold patch doesn't resolve it, or whose empty patch does, is not gradable here "
            "and its runs are excluded",
        ),
    ] = False,
) -> None:
    """Grade stored patches (runs are never re-run). `auto`: the local grader when every
    instance has a local repository (the bundled ones, or --repos), else the official
    SWE-bench harness, which needs a Docker engine."""
    from capabench.executors import ExecutorError, make_executor
    from capabench.swe.evaluate import evaluate
    from capabench.swe.grading.harness import HarnessOptions, HarnessUnavailable
    from capabench.swe.store import SweStore

    if grader not in ("auto", "local", "swebench"):
        raise fail(f"--grader must be auto, local or swebench, not {grader!r}")
    check_executor(executor, ray_address)
    store = SweStore(runs)
    instances = load_dataset(dataset, base, summaries)
    options = HarnessOptions(
        dataset=swebench_dataset,
        split=split,
        max_workers=max_workers,
        base_image=base_image,
        log=console.print,
    )
    checked = None
    if controls:
        if grader == "swebench":
            raise fail("--controls grades with the local grader; drop --grader swebench")
        checked = _controls(instances, store, repos, force, eval_timeout)
    try:
        grades = evaluate(
            instances,
            store,
            force=force,
            repos=repos,
            timeout_s=eval_timeout,
            grader=grader,
            harness=options,  # type: ignore[arg-type]
            executor=make_executor(executor, address=ray_address),
            in_flight=concurrency,
            controls=checked,
            progress=lambda r, g: console.print(
                f"  {r}: {g.status}, resolved={g.resolved}{(' (' + g.detail + ')') if g.detail else ''}",
                highlight=False,
                soft_wrap=True,
            ),
        )
    except (FileNotFoundError, HarnessUnavailable, ExecutorError) as exc:  # a missing repo, engine
        raise fail(str(exc)) from None
    if not grades and not store.summaries():
        out.print(f"no runs in {runs} to grade")
        return
    by_arm: dict[tuple[str, str], list] = {}
    for summary in store.summaries():
        if summary.run_id in grades:
            by_arm.setdefault((summary.model, summary.condition), []).append(grades[summary.run_id])
    table = Table(
        "model", "condition", "graded", "resolved", "localized", "error", "timeout", "not gradable"
    )
    for (model, cond), gs in sorted(by_arm.items()):
        table.add_row(
            model,
            cond,
            str(len(gs)),
            str(sum(bool(g.resolved) for g in gs)),
            str(sum(bool(g.localization_hit) for g in gs)),
            str(sum(g.status == "error" for g in gs)),
            str(sum(g.status == "timeout" for g in gs)),
            str(sum(g.status == "not_gradable" for g in gs)),
        )
    out.print(table)
    out.print(f"graded {len(grades)} run(s); grades in {store.root / 'evaluations'}")


def _controls(instances, store, repos, force: bool, timeout_s: float | None) -> dict:
    """Grade and show each instance's controls; the not-gradable ones are listed."""
    from capabench.swe.evaluate import grade_controls

    console.print(f"controls: the gold and the empty patch of {len(instances)} instance(s)")

    def show(c) -> None:
        verdict = "gradable" if c.gradable else f"NOT GRADABLE HERE: {c.reason}"
        console.print(
            f"  {c.instance_id}: gold {_word(c.gold)} ({c.gold.duration_s:.0f} s), "
            f"empty {_word(c.empty)} ({c.empty.duration_s:.0f} s): {verdict}",
            highlight=False,
            soft_wrap=True,
        )

    try:
        checked = grade_controls(
            instances, store, repos=repos, force=force, timeout_s=timeout_s, progress=show
        )
    except FileNotFoundError as exc:
        raise fail(str(exc)) from None
    bad = [c for c in checked.values() if not c.gradable]
    out.print(
        f"controls: {len(checked) - len(bad)} of {len(checked)} instance(s) gradable here"
        + (f"; not gradable: {', '.join(c.instance_id for c in bad)}" if bad else "")
    )
    return checked


def _word(grade) -> str:
    if grade.status == "scored":
        return "resolved" if grade.resolved else "unresolved"
    return grade.status
