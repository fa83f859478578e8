"""The preflight canary: before a batch, certify that a model's ask channel works, so that a
batch never measures harness breakage as "did not ask". `before_batch` is the policy the
CLI follows: when the canary runs, what is kept of it, and that a failure stops the batch."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import BaseModel

from capabench.swe.agents import AgentRunner
from capabench.swe.agents.workspace import Workspace
from capabench.swe.git import git
from capabench.swe.store import SweStore
from capabench.swe.swe_records import AgentTask, SessionOutcome

PREFLIGHT_PROMPT = (
    "This is a check of the channel you use to ask the user questions. First ask the user, "
    "through that channel, what the file notes.txt should say. Then write the answer you get "
    "into notes.txt and finish."
)


# Why a session that went on past its ask still failed the canary, in words.
STOPS = {
    "no_action": "without finishing: its last replies had no action (no_action)",
    "error": "in an error",
}


class PreflightFailed(RuntimeError):
    """The ask channel could not be certified: a batch would measure harness breakage."""


def preflight(runner: AgentRunner, model: str) -> SessionOutcome:
    """A forced ask must be observed and answered, and the session must go on past it."""
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
        task = AgentTask(
            instance_id="preflight",
            repo="capabench/preflight",
            base_commit=commit,
            condition="full",
            prompt=prompt,
            prompt_sha256="",
        )
        with Workspace(repo, commit) as ws:
            outcome = runner.run(task, ws)
    answered = [a for a in outcome.asks if a.answer is not None]  # a refused ask certifies nothing
    if not answered:
        raise PreflightFailed(
            f"{model}: no ask was observed and answered ({outcome.stop_reason}"
            f"{': ' + outcome.error if outcome.error else ''})"
        )
    # Going on may be asking again until the cap: each answer was delivered and acted on.
    # Turns are model replies in every arm, so a reply after the ask's is going on.
    if outcome.turns <= answered[0].turn:
        raise PreflightFailed(
            f"{model}: the session did not continue after the answered ask "
            f"(turn {answered[0].turn} of {outcome.turns}; {outcome.stop_reason})"
        )
    if outcome.stop_reason not in ("completed", "step_limit", "time_limit", "max_ask_rounds"):
        why = STOPS.get(outcome.stop_reason, outcome.stop_reason)
        raise PreflightFailed(
            f"{model}: the session went on after the answered ask ({outcome.turns} turns) "
            f"but ended {why}{': ' + outcome.error if outcome.error else ''}"
        )
    return outcome


class PreflightRecord(BaseModel):
    """A model's latest preflight as the store keeps it (passed or not): a finding about the
    model, not a harness fault."""

    model: str
    passed: bool
    finding: str | None = None  # why it failed
    asks: int | None = None  # what the passing session did
    turns: int | None = None


def before_batch(
    runner: AgentRunner, model: str, store: SweStore, *, pending: bool, skip: bool = False
) -> PreflightRecord | None:
    """The canary before a batch with `pending` sessions (unless `skip`), stored; None when
    it did not run. A failed one means the batch must not run: it would measure harness
    breakage, not asking."""
    if not pending or skip:
        return None
    try:
        outcome = preflight(runner, model)
    except PreflightFailed as exc:
        record = PreflightRecord(model=model, passed=False, finding=str(exc))
    else:
        record = PreflightRecord(
            model=model, passed=True, asks=len(outcome.asks), turns=outcome.turns
        )
    store.save_preflight(model, record.model_dump(exclude_none=True))
    return record
