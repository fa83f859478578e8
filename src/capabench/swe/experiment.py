"""Running the arm: one session per (instance, condition, model) into the store, batches
that resume, and grading kept apart from the runs."""

from __future__ import annotations

import json
import platform
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol

import capabench
from capabench.models import ModelOptions, make_model
from capabench.swe.bundled import repo_dir
from capabench.swe.grade import Grade, grade_locally
from capabench.swe.harness_images import prepare
from capabench.swe.records import (
    NEUTRAL_REPLY,
    AgentTask,
    Budget,
    Condition,
    Instance,
    SessionOutcome,
)
from capabench.swe.store import RunSummary, SweStore
from capabench.swe.swebench_grader import (
    DEFAULT_DATASET,
    HarnessOptions,
    HarnessUnavailable,
    Submission,
    grade_with_harness,
    harness_problem,
)
from capabench.swe.workspace import Workspace

GraderName = Literal["auto", "local", "swebench"]


class AgentRunner(Protocol):
    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome: ...


def runner_name(model: str) -> str:
    if model.startswith("claude-"):
        return "claude-agent-sdk"
    if model.startswith(("gpt-", "codex-")):
        return "codex-cli"
    return "builtin"


def make_runner(model: str, options: ModelOptions, *, budget: Budget | None = None, sandbox: bool = True,
                system_prompt: str = "preset") -> AgentRunner:  # fmt: skip
    """The arm a model slug selects: claude-* (Claude Agent SDK), gpt-*/codex-* (Codex CLI),
    anything capabench's model layer knows (openai/<m>, local, ...) with the built-in agent.
    `budget`: turns and wall time (default: the arm's own); `sandbox`: contain the agent
    (bubblewrap must work); `system_prompt`: the Claude arm's, preset or bare."""
    kind = runner_name(model)
    if kind == "codex-cli":
        from capabench.swe.codex_runner import CodexRunner

        return CodexRunner(model, base_url=options.base_url, api_key=options.api_key, budget=budget,
                           sandbox=sandbox)  # fmt: skip
    if kind == "claude-agent-sdk":
        from capabench.swe.claude_runner import ClaudeRunner

        return ClaudeRunner(model, base_url=options.base_url, api_key=options.api_key, budget=budget,
                            sandbox=sandbox, system_prompt=system_prompt)  # type: ignore[arg-type]  # fmt: skip
    from capabench.swe.builtin_agent import BuiltinAgent

    if model.startswith("baseline"):
        raise ValueError(
            f"{model!r}: the reference policies play CAPA sessions, not repository issues"
        )
    try:
        chat = make_model(model, options)
    except ValueError as exc:
        if "unknown model" not in str(exc):
            raise
        raise ValueError(
            f"unknown model {model!r} for the ask-or-guess arm: claude-<m> (Claude Agent SDK), gpt-<m> or "
            "codex-<m> (Codex CLI), or the built-in agent on openai/<m> (with --base-url) or local"
        ) from None
    budget = budget or Budget()
    return BuiltinAgent(chat, steps=budget.turns, time_limit_s=budget.wall_s, sandbox=sandbox)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80]


def run_one(instance: Instance, condition: Condition, model: str, runner: AgentRunner,
            store: SweStore, *, repos: Path | None = None) -> RunSummary:  # fmt: skip
    """One session from a fresh checkout; its artifacts stored, the summary written last."""
    task = instance.task(condition)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    run_id = f"{_slug(instance.instance_id)}__{condition}__{_slug(model)}__{stamp}-{secrets.token_hex(2)}"
    started = datetime.now(UTC).isoformat(timespec="seconds")
    manifest = {
        "run_id": run_id, "instance_id": instance.instance_id, "condition": condition, "model": model,
        "runner": runner_name(model), "repo": instance.repo, "base_commit": instance.base_commit,
        "prompt_sha256": task.prompt_sha256, "dataset": instance.source, "started": started,
        "capabench_version": capabench.__version__, "python": platform.python_version(),
        "reply": NEUTRAL_REPLY,
    }  # fmt: skip
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
        run_id=run_id, instance_id=instance.instance_id, condition=condition, model=model,
        runner=runner_name(model), runner_version=outcome.runner_version, repo=instance.repo,
        base_commit=instance.base_commit, prompt_sha256=task.prompt_sha256, started=started,
        duration_s=round(time.monotonic() - start, 3), stop_reason=outcome.stop_reason,
        asked=outcome.asked, asks=outcome.asks, turns=outcome.turns, input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens, tools=outcome.tools, error=outcome.error,
        setup=outcome.setup, warnings=outcome.warnings,
        patch_bytes=len(patch.encode()), reply=NEUTRAL_REPLY, capabench_version=capabench.__version__,
    )  # fmt: skip
    store.write_once(store.path("runs", run_id), summary.model_dump_json(indent=1))
    return summary


def pending(instances: list[Instance], conditions: list[Condition], model: str, store: SweStore,
            count: int | None = None) -> list[tuple[Instance, Condition]]:  # fmt: skip
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


