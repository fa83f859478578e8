"""Table rows in the paper's layouts, as plain dicts (printing and files are elsewhere)."""

from __future__ import annotations

from capabench.metrics import breakdown, difficulty_of, paired_tests, pass_k, summarize
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


def pct(x: float) -> float:
    return round(100 * x, 1)


def main_table_rows(
    runs: list[RunData], base: str = "none", treated: str = "same-user"
) -> list[dict]:
    """Table 1: per model, ES / FT-ES / TTC without history, with same-user history, and the gain."""
    rows = []
    for run in runs:
        groups = run.by_condition()
        if base not in groups or treated not in groups:
            continue
        a, b = summarize(groups[base]), summarize(groups[treated])
        tests = {t.metric: t for t in paired_tests(groups[base], groups[treated])}
        rows.append({
            "model": run.model, "n": min(a.n, b.n),
            f"ES {base}": pct(a.es), f"FT-ES {base}": pct(a.ft_es), f"TTC {base}": round(a.ttc, 3),
            f"ES {treated}": pct(b.es), f"FT-ES {treated}": pct(b.ft_es), f"TTC {treated}": round(b.ttc, 3),
            "ES gain": pct(b.es - a.es), "FT-ES gain": pct(b.ft_es - a.ft_es), "TTC gain": round(b.ttc - a.ttc, 3),
            "p ES": round(tests["ES"].p_value, 4), "p FT-ES": round(tests["FT-ES"].p_value, 4), "p TTC": round(tests["TTC"].p_value, 4),
        })  # fmt: skip
    return rows


def condition_rows(runs: list[RunData]) -> list[dict]:
    """Every model x condition with all the session metrics and 95% bootstrap intervals."""
    rows = []
    for run in runs:
        groups = run.by_condition()
        for cond in sorted(groups, key=lambda c: (ORDER.index(c) if c in ORDER else len(ORDER), c)):
            s = summarize(groups[cond])
            rows.append({
                "model": run.model, "condition": cond, "n": s.n, "infra errors": s.infra_errors,
                "ES": pct(s.es), "ES 95% CI": "–".join(f"{pct(v)}" for v in s.ci.get("es", (0, 0))),
                "FT-ES": pct(s.ft_es), "FT-ES 95% CI": "–".join(f"{pct(v)}" for v in s.ci.get("ft_es", (0, 0))),
                "TTC": round(s.ttc, 3), "TTC 95% CI": "–".join(f"{v:.2f}" for v in s.ci.get("ttc", (0, 0))),
                "ask rate": pct(s.ask_rate), "questions/session": round(s.questions_per_session, 2),
                "needless-ask rate": pct(s.needless_ask_rate), "wrong-guess rate": pct(s.wrong_guess_rate),
                "tokens/session": round(s.tokens_per_session, 1),
                "cost/session ($)": None if s.cost_per_session is None else round(s.cost_per_session, 6),
                "history tokens/session": round(sum(r.history_tokens for r in groups[cond]) / max(1, len(groups[cond])), 1),
                "unanswered questions %": unanswered_share(groups[cond]),
            })  # fmt: skip
    return rows


def unanswered_share(results: list) -> float | None:
    """Of the questions the simulated user read, the share it answered "use your judgement"
    (None when no question was asked): the simulator's fidelity as this run saw it."""
    done = [r for r in results if r.status == "completed"]
    asked = sum(r.user_questions for r in done)
    return pct(sum(len(r.unanswered) for r in done) / asked) if asked else None


def metric_cells(s: Summary) -> dict:
    """The paper's three columns (and n) of one summary."""
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
            rows += _breakdown_rows(run, cond, group, "difficulty",
                                    lambda r, level=level: [level[r.session_id]] if r.session_id in level else [])  # fmt: skip
    return rows


def pass_k_rows(runs: list[RunData]) -> list[dict]:
    """pass^k over epochs, for runs with more than one."""
    rows = []
    for run in runs:
        epochs = int(run.manifest.get("epochs", 1))
        for cond, group in sorted(run.by_condition().items()):
            for k in range(1, epochs + 1) if epochs > 1 else ():
                value = pass_k(group, k)
                if value is not None:
                    rows.append(
                        {"model": run.model, "condition": cond, "k": k, "pass^k": pct(value)}
                    )
    return rows
