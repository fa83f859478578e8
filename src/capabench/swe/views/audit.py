"""Read-only views of the run store: every artifact of an instance's runs (locate), and a
health report over recent runs whose findings gate automation (sanity)."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from capabench.swe.store import SweStore


def locate(store: SweStore, query: str = "") -> list[dict]:
    """Runs whose instance id contains `query`, with the path of each artifact (None: missing)."""
    found = []
    for s in store.summaries():
        if query not in s.instance_id:
            continue
        grade = store.evaluation(s.run_id)
        slots = {
            "run summary": store.path("runs", s.run_id),
            "manifest": store.path("manifests", s.run_id),
            "patch": store.path("patches", s.run_id),
            "evaluation": store.path("evaluations", s.run_id),
            "sessions": store.path("sessions", s.run_id),
            "transcripts": store.path("transcripts", s.run_id),
        }
        harness = sorted(
            (store.root / "swebench" / "logs" / "run_evaluation").glob(f"*/{s.run_id}")
        )
        if harness:  # graded by the official harness: its newest logs for this run
            slots["harness logs"] = harness[-1]
        found.append(
            {
                "run_id": s.run_id,
                "instance_id": s.instance_id,
                "condition": s.condition,
                "model": s.model,
                "runner": s.runner,
                "stop": s.stop_reason,
                "asked": s.asked,
                "grade": "not_evaluated"
                if grade is None
                else (
                    grade.status
                    if grade.resolved is None
                    else "resolved"
                    if grade.resolved
                    else "unresolved"
                ),
                "artifacts": {k: str(p) if p.exists() else None for k, p in slots.items()},
            }
        )
    return found


DEGRADED = {
    "fallback_model_metadata": "Codex ran the model on fallback metadata (an unknown slug: a "
    "reduced tool set, e.g. no apply_patch)",
    "unrecognized_model": "Claude Code does not know the model (it assumes a context window)",
}


class Finding(BaseModel):
    severity: str  # "attention" (exit 1) or "note"
    run_id: str
    what: str


def sanity(store: SweStore, last: int | None = None) -> list[Finding]:
    summaries = sorted(store.summaries(), key=lambda s: s.started)
    recent = summaries[-last:] if last else summaries
    findings = []

    def add(severity: str, run_id: str, what: str) -> None:
        findings.append(Finding(severity=severity, run_id=run_id, what=what))

    finished = {s.run_id for s in summaries}
    for manifest in sorted((store.root / "manifests").glob("*.json")):
        if manifest.stem not in finished:
            add(
                "attention",
                manifest.stem,
                "a manifest without a run summary: the session crashed or is running",
            )
    for s in recent:
        patch = store.path("patches", s.run_id)
        if not patch.is_file():
            add("attention", s.run_id, "the patch file is missing")
        elif len(patch.read_bytes()) != s.patch_bytes:
            add(
                "attention",
                s.run_id,
                f"the patch has {len(patch.read_bytes())} bytes, the summary says {s.patch_bytes}",
            )
        if s.stop_reason == "error":
            add("attention", s.run_id, f"the session errored: {s.error[:160]}")
        if any(a.edited_before for a in s.asks):
            add("note", s.run_id, "asked after editing the workspace")
        if s.stop_reason == "max_ask_rounds":
            add("note", s.run_id, f"ended at the ask cap ({len(s.asks)} asks)")
        for reason, what in (("step_limit", "turn"), ("time_limit", "wall-time")):
            if s.stop_reason == reason:
                add("note", s.run_id, f"ended at its {what} budget ({s.turns} turns)")
        refused = [a for a in s.asks if a.refused]
        if refused:
            add(
                "note",
                s.run_id,
                f"asked through a refused channel ({refused[0].channel}): "
                f"{len(refused)} time(s), counted as asked, never answered",
            )
        for warning in s.warnings:  # the arm ran degraded: its numbers describe a lesser agent
            add(
                "attention",
                s.run_id,
                f"{DEGRADED.get(warning.kind, warning.kind)}: {warning.text[:200]}",
            )
        if s.setup is not None and s.setup.containment == "none":
            add("note", s.run_id, "the agent ran uncontained on the host (--no-sandbox)")
        grade = store.evaluation(s.run_id)
        if grade is None:
            add("attention", s.run_id, "not evaluated yet (capabench swe evaluate)")
        elif grade.status in ("error", "timeout"):
            # a grade that could not be decided (listed tests not run, no environment...):
            # left out of resolved rates, never an unresolved
            add("attention", s.run_id, f"grading {grade.status}: {grade.detail[:240]}")
        elif grade.status == "not_gradable":
            add("note", s.run_id, f"not gradable here (excluded): {grade.detail[:240]}")
        elif any(v == "not run" for v in grade.tests.values()):
            missing = sum(v == "not run" for v in grade.tests.values())
            add(
                "note",
                s.run_id,
                f"unresolved by a failing listed test; {missing} other listed test(s) did not run",
            )
    done = Counter((s.instance_id, s.condition, s.model) for s in recent if not s.retryable)
    for (instance, condition, model), n in done.items():
        if n > 1:
            add(
                "attention",
                "-",
                f"{n} finished runs of {instance} / {condition} / {model}: a rerun did not resume",
            )
    return findings