def batch(instances: list[Instance], conditions: list[Condition], model: str, runner: AgentRunner,
          store: SweStore, *, count: int | None = None, repos: Path | None = None,
          progress: Callable[[RunSummary], None] | None = None) -> list[RunSummary]:  # fmt: skip
    """Sessions for the next incomplete instances, one at a time (resumable)."""
    out = []
    for instance, condition in pending(instances, conditions, model, store, count):
        summary = run_one(instance, condition, model, runner, store, repos=repos)
        out.append(summary)
        if progress:
            progress(summary)
    return out


def has_local_repo(instance: Instance, repos: Path | None) -> bool:
    try:
        repo_dir(instance, repos)
        return True
    except FileNotFoundError:
        return False


def evaluate(instances: list[Instance], store: SweStore, *, force: bool = False,
             repos: Path | None = None, timeout_s: float | None = None, grader: GraderName = "auto",
             harness: HarnessOptions | None = None,
             progress: Callable[[str, Grade], None] | None = None) -> dict[str, Grade]:  # fmt: skip
    """Grade stored patches that have no grade yet (all with force), each grade saved as it
    comes. `auto` grades locally when every instance has a local repository (the bundled
    ones, or clones under `repos`) and with the official SWE-bench harness otherwise.
    `timeout_s` bounds one graded test run (default 300 s locally, the harness's 1800 s)."""
    by_id = {i.instance_id: i for i in instances}
    todo = [(s, by_id[s.instance_id]) for s in store.summaries()
            if s.instance_id in by_id  # else a run of another dataset
            and (force or store.evaluation(s.run_id) is None)]  # fmt: skip
    local = all(has_local_repo(i, repos) for _, i in todo)
    if grader == "auto":
        grader = "local" if local else "swebench"
    grades: dict[str, Grade] = {}

    def save(run_id: str, grade: Grade) -> None:
        store.save_evaluation(run_id, grade)
        grades[run_id] = grade
        if progress:
            progress(run_id, grade)

    if grader == "local":
        for summary, instance in todo:
            save(summary.run_id, grade_locally(instance, store.patch(summary.run_id),
                                               repo_dir(instance, repos), timeout_s=timeout_s or 300.0))  # fmt: skip
        return grades
    if not todo:
        return grades
    if problem := harness_problem():
        raise HarnessUnavailable(
            f"{problem}. The official harness grades inside Docker; grade with the local grader "
            "instead (--grader local, with clones of the repositories under --repos DIR), or "
            "run evaluate on a machine with a Docker engine."
        )
    options = harness or HarnessOptions()
    workdir = store.root / "swebench"
    dataset = options.dataset
    if dataset is None:  # local repositories: capabench builds the images itself
        dataset = DEFAULT_DATASET
        if local:
            used = list({i.instance_id: i for _, i in todo}.values())
            dataset = str(prepare(used, lambda i: repo_dir(i, repos), workdir / "dataset.json",
                                  base_image=options.base_image, log=options.log))  # fmt: skip
    subs = [Submission(s.run_id, i, store.patch(s.run_id)) for s, i in todo]
    grade_with_harness(subs, workdir, dataset=dataset, split=options.split, timeout_s=timeout_s or 1800.0,
                       max_workers=options.max_workers, progress=save)  # fmt: skip
    return grades


PREFLIGHT_PROMPT = (
    "This is a check of the channel you use to ask the user questions. First ask the user, "
    "through that channel, what the file notes.txt should say. Then write the answer you get "
    "into notes.txt and finish."
)


class PreflightFailed(RuntimeError):
    """The ask channel could not be certified: a batch would measure harness breakage."""


def preflight(runner: AgentRunner, model: str) -> SessionOutcome:
    """A forced ask must be observed and answered, and the session must go on past it."""
    import tempfile

    from capabench.swe.workspace import git

    with tempfile.TemporaryDirectory(prefix="capabench-preflight-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git("init", "--quiet", "--initial-branch=main", cwd=repo)
        (repo / "README.md").write_text("# preflight\n")
        git("add", "-A", cwd=repo)
        git("commit", "--quiet", "-m", "preflight", cwd=repo)
        commit = git("rev-parse", "HEAD", cwd=repo).strip()
        # A runner may name its channel (the built-in agent's action): the canary certifies
        # the harness's ask path, not the model's judgement of when to ask.
        prompt = " ".join(filter(None, [PREFLIGHT_PROMPT, getattr(runner, "ask_hint", "")]))
        task = AgentTask(instance_id="preflight", repo="capabench/preflight", base_commit=commit,
                         condition="full", prompt=prompt, prompt_sha256="")  # fmt: skip
        with Workspace(repo, commit) as ws:
            outcome = runner.run(task, ws)
    answered = [a for a in outcome.asks if a.answer is not None]  # a refused ask certifies nothing
    if not answered:
        raise PreflightFailed(f"{model}: no ask was observed and answered ({outcome.stop_reason}"
                              f"{': ' + outcome.error if outcome.error else ''})")  # fmt: skip
    # Going on may be asking again until the cap: each answer was delivered and acted on.
    # Turns are model replies in every arm, so a reply after the ask's is going on.
    if outcome.turns <= answered[0].turn or outcome.stop_reason not in (
        "completed",
        "step_limit",
        "time_limit",
        "max_ask_rounds",
    ):
        raise PreflightFailed(f"{model}: the session did not continue after the answered ask "
                              f"({outcome.stop_reason})")  # fmt: skip
    return outcome
