"""ES / FT-ES / TTC and the interaction rates, with intervals a reviewer accepts.

The unit is the session: a session's epochs are averaged first (pass^k and the TTC spread
read them separately), so running a deterministic policy three times changes nothing. The five
held-out sessions of a user are a cluster: intervals account for it by default
(`cluster="cell"`), or treat sessions as independent (`cluster="session"`).

- ES and FT-ES (proportions): the Wilson score interval, which keeps its coverage at 0%
  and 100%, with n the effective sample size: sessions divided by the design effect of the
  clustering (the cluster-robust variance of the mean over the independent one; at least 1).
- TTC: a percentile bootstrap resampling cells (or sessions).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from capabench.records import TURN_BUDGET, SessionRun

Z95 = 1.959963984540054
CLUSTERS = ("cell", "session")


@dataclass(frozen=True)
class SessionOutcome:
    """One session's completed epochs, averaged."""

    session_id: str
    cell: int
    epochs: int
    es: float
    ft_es: float
    ttc: float
    asked: float  # share of epochs in which it asked
    asks: float
    needless: float
    needless_any: float
    wrong_guess: float
    tokens: float
    cost: float | None


def per_session(results: Iterable[SessionRun], budget: int = TURN_BUDGET) -> list[SessionOutcome]:
    """Completed results grouped by session, each session's epochs averaged (sorted by id)."""
    groups: dict[str, list[SessionRun]] = defaultdict(list)
    for r in results:
        if r.status == "completed":
            groups[r.session_id].append(r)
    out = []
    for sid in sorted(groups):
        g = groups[sid]
        mean = lambda values: float(np.mean(list(values)))  # noqa: E731
        costs = [r.cost_usd for r in g]
        out.append(
            SessionOutcome(
                session_id=sid,
                cell=g[0].cell,
                epochs=len(g),
                es=mean(r.solved for r in g),
                ft_es=mean(r.solved_turn == 1 for r in g),
                ttc=mean(r.solved_turn or budget for r in g),
                asked=mean(r.asks > 0 for r in g),
                asks=mean(r.asks for r in g),
                needless=mean(r.needless_asks for r in g),
                needless_any=mean(r.needless_asks > 0 for r in g),
                wrong_guess=mean(r.first_move == "submit" and r.solved_turn != 1 for r in g),
                tokens=mean(r.input_tokens + r.output_tokens for r in g),
                cost=None if any(c is None for c in costs) else mean(costs),
            )
        )
    return out


@dataclass
class Summary:
    n: int  # sessions
    es: float
    ft_es: float
    ttc: float
    ask_rate: float
    questions_per_session: float
    needless_ask_rate: float  # sessions with a needless ask
    needless_per_ask: float | None  # needless asks over all asks
    wrong_guess_rate: float
    tokens_per_session: float
    cost_per_session: float | None
    infra_errors: int = 0
    attempts: int = 0  # completed (session, epoch) results
    cells: int = 0
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    methods: dict[str, str] = field(default_factory=dict)


def interval_methods(cluster: str = "cell", resamples: int = 2000) -> dict[str, str]:
    """What each interval is, in words (for table footers and report.json)."""
    unit = "cells (users)" if cluster == "cell" else "sessions"
    effective = (
        "n = sessions / design effect of the cells (clusters)"
        if cluster == "cell"
        else "n = sessions"
    )
    return {
        "unit": "session (a session's epochs are averaged first)",
        "clusters": unit,
        "ES": f"95% Wilson score interval, {effective}",
        "FT-ES": f"95% Wilson score interval, {effective}",
        "TTC": f"95% percentile bootstrap, {resamples} resamples of {unit}",
    }


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    if n <= 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if p <= 0 else low, 1.0 if p >= 1 else high)  # exact at the ends, not 1 - 2e-16


def design_effect(values: np.ndarray, clusters: np.ndarray) -> float:
    """The cluster-robust variance of the mean over the independent-sessions variance (at
    least 1; 1 when it can't be estimated: fewer than two clusters or no variation)."""
    n = len(values)
    labels = np.unique(clusters)
    if n < 2 or len(labels) < 2:
        return 1.0
    independent = values.var(ddof=1) / n
    if independent <= 0:
        return 1.0
    resid = values - values.mean()
    sums = np.array([resid[clusters == g].sum() for g in labels])
    g = len(labels)
    robust = g / (g - 1) * float((sums**2).sum()) / n**2
    return max(1.0, robust / independent)


def proportion_interval(
    values: np.ndarray, clusters: np.ndarray, cluster: str
) -> tuple[float, float]:
    deff = design_effect(values, clusters) if cluster == "cell" else 1.0
    return wilson(float(values.mean()), len(values) / deff)


