from __future__ import annotations

import math

import pytest

from capabench.metrics import (
    breakdown,
    difficulty_of,
    mcnemar,
    pass_k,
    summarize,
    ttc_spread,
    wilcoxon,
)
from capabench.metrics.stats import paired_tests
from capabench.records import Mechanism, SessionRun, Turn

M = (Mechanism.POLYSEMY, Mechanism.HABITUAL)


def run(
    session="s1",
    solved=None,
    cond="none",
    epoch=0,
    asks=0,
    first="submit",
    needless=0,
    status="completed",
    tokens=(10, 5),
):
    return SessionRun(
        key=f"{session}|{cond}|{epoch}",
        session_id=session,
        condition=cond,
        epoch=epoch,
        model="m",
        status=status,
        solved_turn=solved,
        asks=asks,
        first_move=first,
        needless_asks=needless,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
        cost_usd=0.001,
        cell=0,
        profile_id="p",
        mechanisms=M,
        task_id="t",
        turns=(Turn(role="user", text="r"),),
    )


def test_summary_definitions():
    results = [
        run("a", 1),
        run("b", 3, asks=1, first="ask"),
        run("c", None, asks=2, first="ask", needless=1),
        run("d", None, first="submit"),
        run("e", status="infra_error"),
    ]
    s = summarize(results)
    assert s.n == 4 and s.infra_errors == 1
    assert s.es == 0.5 and s.ft_es == 0.25
    assert s.ttc == pytest.approx((1 + 3 + 8 + 8) / 4)
    assert s.ask_rate == 0.5 and s.questions_per_session == 0.75 and s.needless_ask_rate == 0.25
    assert s.wrong_guess_rate == 0.25  # d submitted first and was not solved at turn 1
    assert s.tokens_per_session == 15 and s.cost_per_session == pytest.approx(0.001)
    lo, hi = s.ci["es"]
    assert 0 <= lo <= s.es <= hi <= 1
    assert (
        s.n == 4 and s.attempts == 4 and "Wilson" in s.methods["ES"] and "cells" in s.methods["TTC"]
    )


def test_breakdown_is_multi_label_and_difficulty_partition():
    results = [run("a", 1), run("b", 4), run("c", None)]
    groups = breakdown(results, lambda r: [m.value for m in r.mechanisms])
    assert set(groups) == {m.value for m in M} and all(g.n == 3 for g in groups.values())
    assert difficulty_of(results) == {"a": "simple", "b": "medium", "c": "complex"}


def test_pass_k():
    results = [run("a", 1, epoch=e) for e in range(3)] + [
        run("b", 1 if e == 0 else None, epoch=e) for e in range(3)
    ]
    assert pass_k(results, 1) == pytest.approx((1 + 1 / 3) / 2)
    assert pass_k(results, 3) == pytest.approx(0.5)
    assert pass_k(results, 4) is None


# Three epochs of four sessions: (solved turn per epoch; None: unsolved within the budget of 8).
EPOCHS = {
    "a": (1, 1, 1),  # solved 3/3, first turn 3/3, TTC 1 1 1
    "b": (1, 3, None),  # solved 2/3, first turn 1/3, TTC 1 3 8
    "c": (2, 4, 5),  # solved 3/3, first turn 0/3, TTC 2 4 5
    "d": (None, None, None),  # solved 0/3, TTC 8 8 8
}


def _epochs(table=EPOCHS, cond="same-user"):
    return [
        run(sid, turn, cond=cond, epoch=e)
        for sid, turns in table.items()
        for e, turn in enumerate(turns)
    ]


def test_pass_k_of_es_and_ft_es_by_hand():
    """Per session C(c, k) / C(n, k), averaged: ES c = 3, 2, 3, 0 and FT-ES c = 3, 1, 0, 0."""
    results = _epochs()
    es = [pass_k(results, k) for k in (1, 2, 3)]
    ft = [pass_k(results, k, "ft_es") for k in (1, 2, 3)]
    # ES: a 1 1 1; b 2/3 1/3 0; c 1 1 1; d 0 0 0.
    assert es == pytest.approx([(1 + 2 / 3 + 1) / 4, (1 + 1 / 3 + 1) / 4, 2 / 4])
    # FT-ES: a 1 1 1; b 1/3 0 0; c and d 0.
    assert ft == pytest.approx([(1 + 1 / 3) / 4, 1 / 4, 1 / 4])
    s = summarize(results)  # pass^1 is the session-averaged ES and FT-ES
    assert (es[0], ft[0]) == pytest.approx((s.es, s.ft_es))
    assert pass_k(results, 4) is None and pass_k(results, 4, "ft_es") is None
    infra = [*results, run("a", status="infra_error", epoch=3)]  # not an epoch played
    assert pass_k(infra, 3, "ft_es") == pytest.approx(1 / 4) and pass_k(infra, 4) is None
    with pytest.raises(ValueError, match="metric"):
        pass_k(results, 1, "ttc")


