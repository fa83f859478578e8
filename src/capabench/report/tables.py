"""Table rows in the paper's layouts, as plain dicts (printing and files are elsewhere)."""

from __future__ import annotations

from capabench.metrics import (
    TEST_METHODS,
    breakdown,
    difficulty_of,
    epochs_of,
    holm,
    interval_methods,
    paired_tests,
    pass_k,
    summarize,
    ttc_spread,
)
from capabench.metrics.core import Summary
from capabench.report.collect import RunData

ORDER = [
    "none",
    "same-user",
    "shuffled",
    "retrieval",
    "retrieval-dense",
    "mem0",
    "amem",
    "gated",
    "gated-llm",
]
METRICS = ("ES", "FT-ES", "TTC")


def rates(s: Summary) -> dict:
    """ES and FT-ES (%) with their 95% intervals, as the tables and CSVs name them."""
    return {
        "ES": pct(s.es),
        "ES 95% low": pct(s.ci["es"][0]),
        "ES 95% high": pct(s.ci["es"][1]),
        "FT-ES": pct(s.ft_es),
        "FT-ES 95% low": pct(s.ci["ft_es"][0]),
        "FT-ES 95% high": pct(s.ci["ft_es"][1]),
    }


def pct(x: float) -> float:
    return round(100 * x, 2)


def methods(cluster: str = "cell") -> dict[str, str]:
    """Every method behind the tables, by name (table footers, report.json)."""
    return {
        **{f"interval {k}" if k in METRICS else k: v for k, v in interval_methods(cluster).items()},
        **{f"test {k}" if k in METRICS else k: v for k, v in TEST_METHODS.items()},
        "differences": "ΔES and ΔFT-ES = treated − base (points); ΔTTC = base − treated (turns; positive = "
        "fewer turns with the treatment, the paper's sign)",
        "pass^k": "tau2-bench's estimator: per session, C(c, k) / C(n, k) with n its completed "
        "epochs and c those solved (pass^k, from ES) or solved at the first turn (pass^k FT-ES), "
        "averaged over sessions; pass^1 = ES or FT-ES; – (empty in the CSV): not measured "
        "(a session has fewer than k epochs)",
        "TTC spread across epochs": "per session, the sample standard deviation (ddof 1) and the "
        "range (max − min) of its epochs' TTC (unsolved = the turn budget), averaged over the "
        "sessions with two or more epochs; – (empty in the CSV): one epoch, not measured",
        "needless asks": "an ask answered with a convention the evaluated user's own history already "
        "states; per session (share of sessions with one) and per ask",
    }


def _ordered(groups: dict) -> list[str]:
    return sorted(groups, key=lambda c: (ORDER.index(c) if c in ORDER else len(ORDER), c))


def comparison(run: RunData, base: str, treated: str) -> dict | None:
    """One paired comparison of two conditions of a run: the paired n, the differences
    (paper's signs) and the raw p-values (Holm is applied over a table's rows)."""
    groups = run.by_condition()
    if base not in groups or treated not in groups:
        return None
    a, b = summarize(groups[base]), summarize(groups[treated])
    tests = {t.metric: t for t in paired_tests(groups[base], groups[treated])}
    if not tests["ES"].n:
        return None  # nothing measured under both: no difference to show
    return {
        "model": run.model,
        "base": base,
        "treated": treated,
        "paired n": tests["ES"].n,
        "ES base": pct(a.es),
        "ES treated": pct(b.es),
        "ΔES (pp)": pct(b.es - a.es),
        "FT-ES base": pct(a.ft_es),
        "FT-ES treated": pct(b.ft_es),
        "ΔFT-ES (pp)": pct(b.ft_es - a.ft_es),
        "TTC base": round(a.ttc, 3),
        "TTC treated": round(b.ttc, 3),
        "ΔTTC (turns saved)": round(a.ttc - b.ttc, 3),
        **{f"p {m}": tests[m].p_value for m in METRICS},
    }


def _significant(p: float) -> float:
    """Three significant digits: a p of 1e-90 stays 1e-90, not 0."""
    return float(f"{p:.3g}")


def with_holm(rows: list[dict]) -> list[dict]:
    """Rounded raw p-values and, beside each, Holm's adjustment over every test of the rows."""
    keys = [(i, m) for i, r in enumerate(rows) for m in METRICS if r.get(f"p {m}") is not None]
    adjusted = dict(zip(keys, holm([rows[i][f"p {m}"] for i, m in keys]), strict=True))
    out = []
    for i, row in enumerate(rows):
        row = dict(row)
        for m in METRICS:
            if f"p {m}" in row:
                row[f"p {m}"] = _significant(row[f"p {m}"])
                row[f"p {m} (Holm)"] = _significant(adjusted[(i, m)])
        out.append(row)
    return out


def main_table_rows(
    runs: list[RunData], base: str = "none", treated: str = "same-user"
) -> list[dict]:
    """Table 1: per model, ES / FT-ES / TTC without history, with same-user history, the
    differences and the paired tests (n: the sessions both conditions completed)."""
    named = {"base": base, "treated": treated}
    rows = []
    for run in runs:
        if (c := comparison(run, base, treated)) is not None:
            rows.append(
                {
                    (
                        f"{k.split()[0]} {named[k.split()[1]]}"
                        if k.endswith((" base", " treated"))
                        else k
                    ): v
                    for k, v in c.items()
                    if k not in named
                }
            )
    return with_holm(rows)


def comparison_rows(
    runs: list[RunData], base: str = "none", conditions: list[str] | None = None
) -> list[dict]:
    """Every other condition (or those given) of each run against `base`, with paired tests
    Holm-adjusted over the whole table."""
    rows = [
        c
        for run in runs
        for cond in _ordered(run.by_condition())
        if cond != base
        and (conditions is None or cond in conditions)
        and (c := comparison(run, base, cond)) is not None
    ]
    return with_holm(rows)


