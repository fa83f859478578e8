"""Paired tests between two conditions on the same sessions, and the multiple-comparison
correction. Sessions are the unit: each session's epochs are averaged first, and only the
sessions both conditions completed are paired (that n is reported)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from capabench.metrics.core import per_session
from capabench.records import TURN_BUDGET, SessionRun

EXACT_PERMUTATION_UP_TO = 16  # nonzero differences: every sign assignment enumerated (2^16)


@dataclass(frozen=True)
class PairedTest:
    metric: str
    n: int  # paired sessions
    statistic: float
    p_value: float
    method: str


def _binomial_two_sided(k: int, n: int) -> float:
    if n == 0:
        return 1.0
    return float(stats.binomtest(k, n, 0.5).pvalue)


def mcnemar(a: list[bool], b: list[bool], metric: str = "ES") -> PairedTest:
    """Exact McNemar: a binomial test on the discordant pairs."""
    only_a = sum(x and not y for x, y in zip(a, b, strict=True))
    only_b = sum(y and not x for x, y in zip(a, b, strict=True))
    return PairedTest(
        metric,
        len(a),
        float(only_a - only_b),
        _binomial_two_sided(min(only_a, only_b), only_a + only_b),
        "McNemar exact",
    )


def wilcoxon(a: list[float], b: list[float], metric: str = "TTC") -> PairedTest:
    """Wilcoxon signed-rank (zero differences dropped) by scipy: exact when there are no ties
    and at most 50 pairs, an exact permutation (every sign assignment) with ties up to 16
    nonzero differences, else the normal approximation with tie correction. The method
    used is recorded."""
    diffs = np.array([x - y for x, y in zip(a, b, strict=True)], float)
    nonzero = diffs[diffs != 0]
    n = len(nonzero)
    if n == 0:
        return PairedTest(metric, len(a), 0.0, 1.0, "Wilcoxon signed-rank (no differences)")
    ties = len(np.unique(np.abs(nonzero))) < n
    if not ties and n <= 50:
        method, how = "exact", "Wilcoxon signed-rank, exact"
    elif n <= EXACT_PERMUTATION_UP_TO:
        method, how = (
            stats.PermutationMethod(n_resamples=2**n),
            "Wilcoxon signed-rank, exact permutation",
        )
    else:
        method, how = "approx", "Wilcoxon signed-rank, normal approximation (tie-corrected)"
    result = stats.wilcoxon(nonzero, zero_method="wilcox", method=method)
    return PairedTest(metric, len(a), float(result.statistic), float(result.pvalue), how)


def paired_tests(
    first: list[SessionRun], second: list[SessionRun], budget: int = TURN_BUDGET
) -> list[PairedTest]:
    """ES and FT-ES by exact McNemar (by Wilcoxon on the per-session rates when epochs make
    them fractional), TTC by Wilcoxon, on the sessions both conditions completed."""
    a = {s.session_id: s for s in per_session(first, budget)}
    b = {s.session_id: s for s in per_session(second, budget)}
    keys = sorted(set(a) & set(b))
    out = []
    for metric, name in (("es", "ES"), ("ft_es", "FT-ES")):
        xa, xb = [getattr(a[k], metric) for k in keys], [getattr(b[k], metric) for k in keys]
        binary = all(v in (0.0, 1.0) for v in xa + xb)
        out.append(
            mcnemar([v == 1 for v in xa], [v == 1 for v in xb], name)
            if binary
            else wilcoxon(xa, xb, name)
        )
    out.append(wilcoxon([a[k].ttc for k in keys], [b[k].ttc for k in keys], "TTC"))
    return out


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment, in the input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


TEST_METHODS = {
    "ES": "exact McNemar on paired sessions (Wilcoxon signed-rank on per-session rates when epochs make them fractional)",
    "FT-ES": "exact McNemar on paired sessions (as ES)",
    "TTC": "Wilcoxon signed-rank on paired sessions: exact without ties (n <= 50), exact permutation with ties "
    f"(n <= {EXACT_PERMUTATION_UP_TO}), else normal approximation",
    "correction": "Holm, across the comparisons of one table (p Holm beside the raw p)",
}