def test_ttc_spread_across_epochs_by_hand():
    """Per session the sample SD (ddof 1) and range of TTC (unsolved = 8), averaged over the
    sessions with two or more epochs."""
    spread = ttc_spread(_epochs())
    # a: 1 1 1 -> 0, 0; b: 1 3 8 -> var (9 + 1 + 16) / 2 = 13, range 7;
    # c: 2 4 5 -> var (25 + 1 + 16) / 9 / 2 = 7 / 3, range 3; d: 8 8 8 -> 0, 0.
    assert spread.sessions == 4
    assert spread.sd == pytest.approx((math.sqrt(13) + math.sqrt(7 / 3)) / 4)
    assert spread.range == pytest.approx((7 + 3) / 4)
    one_more = [*_epochs(), run("e", 2)]  # a session with one epoch has no spread: left out
    assert ttc_spread(one_more) == spread


def test_a_single_epoch_measures_no_pass_k_beyond_1_and_no_spread():
    results = [run(sid, turns[0]) for sid, turns in EPOCHS.items()]  # epoch 0 only
    assert pass_k(results, 1) == pytest.approx(3 / 4) and pass_k(results, 1, "ft_es") == 0.5
    assert pass_k(results, 2) is None and pass_k(results, 2, "ft_es") is None
    assert ttc_spread(results) is None  # not measured, not 0
    assert ttc_spread([]) is None and pass_k([], 1) is None


def test_pass_k_rows_and_report_say_what_is_not_measured(tmp_path):
    """The pass_k table: three epochs give pass^1..3 of ES and FT-ES and the TTC spread; a
    single-epoch condition has pass^1 only, None (CSV: empty; HTML: –) beyond, never 0."""
    import csv
    import json
    from pathlib import Path

    from capabench.report.collect import RunData
    from capabench.report.render import write_report
    from capabench.report.tables import pass_k_rows

    three = _epochs()
    single = [run(sid, turns[0], cond="none") for sid, turns in EPOCHS.items()]
    data = RunData(Path("run"), {"model": "m"}, three + single)
    rows = pass_k_rows([data])
    got = {(r["condition"], r["k"]): r for r in rows}
    assert set(got) == {(c, k) for c in ("none", "same-user") for k in (1, 2, 3)}
    same = [got[("same-user", k)] for k in (1, 2, 3)]
    assert [r["pass^k"] for r in same] == [66.67, 58.33, 50.0]
    assert [r["pass^k FT-ES"] for r in same] == [33.33, 25.0, 25.0]
    assert {
        (r["epochs"], r["TTC SD across epochs"], r["TTC range across epochs"]) for r in same
    } == {(3, round((math.sqrt(13) + math.sqrt(7 / 3)) / 4, 3), 2.5)}
    assert (got[("none", 1)]["pass^k"], got[("none", 1)]["pass^k FT-ES"]) == (75.0, 50.0)
    for k in (2, 3):
        assert got[("none", k)]["pass^k"] is None and got[("none", k)]["pass^k FT-ES"] is None
    assert got[("none", 1)]["epochs"] == 1 and got[("none", 1)]["TTC SD across epochs"] is None
    # One epoch everywhere: k = 2 is still shown, as not measured.
    alone = pass_k_rows([RunData(Path("run"), {"model": "m"}, single)])
    assert [(r["k"], r["pass^k"], r["TTC range across epochs"]) for r in alone] == [
        (1, 75.0, None),
        (2, None, None),
    ]

    files = write_report([data], tmp_path)
    with files["pass_k.csv"].open() as fh:
        table = list(csv.DictReader(fh))
    none2 = next(r for r in table if r["condition"] == "none" and r["k"] == "2")
    assert none2["pass^k"] == none2["pass^k FT-ES"] == none2["TTC SD across epochs"] == ""
    report = json.loads(files["report.json"].read_text())
    assert report["pass_k"] == rows
    assert "C(c, k) / C(n, k)" in report["methods"]["pass^k"]
    assert "ddof 1" in report["methods"]["TTC spread across epochs"]
    page = files["report.html"].read_text()
    section = page[
        page.index("Reliability across epochs") : page.index(
            "<h2>", page.index("Reliability across epochs")
        )
    ]
    for text in (
        "ES pass^3",
        "FT-ES pass^3",
        "TTC SD",
        "TTC range",
        "<td>58.33</td>",
        "<td>–</td>",
    ):
        assert text in section, text
    assert "<td>0.0</td>" not in section  # nothing unmeasured reads as zero