def condition_rows(runs: list[RunData], cluster: str = "cell") -> list[dict]:
    """Every model x condition with all the session metrics and 95% intervals."""
    rows = []
    for run in runs:
        groups = run.by_condition()
        for cond in _ordered(groups):
            s = summarize(groups[cond], cluster=cluster)
            if not s.n:  # only infrastructure errors: nothing was measured, show no figure
                rows.append(
                    {"model": run.model, "condition": cond, "n": 0, "infra errors": s.infra_errors}
                )
                continue
            rows.append(
                {
                    "model": run.model,
                    "condition": cond,
                    "n": s.n,
                    "cells": s.cells,
                    "attempts": s.attempts,
                    "infra errors": s.infra_errors,
                    **rates(s),
                    "TTC": round(s.ttc, 3),
                    "TTC 95% low": round(s.ci["ttc"][0], 3),
                    "TTC 95% high": round(s.ci["ttc"][1], 3),
                    "ask rate": pct(s.ask_rate),
                    "questions/session": round(s.questions_per_session, 2),
                    "needless-ask rate": pct(s.needless_ask_rate),
                    "needless per ask": None
                    if s.needless_per_ask is None
                    else pct(s.needless_per_ask),
                    "wrong-guess rate": pct(s.wrong_guess_rate),
                    "tokens/session": round(s.tokens_per_session, 1),
                    "cost/session ($)": None
                    if s.cost_per_session is None
                    else round(s.cost_per_session, 6),
                    "history tokens/session": round(
                        sum(r.history_tokens for r in groups[cond]) / max(1, len(groups[cond])), 1
                    ),
                    "unanswered questions %": unanswered_share(groups[cond]),
                    "replies cut at the token limit": sum(
                        r.truncated_replies for r in groups[cond]
                    ),
                }
            )
    return rows


def unanswered_share(results: list) -> float | None:
    """Of the questions the simulated user read, the share it answered "use your judgement"
    (None when no question was asked): the simulator's fidelity as this run saw it."""
    done = [r for r in results if r.status == "completed"]
    asked = sum(r.user_questions for r in done)
    return pct(sum(len(r.unanswered) for r in done) / asked) if asked else None


def metric_cells(s: Summary) -> dict:
    """The paper's three columns (and n) of one summary (none when nothing was measured)."""
    if not s.n:
        return {"n": 0, "ES": None, "FT-ES": None, "TTC": None}
    return {"n": s.n, "ES": pct(s.es), "FT-ES": pct(s.ft_es), "TTC": round(s.ttc, 3)}


def _breakdown_rows(run: RunData, cond: str, group: list, column: str, labels) -> list[dict]:
    """ES / FT-ES / TTC per label of one run's condition (a result may carry several labels)."""
    return [
        {"model": run.model, "condition": cond, column: label, **metric_cells(s)}
        for label, s in breakdown(group, labels).items()
    ]


def mechanism_rows(runs: list[RunData], cond: str = "same-user") -> list[dict]:
    """Table 8: per mechanism (multi-label marginal)."""
    return [
        row
        for run in runs
        for row in _breakdown_rows(
            run,
            cond,
            run.by_condition().get(cond, []),
            "mechanism",
            lambda r: [m.value for m in r.mechanisms],
        )
    ]


def profile_rows(runs: list[RunData]) -> list[dict]:
    """Per user profile, every condition."""
    return [
        row
        for run in runs
        for cond, group in sorted(run.by_condition().items())
        for row in _breakdown_rows(run, cond, group, "profile", lambda r: [r.profile_id])
    ]


def difficulty_rows(runs: list[RunData], reference: str = "none") -> list[dict]:
    """Per difficulty (Table 2), partitioned by the run's own no-history results."""
    rows = []
    for run in runs:
        groups = run.by_condition()
        if reference not in groups:
            continue
        level = difficulty_of(groups[reference])
        for cond, group in sorted(groups.items()):
            rows += _breakdown_rows(
                run,
                cond,
                group,
                "difficulty",
                lambda r, level=level: [level[r.session_id]] if r.session_id in level else [],
            )
    return rows


def pass_k_rows(runs: list[RunData]) -> list[dict]:
    """pass^k of ES and of FT-ES over the epochs the results hold (a resumed run may have more
    than it started with), per model, condition and k = 1..K, K the most epochs any condition
    of the report has (at least 2). A k a condition can't reach (a session with fewer than k
    epochs; a single-epoch run for every k > 1) is there with None: not measured, never 0.
    Each row also carries its condition's epochs and TTC spread across epochs (the same on
    every k; None with one epoch)."""
    groups = [
        (run.model, cond, group)
        for run in runs
        for cond, group in sorted(run.by_condition().items())
        if epochs_of(group)  # only infrastructure errors: nothing was measured
    ]
    most = max([2, *(epochs_of(group) for *_, group in groups)])
    rows = []
    for model, cond, group in groups:
        spread = ttc_spread(group)
        for k in range(1, most + 1):
            es, ft_es = pass_k(group, k), pass_k(group, k, "ft_es")
            rows.append(
                {
                    "model": model,
                    "condition": cond,
                    "k": k,
                    "pass^k": None if es is None else pct(es),
                    "pass^k FT-ES": None if ft_es is None else pct(ft_es),
                    "epochs": epochs_of(group),
                    "TTC SD across epochs": None if spread is None else round(spread.sd, 3),
                    "TTC range across epochs": None if spread is None else round(spread.range, 3),
                }
            )
    return rows
