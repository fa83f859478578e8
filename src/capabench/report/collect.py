from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from capabench.records import SessionRun
from capabench.store import RunStore


@dataclass
class RunData:
    path: Path
    manifest: dict
    results: list[SessionRun]

    label: str | None = None  # set when two runs share a model: "model (run directory)"

    @property
    def model(self) -> str:
        return self.label or self.manifest["model"]

    def by_condition(self, split: str = "heldout") -> dict[str, list[SessionRun]]:
        """Results per condition, of the held-out sessions unless asked for the history
        split (played only for the split-comparability study)."""
        groups: dict[str, list[SessionRun]] = defaultdict(list)
        for r in self.results:
            if r.split == split:
                groups[r.condition].append(r)
        return dict(groups)


def load_runs(paths: list[str | Path], warn=None) -> list[RunData]:
    """The runs of some directories; damaged result lines are reported to `warn`. Two runs of
    the same model are told apart by their directory's name."""
    runs = []
    for path in paths:
        store = RunStore(path)
        manifest = store.manifest()
        runs.append(
            RunData(Path(path), manifest, sorted(store.results(warn=warn), key=lambda r: r.key))
        )
    models = Counter(r.manifest["model"] for r in runs)
    for run in runs:
        if models[run.manifest["model"]] > 1:
            run.label = f"{run.manifest['model']} ({run.path.name})"
    return runs
