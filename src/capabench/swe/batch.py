"""Running the arm: one session per (instance, condition, model) from a fresh checkout into
the store, and batches that resume where they stopped."""

from __future__ import annotations

import json
import platform
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import capabench
from capabench.batch import Arm, BatchSpec, play_batch
from capabench.batch import pending as core_pending
from capabench.executors import Executor
from capabench.executors.local import LocalExecutor
from capabench.models import InfraError
from capabench.swe.agents import NEUTRAL_REPLY, AgentRunner, RunnerOptions, make_runner
from capabench.swe.agents.workspace import Workspace
from capabench.swe.asks.ask_judge import make_ask_judge
from capabench.swe.data.bundled import ensure_repos, repo_dir
from capabench.swe.store import RunSummary, SweStore
from capabench.swe.swe_records import Condition, Instance, SessionOutcome


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80]


@dataclass
class PlayedRun:
    """One finished session and everything the store keeps of it: what travels back to the
    driver from a worker elsewhere, so the store stays on one filesystem."""

    manifest: dict
    summary: RunSummary
    events: str = ""
    files: dict[str, str] = field(default_factory=dict)  # e.g. Codex rollouts, Claude transcripts
    transcript: str = ""
    patch: str = ""


def play_one(
    instance: Instance,
    condition: Condition,
    model: str,
    runner: AgentRunner,
    *,
    repos: Path | None = None,
) -> PlayedRun:
    """One session from a fresh checkout (nothing stored: see store_run)."""
    task = instance.task(condition)
    ids = _run_identity(instance, condition, model, task.prompt_sha256)
    manifest = {
        **ids,
        "runner": runner.name,
        "dataset": instance.source,
        "capabench_version": capabench.__version__,
        "python": platform.python_version(),
        "reply": NEUTRAL_REPLY,
    }
    start = time.monotonic()
    with Workspace(repo_dir(instance, repos), instance.base_commit) as ws:
        try:
            outcome = runner.run(task, ws)
        except InfraError as exc:  # an endpoint past its retries: recorded, played again
            outcome = SessionOutcome(stop_reason="error", error=f"{type(exc).__name__}: {exc}")
        # Anything else a runner raises is a harness bug: it raises, as in capabench.runner
        # (runners return their session's own failures as an outcome).
        patch = ws.patch()
    summary = RunSummary(
        **ids,
        **outcome.facts(),
        runner=runner.name,
        duration_s=round(time.monotonic() - start, 3),
        asked=outcome.asked,
        patch_bytes=len(patch.encode()),
        reply=NEUTRAL_REPLY,
        capabench_version=capabench.__version__,
    )
    return PlayedRun(
        manifest=manifest,
        summary=summary,
        events="".join(json.dumps(e) + "\n" for e in outcome.events),
        files=dict(outcome.files),
        transcript=outcome.transcript(),
        patch=patch,
    )


def _run_identity(instance: Instance, condition: Condition, model: str, prompt_sha256: str) -> dict:
    """A new run's id and what says which session it is (manifest and summary alike)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return {
        "run_id": f"{_slug(instance.instance_id)}__{condition}__{_slug(model)}__{stamp}-{secrets.token_hex(2)}",
        "instance_id": instance.instance_id,
        "condition": condition,
        "model": model,
        "repo": instance.repo,
        "base_commit": instance.base_commit,
        "prompt_sha256": prompt_sha256,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def lost_run(instance: Instance, condition: Condition, model: str, error: str) -> PlayedRun:
    """A session the infrastructure lost (its worker kept dying): an error without a patch,
    which the next batch plays again."""
    ids = _run_identity(instance, condition, model, instance.task(condition).prompt_sha256)
    summary = RunSummary(
        **ids,
        runner="",
        duration_s=0.0,
        stop_reason="error",
        asked=False,
        error=f"lost by the executor: {error}",
        capabench_version=capabench.__version__,
    )
    return PlayedRun(manifest=ids, summary=summary)


def store_run(store: SweStore, played: PlayedRun) -> RunSummary:
    """Write a played session's artifacts, the summary last (what marks it done)."""
    run_id = played.summary.run_id
    store.write_once(store.path("manifests", run_id), json.dumps(played.manifest, indent=1))
    store.write_once(store.path("sessions", run_id) / "events.jsonl", played.events)
    for name, text in played.files.items():
        store.write_once(store.path("sessions", run_id) / "harness" / name, text)
    store.write_once(store.path("transcripts", run_id) / "agent.txt", played.transcript)
    store.write_once(store.path("patches", run_id), played.patch)
    store.write_once(store.path("runs", run_id), played.summary.model_dump_json(indent=1))
    return played.summary