def bootstrap_interval(
    values: np.ndarray, clusters: np.ndarray, cluster: str, resamples: int, seed: int
) -> tuple[float, float]:
    """Percentile bootstrap of the mean, resampling whole cells or single sessions."""
    rng = np.random.default_rng(seed)
    if cluster == "cell":
        labels = np.unique(clusters)
        members = [np.flatnonzero(clusters == g) for g in labels]
        sums = np.array([values[m].sum() for m in members])
        sizes = np.array([len(m) for m in members])
        picks = rng.integers(0, len(labels), size=(resamples, len(labels)))
        means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    else:
        picks = rng.integers(0, len(values), size=(resamples, len(values)))
        means = values[picks].mean(axis=1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def summarize(
    results: Iterable[SessionRun],
    *,
    budget: int = TURN_BUDGET,
    resamples: int = 2000,
    seed: int = 0,
    cluster: str = "cell",
) -> Summary:
    """Over completed results, sessions as the unit; infrastructure errors are counted, not
    scored."""
    if cluster not in CLUSTERS:
        raise ValueError(f"cluster must be one of {CLUSTERS}, not {cluster!r}")
    results = list(results)
    done = [r for r in results if r.status == "completed"]
    errors = len(results) - len(done)
    methods = interval_methods(cluster, resamples)
    sessions = per_session(done, budget)
    if not sessions:
        return Summary(0, 0, 0, budget, 0, 0, 0, None, 0, 0, None, errors, methods=methods)
    column = lambda name: np.array([getattr(s, name) for s in sessions], float)  # noqa: E731
    cells = np.array([s.cell for s in sessions])
    costs = [s.cost for s in sessions]
    asks = column("asks").sum()
    summary = Summary(
        n=len(sessions),
        es=float(column("es").mean()),
        ft_es=float(column("ft_es").mean()),
        ttc=float(column("ttc").mean()),
        ask_rate=float(column("asked").mean()),
        questions_per_session=float(column("asks").mean()),
        needless_ask_rate=float(column("needless_any").mean()),
        needless_per_ask=float(column("needless").sum() / asks) if asks else None,
        wrong_guess_rate=float(column("wrong_guess").mean()),
        tokens_per_session=float(column("tokens").mean()),
        cost_per_session=None if any(c is None for c in costs) else float(np.mean(costs)),
        infra_errors=errors,
        attempts=len(done),
        cells=len(set(cells.tolist())),
        methods=methods,
    )
    summary.ci["es"] = proportion_interval(column("es"), cells, cluster)
    summary.ci["ft_es"] = proportion_interval(column("ft_es"), cells, cluster)
    summary.ci["ttc"] = bootstrap_interval(column("ttc"), cells, cluster, resamples, seed)
    return summary


def breakdown(
    results: Iterable[SessionRun], labels: Callable[[SessionRun], Iterable[str]], **kw
) -> dict[str, Summary]:
    """Summaries per label; a result with several labels counts for each (multi-label marginal,
    as the paper aggregates mechanisms)."""
    groups: dict[str, list[SessionRun]] = defaultdict(list)
    for result in results:
        for label in labels(result):
            groups[label].append(result)
    return {label: summarize(group, **kw) for label, group in sorted(groups.items())}


def difficulty_of(reference: Iterable[SessionRun], budget: int = TURN_BUDGET) -> dict[str, str]:
    """The paper's partition from a no-history reference run, on each session's mean first
    success turn over its epochs (unsolved = budget + 1): simple (at most 2), medium (at
    most 4), complex (later or unsolved)."""
    turns: dict[str, list[int]] = defaultdict(list)
    for r in reference:
        if r.status == "completed":
            turns[r.session_id].append(r.solved_turn or budget + 1)
    out = {}
    for sid, values in turns.items():
        turn = sum(values) / len(values)
        out[sid] = "simple" if turn <= 2 else "medium" if turn <= 4 else "complex"
    return out


def epochs_of(results: Iterable[SessionRun]) -> int:
    """The most completed epochs any session has (what pass^k can reach)."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in results:
        if r.status == "completed":
            counts[(r.session_id, r.condition)] += 1
    return max(counts.values(), default=0)


PASS_K_OUTCOMES: dict[str, Callable[[SessionRun], bool]] = {
    "es": lambda r: r.solved,  # solved within the turn budget
    "ft_es": lambda r: r.solved_turn == 1,  # solved by the first submission, no question asked
}


def _epochs(results: Iterable[SessionRun], value: Callable[[SessionRun], object]) -> list[list]:
    """Per (session, condition), the value of each completed epoch."""
    by_session: dict[tuple[str, str], list] = defaultdict(list)
    for r in results:
        if r.status == "completed":
            by_session[(r.session_id, r.condition)].append(value(r))
    return list(by_session.values())


def pass_k(results: Iterable[SessionRun], k: int, metric: str = "es") -> float | None:
    """Chance that k epochs of a session all succeed, averaged over sessions (None when a
    session has fewer than k epochs): tau2-bench's estimator, per session C(c, k) / C(n, k)
    with n the session's completed epochs and c those that succeeded. `metric` says what
    succeeding is: "es" (solved within the budget) or "ft_es" (solved at the first turn)."""
    if metric not in PASS_K_OUTCOMES:
        raise ValueError(f"metric must be one of {tuple(PASS_K_OUTCOMES)}, not {metric!r}")
    by_session = _epochs(results, PASS_K_OUTCOMES[metric])
    if not by_session or any(len(v) < k for v in by_session):
        return None
    return float(np.mean([math.comb(sum(v), k) / math.comb(len(v), k) for v in by_session]))


@dataclass(frozen=True)
class EpochSpread:
    """How much a session's TTC moves between its epochs (see `ttc_spread`)."""

    sessions: int  # sessions with two or more completed epochs: the ones averaged
    sd: float  # mean over those sessions of the sample standard deviation (ddof 1) of TTC
    range: float  # mean over those sessions of max TTC - min TTC


def ttc_spread(results: Iterable[SessionRun], budget: int = TURN_BUDGET) -> EpochSpread | None:
    """The spread of TTC across epochs. Per session (and condition), the TTC of each completed
    epoch (unsolved = budget, as TTC counts it), then its sample standard deviation (ddof = 1)
    and its range (max - min); both averaged over the sessions with two or more completed
    epochs. None when no session has two: one epoch measures no spread (it is not zero)."""
    turns = [v for v in _epochs(results, lambda r: r.solved_turn or budget) if len(v) > 1]
    if not turns:
        return None
    return EpochSpread(
        sessions=len(turns),
        sd=float(np.mean([np.std(v, ddof=1) for v in turns])),
        range=float(np.mean([max(v) - min(v) for v in turns])),
    )
