"""The learning curve: the figures with the first k of the user's resolved sessions as
history (the `same-user-k0..k5` conditions), per model, with intervals."""

from __future__ import annotations

import numpy as np

from capabench.history.raw import HISTORY_SIZES
from capabench.metrics import summarize
from capabench.metrics.core import bootstrap_interval, per_session
from capabench.report.collect import RunData
from capabench.report.tables import rates

CURVE = tuple(f"same-user-k{k}" for k in HISTORY_SIZES)


def learning_curve_rows(runs: list[RunData]) -> list[dict]:
    """A row per model and k: ES, FT-ES and asks per session with the first k resolved
    sessions as history, with 95% intervals (Wilson for ES and FT-ES, the bootstrap of
    cells for asks, as for TTC)."""
    rows = []
    for run in runs:
        for k, cond in zip(HISTORY_SIZES, CURVE, strict=True):
            group = run.by_condition().get(cond, [])
            s = summarize(group)
            if not s.n:
                continue
            sessions = per_session(group)
            asks = [x.asks for x in sessions]
            cells = [x.cell for x in sessions]
            low, high = bootstrap_interval(np.array(asks, float), np.array(cells), "cell", 2000, 0)
            rows.append(
                {
                    "model": run.model,
                    "k": k,
                    "n": s.n,
                    **rates(s),
                    "asks/session": round(s.questions_per_session, 3),
                    "asks/session 95% low": round(low, 3),
                    "asks/session 95% high": round(high, 3),
                }
            )
    return rows