def run_one(
    instance: Instance,
    condition: Condition,
    model: str,
    runner: AgentRunner,
    store: SweStore,
    *,
    repos: Path | None = None,
) -> RunSummary:
    """One session from a fresh checkout; its artifacts stored, the summary written last."""
    return store_run(store, play_one(instance, condition, model, runner, repos=repos))


def pending(
    instances: list[Instance],
    conditions: list[Condition],
    model: str,
    store: SweStore,
    count: int | None = None,
) -> list[tuple[Instance, Condition]]:
    """The next `count` instances with a condition this model hasn't finished, in order."""
    done = store.done(model)
    todo, chosen = [], 0
    for instance in instances:
        missing = core_pending([(instance, c) for c in conditions], _job_key, done)
        if missing:
            if count is not None and chosen == count:
                break
            chosen += 1
            todo += missing
    return todo


def _job_key(job: tuple[Instance, Condition]) -> tuple[str, Condition]:
    """A job's key within one model's runs (SweStore.done's pairs)."""
    return job[0].instance_id, job[1]


@dataclass
class RunnerRecipe:
    """How to build a model's runner: a worker elsewhere (a Ray actor) builds its own, since
    a built runner holds clients that don't travel. The ask judge travels as its spec."""

    model: str
    options: RunnerOptions
    judge_model: str | None = None
    preflight: bool = False

    def build(self) -> AgentRunner:
        options = self.options
        if self.judge_model:
            try:
                judge = make_ask_judge(self.judge_model)
            except (ValueError, OSError) as exc:
                raise ValueError(f"the ask judge {self.judge_model}: {exc}") from None
            options = replace(options, ask_judge=judge)
        return make_runner(self.model, options, preflight=self.preflight)


@dataclass
class SweRecipe:
    """How a worker elsewhere builds its runner, with the instances it may be handed."""

    runner: RunnerRecipe
    instances: dict[str, Instance]
    repos: Path | None = None

    def build(self, threads: int, cpus: float) -> SweSessions:
        # A runner built here checks its containment (bubblewrap) and its extras itself.
        return SweSessions(self, self.runner.build())


class SweSessions:
    """One model's runner, playing jobs by id (what travels is ids, not instances)."""

    def __init__(self, recipe: SweRecipe, runner: AgentRunner) -> None:
        ensure_repos(recipe.instances.values(), recipe.repos)
        self.recipe, self.runner = recipe, runner

    def play(self, job: tuple[str, Condition]) -> PlayedRun:
        instance_id, condition = job
        return play_one(
            self.recipe.instances[instance_id],
            condition,
            self.recipe.runner.model,
            self.runner,
            repos=self.recipe.repos,
        )

    def close(self) -> None:
        pass


def batch(
    instances: list[Instance],
    conditions: list[Condition],
    model: str,
    runner: AgentRunner,
    store: SweStore,
    *,
    count: int | None = None,
    repos: Path | None = None,
    progress: Callable[[RunSummary], None] | None = None,
    executor: Executor | None = None,
    recipe: RunnerRecipe | None = None,
    in_flight: int = 1,
) -> list[RunSummary]:
    """Sessions for the next incomplete instances (resumable): one at a time here, or
    `in_flight` at once on an executor (a Ray cluster needs the `recipe` to build runners
    there). Only this process writes the store; a session that comes back twice is kept once."""
    todo = pending(instances, conditions, model, store, count)
    by_id = {i.instance_id: i for i in instances}
    recipe = SweRecipe(recipe or RunnerRecipe(model, RunnerOptions()), by_id, repos)
    out: list[RunSummary] = []

    def lost(job: tuple[str, Condition], why: str) -> PlayedRun:
        return lost_run(by_id[job[0]], job[1], model, why)

    arm = Arm(
        lambda p: (p.summary.instance_id, p.summary.condition),
        lambda p: not p.summary.retryable,
        lost,
        lambda p: store_run(store, p),
    )
    jobs = [(i.instance_id, c) for i, c in todo]
    if not jobs:
        return out
    spec = BatchSpec(recipe, SweSessions(recipe, runner))  # its repositories, built here first
    for _, played in play_batch(
        executor or LocalExecutor(), spec, jobs, arm, store.done(model), in_flight=in_flight
    ):
        out.append(played.summary)
        if progress:
            progress(played.summary)
    return out
