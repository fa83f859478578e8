"""Running the arm: one session per (instance, condition, model) from a fresh checkout into
the store, and batches that resume where they stopped."""

from __future__ import annotations

import json
import platform
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import capabench
from capabench.swe.agents import NEUTRAL_REPLY, AgentRunner
from capabench.swe.agents.workspace import Workspace
from capabench.swe.data.bundled import repo_dir
from capabench.swe.records import Condition, Instance, SessionOutcome
from capabench.swe.store import RunSummary, SweStore


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80]


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
    task = instance.task(condition)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    run_id = f"{_slug(instance.instance_id)}__{condition}__{_slug(model)}__{stamp}-{secrets.token_hex(2)}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    manifest = {
        "run_id": run_id,
        "instance_id": instance.instance_id,
        "condition": condition,
        "model": model,
        "runner": runner.name,
        "repo": instance.repo,
        "base_commit": instance.base_commit,
        "prompt_sha256": task.prompt_sha256,
        "dataset": instance.source,
        "started": started,
        "capabench_version": capabench.__version__,
        "python": platform.python_version(),
        "reply": NEUTRAL_REPLY,
    }
    store.write_once(store.path("manifests", run_id), json.dumps(manifest, indent=1))
    start = time.monotonic()
    with Workspace(repo_dir(instance, repos), instance.base_commit) as ws:
        try:
            outcome = runner.run(task, ws)
        except Exception as exc:  # the runner broke: recorded (retryable), the batch goes on
            outcome = SessionOutcome(stop_reason="error", error=f"{type(exc).__name__}: {exc}")
        patch = ws.patch()
    events = "".join(json.dumps(e) + "\n" for e in outcome.events)
    store.write_once(store.path("sessions", run_id) / "events.jsonl", events)
    for name, text in outcome.files.items():  # e.g. Codex rollouts, Claude Code transcripts
        store.write_once(store.path("sessions", run_id) / "harness" / name, text)
    store.write_once(store.path("transcripts", run_id) / "agent.txt", outcome.transcript())
    store.write_once(store.path("patches", run_id), patch)
    summary = RunSummary(
        run_id=run_id,
        instance_id=instance.instance_id,
        condition=condition,
        model=model,
        runner=runner.name,
        runner_version=outcome.runner_version,
        repo=instance.repo,
        base_commit=instance.base_commit,
        prompt_sha256=task.prompt_sha256,
        started=started,
        duration_s=round(time.monotonic() - start, 3),
        stop_reason=outcome.stop_reason,
        asked=outcome.asked,
        asks=outcome.asks,
        turns=outcome.turns,
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        tools=outcome.tools,
        error=outcome.error,
        setup=outcome.setup,
        warnings=outcome.warnings,
        patch_bytes=len(patch.encode()),
        reply=NEUTRAL_REPLY,
        capabench_version=capabench.__version__,
    )
    store.write_once(store.path("runs", run_id), summary.model_dump_json(indent=1))
    return summary


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
        missing = [c for c in conditions if (instance.instance_id, c) not in done]
        if missing:
            if count is not None and chosen == count:
                break
            chosen += 1
            todo += [(instance, c) for c in missing]
    return todo


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
) -> list[RunSummary]:
    """Sessions for the next incomplete instances, one at a time (resumable)."""
    out = []
    for instance, condition in pending(instances, conditions, model, store, count):
        summary = run_one(instance, condition, model, runner, store, repos=repos)
        out.append(summary)
        if progress:
            progress(summary)
    return out
