from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from capabench.records import SessionRun
from capabench.store import RunStore


@dataclass
class RunData:
    path: Path
    manifest: dict
    results: list[SessionRun]

    @property
    def model(self) -> str:
        return self.manifest["model"]

    def by_condition(self, split: str = "heldout") -> dict[str, list[SessionRun]]:
        """Results per condition, of the held-out sessions unless asked for the history
        split (played only for the split-comparability study)."""
        groups: dict[str, list[SessionRun]] = defaultdict(list)
        for r in self.results:
            if r.split == split:
                groups[r.condition].append(r)
        return dict(groups)


def load_runs(paths: list[str | Path]) -> list[RunData]:
    runs = []
    for path in paths:
        store = RunStore(path)
        runs.append(
            RunData(Path(path), store.manifest(), sorted(store.results(), key=lambda r: r.key))
        )
    return runs
