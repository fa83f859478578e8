from __future__ import annotations

import math

import pytest

from capabench.metrics import breakdown, difficulty_of, mcnemar, pass_k, summarize, wilcoxon
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
    return SessionRun(key=f"{session}|{cond}|{epoch}", session_id=session, condition=cond, epoch=epoch, model="m",
                      status=status, solved_turn=solved, asks=asks, first_move=first, needless_asks=needless,
                      input_tokens=tokens[0], output_tokens=tokens[1], cost_usd=0.001, cell=0, profile_id="p",
                      mechanisms=M, task_id="t", turns=(Turn(role="user", text="r"),))  # fmt: skip


def test_summary_definitions():
    results = [run("a", 1), run("b", 3, asks=1, first="ask"), run("c", None, asks=2, first="ask", needless=1),
               run("d", None, first="submit"), run("e", status="infra_error")]  # fmt: skip
    s = summarize(results)
    assert s.n == 4 and s.infra_errors == 1
    assert s.es == 0.5 and s.ft_es == 0.25
    assert s.ttc == pytest.approx((1 + 3 + 8 + 8) / 4)
    assert s.ask_rate == 0.5 and s.questions_per_session == 0.75 and s.needless_ask_rate == 0.25
    assert s.wrong_guess_rate == 0.25  # d submitted first and was not solved at turn 1
    assert s.tokens_per_session == 15 and s.cost_per_session == pytest.approx(0.001)
    lo, hi = s.ci["es"]
    assert 0 <= lo <= s.es <= hi <= 1


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