def test_paired_tests_known_values():
    m = mcnemar([True] * 10 + [False] * 5, [False] * 8 + [True] * 7)
    assert m.p_value == pytest.approx(2 * sum(math.comb(13, i) for i in range(6)) / 2**13)
    assert mcnemar([True, False], [True, False]).p_value == 1.0
    w = wilcoxon([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [8, 8, 8, 8, 8, 8, 8, 8, 8, 8])
    assert w.statistic == 0 and w.p_value < 0.01
    tests = paired_tests(
        [run("a", 1), run("b", None)],
        [run("a", 1, cond="same-user"), run("b", 1, cond="same-user")],
    )
    assert [t.metric for t in tests] == ["ES", "FT-ES", "TTC"] and all(
        0 <= t.p_value <= 1 for t in tests
    )


def _cells(values_per_cell, cond="none", epochs=1):
    """Results for cells of sessions: one list of solved turns (None: unsolved) per cell."""
    out = []
    for c, turns in enumerate(values_per_cell):
        for i, turn in enumerate(turns):
            for e in range(epochs):
                r = run(f"c{c}-s{i}", turn, cond=cond, epoch=e)
                out.append(r.model_copy(update={"cell": c}))
    return out


def test_epochs_of_a_deterministic_policy_change_no_interval_or_test():
    turns = [[1, 1, None, 3, 1], [None, 2, 1, 1, 8], [1, None, None, 1, 2], [4, 1, 1, None, 1]]
    other = [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [None, 1, 1, 1, 2], [1, 1, 1, 1, 1]]
    once = summarize(_cells(turns)), paired_tests(_cells(turns), _cells(other, "same-user"))
    thrice = (
        summarize(_cells(turns, epochs=3)),
        paired_tests(_cells(turns, epochs=3), _cells(other, "same-user", 3)),
    )
    assert (
        once[0].ci == thrice[0].ci and once[0].n == thrice[0].n == 20 and thrice[0].attempts == 60
    )
    assert [(t.n, t.p_value, t.method) for t in once[1]] == [
        (t.n, t.p_value, t.method) for t in thrice[1]
    ]


def test_clustered_cells_widen_the_intervals():
    """Cells whose sessions are perfectly correlated: the cluster interval is wider."""
    turns = [[1] * 5, [None] * 5, [1] * 5, [2] * 5, [None] * 5, [1] * 5, [3] * 5, [None] * 5]
    results = _cells(turns)
    by_cell, by_session = summarize(results), summarize(results, cluster="session")
    for key in ("es", "ft_es", "ttc"):
        cell_width = by_cell.ci[key][1] - by_cell.ci[key][0]
        assert cell_width > by_session.ci[key][1] - by_session.ci[key][0], key
    assert "cells" in by_cell.methods["clusters"] and by_session.methods["clusters"] == "sessions"


def test_proportions_at_the_extremes_keep_an_interval():
    for turn in (1, None):
        s = summarize(_cells([[turn] * 5 for _ in range(12)]))
        low, high = s.ci["es"]
        assert high - low > 0.02 and low <= s.es <= high
    assert s.ci["es"][0] == 0.0 and s.ci["es"][1] > 0


def test_wilcoxon_matches_scipy_exact_and_permutation():
    from scipy import stats

    tied = wilcoxon([1] * 10, [8] * 10)  # ten equal differences: every sign assignment counts
    assert tied.p_value == pytest.approx(2 / 2**10) and "permutation" in tied.method
    assert tied.p_value == pytest.approx(
        stats.wilcoxon([-7] * 10, method=stats.PermutationMethod(n_resamples=2**10)).pvalue
    )
    a, b = [3, 5, 1, 8, 2, 9, 4], [1, 0, 2, 1, -1, 3, 0]
    exact = wilcoxon(a, b)
    assert exact.method.endswith("exact") and exact.p_value == pytest.approx(
        stats.wilcoxon(a, b, method="exact").pvalue
    )


def test_holm():
    from capabench.metrics import holm

    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5]) == [0.5] and holm([]) == []


def test_difficulty_partitions_on_each_sessions_epochs():
    # Epochs 0-9 (as text, "9" sorts after "10"): half solved at turn 1, half unsolved.
    results = [run("a", 1 if e < 5 else None, epoch=e) for e in range(10)]
    results += [run("b", 2, epoch=e) for e in range(10)]
    assert difficulty_of(results) == {"a": "complex", "b": "simple"}  # mean turns 5.0 and 2.0


def test_needless_asks_per_ask():
    s = summarize([run("a", 1, asks=2, needless=1), run("b", 1, asks=2), run("c", 1)])
    assert s.needless_per_ask == pytest.approx(0.25) and s.needless_ask_rate == pytest.approx(1 / 3)
    assert summarize([run("a", 1)]).needless_per_ask is None
