"""Paired tests between two conditions on the same sessions (no scipy needed)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from capabench.records import SessionRun


@dataclass(frozen=True)
class PairedTest:
    metric: str
    n: int
    statistic: float
    p_value: float
    method: str


def _binomial_two_sided(k: int, n: int) -> float:
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(k, n - k) + 1)) / 2**n
    return min(1.0, 2 * tail)


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
    """Wilcoxon signed-rank, normal approximation with tie correction; zero differences dropped."""
    diffs = [x - y for x, y in zip(a, b, strict=True) if x != y]
    n = len(diffs)
    if n == 0:
        return PairedTest(metric, len(a), 0.0, 1.0, "Wilcoxon signed-rank")
    order = sorted(range(n), key=lambda i: abs(diffs[i]))
    ranks = [0.0] * n
    ties = 0.0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and abs(diffs[order[j + 1]]) == abs(diffs[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    w_plus = sum(r for r, d in zip(ranks, diffs, strict=True) if d > 0)
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    z = 0.0 if var <= 0 else (w_plus - mean) / math.sqrt(var)
    return PairedTest(
        metric, len(a), w_plus, math.erfc(abs(z) / math.sqrt(2)), "Wilcoxon signed-rank"
    )


def paired_tests(
    first: list[SessionRun], second: list[SessionRun], budget: int = 8
) -> list[PairedTest]:
    """ES and FT-ES by McNemar, TTC by Wilcoxon, on the sessions both conditions completed."""
    a = {(r.session_id, r.epoch): r for r in first if r.status == "completed"}
    b = {(r.session_id, r.epoch): r for r in second if r.status == "completed"}
    keys = sorted(set(a) & set(b))
    ra, rb = [a[k] for k in keys], [b[k] for k in keys]
    return [
        mcnemar([r.solved for r in ra], [r.solved for r in rb], "ES"),
        mcnemar([r.solved_turn == 1 for r in ra], [r.solved_turn == 1 for r in rb], "FT-ES"),
        wilcoxon(
            [r.solved_turn or budget for r in ra], [r.solved_turn or budget for r in rb], "TTC"
        ),
    ]
