"""The issue in both forms (and a workbook's withheld categories), recorded once per
instance beside a run store when a batch starts (`<runs>/issues/<instance_id>.json`), so
the dashboard shows them whenever the run recorded them, with or without --dataset."""

from __future__ import annotations

import json
from pathlib import Path

from capabench.swe.swe_records import Instance


def issues_dir(runs: Path) -> Path:
    return Path(runs) / "issues"


def record_issue_texts(runs: Path, instances: list[Instance]) -> None:
    folder = issues_dir(runs)
    folder.mkdir(parents=True, exist_ok=True)
    for i in instances:
        text = json.dumps(
            {
                "instance_id": i.instance_id,
                "ambiguous": i.problem_statement,
                "full": i.original_issue,
                "extra": i.extra,
                "source": i.source,
            },
            indent=1,
        )
        path = folder / f"{i.instance_id}.json"
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)


def recorded_issue_texts(runs: Path) -> dict[str, dict]:
    """{instance_id: {ambiguous, full, extra}} as recorded."""
    out = {}
    for path in sorted(issues_dir(runs).glob("*.json")):
        row = json.loads(path.read_text())
        out[row["instance_id"]] = {k: row.get(k, "") for k in ("ambiguous", "full", "extra")}
    return out
