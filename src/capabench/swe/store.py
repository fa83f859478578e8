"""The ask-or-guess run store: write-once manifests and run summaries, patches, raw event
streams and agent-only transcripts per run, and overwritable evaluations kept apart.

    <root>/manifests/<run_id>.json    written before the session starts
    <root>/runs/<run_id>.json         written last: a run is done when it exists
    <root>/patches/<run_id>.patch
    <root>/sessions/<run_id>/events.jsonl
    <root>/transcripts/<run_id>/agent.txt
    <root>/evaluations/<run_id>.json  grades; rewritten freely
"""

from __future__ import annotations

import json
from pathlib import Path

from capabench.paths import write_atomically
from capabench.swe.grading.grade import Grade
from capabench.swe.swe_records import Condition, SessionFacts


class RunSummary(SessionFacts):
    """The write-once record of one session: which session it was and its facts (the
    fields of SessionFacts, flat in the stored JSON as before), never how it was graded."""

    run_id: str
    instance_id: str
    condition: Condition
    model: str
    runner: str
    repo: str
    base_commit: str
    prompt_sha256: str
    started: str
    duration_s: float
    asked: bool  # bool(asks), kept in the file for readers of the JSON
    patch_bytes: int = 0
    reply: str = ""  # the synthetic answer given to asks, verbatim
    capabench_version: str = ""

    @property
    def retryable(self) -> bool:
        """An errored session that did no work is retried by the next batch."""
        return self.stop_reason == "error" and self.patch_bytes == 0


def _file_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in text)[:120]


class SweStore:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)  # folders appear with their first file: reading creates nothing

    def path(self, slot: str, run_id: str) -> Path:
        suffix = {
            "manifests": ".json",
            "runs": ".json",
            "evaluations": ".json",
            "patches": ".patch",
        }
        return self.root / slot / f"{run_id}{suffix.get(slot, '')}"

    def write_once(self, path: Path, text: str) -> None:
        """Write a file that must not exist yet, whole or not at all."""
        write_atomically(path, text, durable=True, exclusive=True)

    def overwrite(self, path: Path, text: str) -> None:
        write_atomically(path, text, durable=True)

    def summaries(self) -> list[RunSummary]:
        out = []
        for file in sorted((self.root / "runs").glob("*.json")):  # none if the folder isn't there
            out.append(RunSummary.model_validate_json(file.read_text()))
        return out

    def done(self, model: str) -> set[tuple[str, str]]:
        """(instance, condition) pairs this model has a finished, non-retryable run of."""
        return {
            (s.instance_id, s.condition)
            for s in self.summaries()
            if s.model == model and not s.retryable
        }

    def manifest(self, run_id: str) -> dict:
        return json.loads(self.path("manifests", run_id).read_text())

    def patch(self, run_id: str) -> str:
        path = self.path("patches", run_id)
        return path.read_text() if path.is_file() else ""

    def events(self, run_id: str) -> list[dict]:
        path = self.path("sessions", run_id) / "events.jsonl"
        return (
            [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
        )

    def save_preflight(self, model: str, result: dict) -> None:
        """The latest preflight of a model (passed or not): a finding about the model."""
        self.overwrite(
            self.root / "preflight" / f"{_file_name(model)}.json", json.dumps(result, indent=1)
        )

    def preflights(self) -> list[dict]:
        return [json.loads(f.read_text()) for f in sorted((self.root / "preflight").glob("*.json"))]

    def evaluation(self, run_id: str) -> Grade | None:
        path = self.path("evaluations", run_id)
        return Grade.model_validate_json(path.read_text()) if path.is_file() else None

    def save_evaluation(self, run_id: str, grade: Grade) -> None:
        self.overwrite(self.path("evaluations", run_id), grade.model_dump_json(indent=1))
