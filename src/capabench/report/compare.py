"""Two runs side by side on the same sessions (`capabench report A B --compare`): per
condition, how the paired sessions' outcomes pair up (solved by both, by one only, by
neither), the paired tests (as for two conditions, Holm over the table), and the sessions
solved by one and not the other."""

from __future__ import annotations

from capabench.metrics import paired_tests, summarize
from capabench.metrics.core import per_session
from capabench.report.collect import RunData
from capabench.report.tables import METRICS, pct, with_holm


def compare_rows(a: RunData, b: RunData) -> tuple[list[dict], list[dict]]:
    """(a row per condition both runs played, a row per session solved by one run only).
    A session counts as solved when it was solved in every epoch it completed."""
    rows, differ = [], []
    ga, gb = a.by_condition(), b.by_condition()
    for cond in [c for c in ga if c in gb]:
        sa = {s.session_id: s for s in per_session(ga[cond])}
        sb = {s.session_id: s for s in per_session(gb[cond])}
        keys = sorted(set(sa) & set(sb))
        if not keys:
            continue
        solved = [(sa[k].es == 1.0, sb[k].es == 1.0) for k in keys]
        tests = {t.metric: t for t in paired_tests(ga[cond], gb[cond])}
        rows.append(
            {
                "condition": cond,
                "paired n": len(keys),
                "solved by both": sum(x and y for x, y in solved),
                f"only {a.model}": sum(x and not y for x, y in solved),
                f"only {b.model}": sum(y and not x for x, y in solved),
                "by neither": sum(not x and not y for x, y in solved),
                f"ES {a.model}": pct(summarize(ga[cond]).es),
                f"ES {b.model}": pct(summarize(gb[cond]).es),
                **{f"p {m}": tests[m].p_value for m in METRICS},
            }
        )
        differ += [
            {
                "condition": cond,
                "session": k,
                "solved by": a.model if x else b.model,
                f"turns {a.model}": round(sa[k].ttc, 2),
                f"turns {b.model}": round(sb[k].ttc, 2),
            }
            for k, (x, y) in zip(keys, solved, strict=True)
            if x != y
        ]
    return with_holm(rows), differ
