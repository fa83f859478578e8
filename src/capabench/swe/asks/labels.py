"""Hand labels for the ask classifier: `harvest` exports every stored final message with its
verdict, the edit gate's input and the run's context, for a person to label; `score` compares
a classifier's verdicts with those labels (precision and recall, overall and per class).

A labels file is what `harvest` wrote (CSV or JSONL) with its `label` column filled in:
ask / not (also yes/no, true/false, 1/0); rows left blank are not scored. An optional `class`
column (any tag: "after edits", "tag question", ...) groups the figures; without one, rows
are grouped by the edit gate."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pydantic import BaseModel

from capabench.swe.swe_records import EventKind

FIELDS = (
    "run_id",
    "index",
    "instance_id",
    "condition",
    "model",
    "runner",
    "edited",
    "stored_version",
    "stored_asked",
    "categories",
    "text",
    "label",
    "class",
)
_YES = {"ask", "asked", "yes", "y", "true", "1"}
_NO = {"not", "no", "n", "false", "0", "not ask", "not_ask", "no ask"}


def harvest(store) -> list[dict]:
    """One row per stored final message (events of kind "final"), in run order."""
    rows = []
    for summary in store.summaries():
        finals = [e for e in store.events(summary.run_id) if e.get("kind") == EventKind.FINAL]
        for index, event in enumerate(finals):
            detection = event.get("detection") or {}
            rows.append(
                {
                    "run_id": summary.run_id,
                    "index": index,
                    "instance_id": summary.instance_id,
                    "condition": summary.condition,
                    "model": summary.model,
                    "runner": summary.runner,
                    "edited": bool(event.get("edited")),
                    "stored_version": detection.get("version", ""),
                    "stored_asked": detection.get("asked", ""),
                    "categories": " ".join(detection.get("categories", [])),
                    "text": event.get("text", ""),
                    "label": "",
                    "class": "",
                }
            )
    return rows


def dumps(rows: list[dict], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def read_labels(path: str | Path) -> list[dict]:
    """The labelled rows of a harvest file (CSV or JSONL); a bad label is an error naming its
    row."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if path.suffix == ".jsonl":
        try:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON lines ({exc})") from None
        columns = set(rows[0]) if rows else set()
    else:
        reader = csv.DictReader(io.StringIO(text))
        rows, columns = list(reader), set(reader.fieldnames or ())
    missing = {"text", "edited", "label"} - columns
    if missing:
        raise ValueError(f"{path}: not a harvest file (no {', '.join(sorted(missing))} column)")
    labelled = []
    for number, row in enumerate(rows, start=1):
        label = str(row.get("label", "")).strip().lower()
        if not label:
            continue
        if label not in _YES | _NO:
            raise ValueError(f"{path}: row {number}: label {row['label']!r} is not ask/not")
        edited = str(row.get("edited", "")).strip().lower() in ("true", "1", "yes")
        labelled.append({**row, "edited": edited, "label": label in _YES})
    return labelled


class Score(BaseModel):
    group: str
    n: int
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else float("nan")


class Scored(BaseModel):
    version: str
    overall: Score
    groups: list[Score]
    errors: list[dict]  # rows where the classifier and the label disagree


def score(rows: list[dict], clf) -> Scored:
    """Precision and recall of a classifier against labelled rows, overall and per class."""
    counts: dict[str, list[int]] = {}
    errors = []
    for row in rows:
        asked = clf.classify(row["text"], edited=row["edited"]).asked
        group = str(row.get("class") or "").strip() or (
            "after edits" if row["edited"] else "no edits"
        )
        cell = (2 if asked else 0) + (1 if row["label"] else 0)  # tn, fn, fp, tp
        for key in ("all", group):
            counts.setdefault(key, [0, 0, 0, 0])[cell] += 1
        if asked != row["label"]:
            errors.append(
                {
                    "run_id": row.get("run_id", ""),
                    "index": row.get("index", ""),
                    "label": row["label"],
                    "now": asked,
                    "text": row["text"][:200],
                }
            )

    def make(group: str) -> Score:
        tn, fn, fp, tp = counts.get(group, [0, 0, 0, 0])
        return Score(group=group, n=tn + fn + fp + tp, tp=tp, fp=fp, fn=fn, tn=tn)

    return Scored(
        version=clf.version,
        overall=make("all"),
        groups=[make(g) for g in sorted(counts) if g != "all"],
        errors=errors,
    )
