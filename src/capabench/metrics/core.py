from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from math import comb

import numpy as np

from capabench.records import SessionRun

BUDGET = 8


@dataclass
class Summary:
    n: int
    es: float
    ft_es: float
    ttc: float
    ask_rate: float
    questions_per_session: float
    needless_ask_rate: float
    wrong_guess_rate: float
    tokens_per_session: float
    cost_per_session: float | None
    infra_errors: int = 0
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def _per_session(results: list[SessionRun], budget: int) -> dict[str, np.ndarray]:
    return {
        "es": np.array([r.solved for r in results], float),
        "ft_es": np.array([r.solved_turn == 1 for r in results], float),
        "ttc": np.array([r.solved_turn or budget for r in results], float),
    }


def summarize(
    results: Iterable[SessionRun], *, budget: int = BUDGET, resamples: int = 1000, seed: int = 0
) -> Summary:
    """Over completed results; infrastructure errors are counted, not scored."""
    results = list(results)
    done = [r for r in results if r.status == "completed"]
    errors = len(results) - len(done)
    if not done:
        return Summary(0, 0, 0, budget, 0, 0, 0, 0, 0, None, errors)
    values = _per_session(done, budget)
    costs = [r.cost_usd for r in done]
    summary = Summary(
        n=len(done),
        es=float(values["es"].mean()),
        ft_es=float(values["ft_es"].mean()),
        ttc=float(values["ttc"].mean()),
        ask_rate=float(np.mean([r.asks > 0 for r in done])),
        questions_per_session=float(np.mean([r.asks for r in done])),
        needless_ask_rate=float(np.mean([r.needless_asks > 0 for r in done])),
        wrong_guess_rate=float(
            np.mean([r.first_move == "submit" and r.solved_turn != 1 for r in done])
        ),
        tokens_per_session=float(np.mean([r.input_tokens + r.output_tokens for r in done])),
        cost_per_session=None if any(c is None for c in costs) else float(np.mean(costs)),
        infra_errors=errors,
    )
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(done), size=(resamples, len(done)))
    for name, column in values.items():
        means = column[picks].mean(axis=1)
        summary.ci[name] = (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))
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


def difficulty_of(reference: Iterable[SessionRun]) -> dict[str, str]:
    """The paper's partition from a no-history reference run: simple (solved in 1-2 turns),
    medium (3-4), complex (5-8 or unsolved)."""
    out = {}
    for r in reference:
        if r.status != "completed":
            continue
        turn = r.solved_turn or BUDGET + 1
        out[r.session_id] = "simple" if turn <= 2 else "medium" if turn <= 4 else "complex"
    return out


def pass_k(results: Iterable[SessionRun], k: int) -> float | None:
    """Chance that k epochs of a session all succeed, averaged over sessions (None when a
    session has fewer than k epochs)."""
    by_session: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for r in results:
        if r.status == "completed":
            by_session[(r.session_id, r.condition)].append(r.solved)
    if not by_session or any(len(v) < k for v in by_session.values()):
        return None
    return float(np.mean([comb(sum(v), k) / comb(len(v), k) for v in by_session.values()]))
