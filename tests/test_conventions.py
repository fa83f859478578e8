from __future__ import annotations

import math
from collections import Counter

import pytest

from capabench.conventions import REGISTRY, Shape, compose, hidden_calls
from capabench.conventions.hidden_tests import Case, literal, render
from capabench.conventions.pool import exclusion_reason
from capabench.judge import judge
from capabench.judge.spy import spy_tasks
from capabench.records import Mechanism, Task
from capabench.tasks import load_humaneval


@pytest.fixture(scope="module")
def shapes(pool):
    return spy_tasks(load_humaneval(), pool)[0]


def test_registry_covers_every_mechanism_twice():
    assert len(REGISTRY) >= 12
    per_mechanism = Counter(f.mechanism for f in REGISTRY.values())
    assert set(per_mechanism) == set(Mechanism) and min(per_mechanism.values()) >= 2
    for family in REGISTRY.values():
        assert len(family.alternatives) >= 2
        assert family.question and family.concept and family.vocabulary.anchors and family.exemplars
        statements = [a.statement for a in family.alternatives]
        assert len(set(statements)) == len(statements)
        if family.mechanism == Mechanism.HABITUAL:
            assert family.cues == ()  # habitual omission: the user never says it


def test_only_property_checks_are_left_out():
    reasons = {t.id: exclusion_reason(t) for t in load_humaneval()}
    assert {k: v for k, v in reasons.items() if v} == {
        "HumanEval/32": "property check: `solution = candidate(copy.deepcopy(coeffs))` admits several outputs"
    }
    order_free = Task(
        id="x",
        prompt="def f(x):\n",
        entry_point="f",
        reference_solution="    return [x]\n",
        test="def check(candidate):\n    assert sorted(candidate(1)) == [1]\n",
    )
    assert "admits several outputs" in exclusion_reason(order_free)


def test_the_renamed_core_keeps_every_tasks_behaviour(shapes, pool):
    tasks = {t.id: t for t in load_humaneval()}
    failures = {}
    for task_id, shape in shapes.items():
        composed = compose(shape, {})
        assert composed.public_name == tasks[task_id].entry_point
        verdict = judge(composed.code, tasks[task_id].judge_tests, composed.public_name, pool=pool)
        if not verdict.passed:
            failures[task_id] = verdict.detail
    assert failures == {}


@pytest.mark.parametrize(
    "value",
    [
        1,
        -2.5,
        float("inf"),
        float("-inf"),
        True,
        None,
        "it's",
        b"x",
        (1,),
        (),
        [1, (2, 3)],
        {"a": [1]},
        set(),
        {3, 1},
        frozenset({2}),
    ],
)
def test_literal_round_trips_exactly(value):
    back = eval(literal(value))
    assert type(back) is type(value) and back == value
    assert math.isnan(eval(literal(float("nan"))))


def _hidden(cases, checks=()):
    from capabench.conventions.shape import Call

    return render(
        "t", [Case(Call(args, {}), ret, raised) for args, ret, raised in cases], list(checks)
    )


def test_hidden_tests_compare_types_exactly_and_floats_loosely(pool):
    tests = _hidden([((2,), 1, None), ((3,), 1.5, None), ((0,), None, "ValueError")])
    good = "def f(x):\n    if x == 0:\n        raise ValueError('zero')\n    return {2: 1, 3: 1.5 + 1e-9}[x]\n"
    assert judge(good, tests, "f", pool=pool).passed
    as_bool = (
        "def f(x):\n    if x == 0:\n        raise ValueError\n    return {2: True, 3: 1.5}[x]\n"
    )
    verdict = judge(as_bool, tests, "f", pool=pool)
    assert verdict.status == "failed" and "f(2) returned True, expected 1" in verdict.detail
    wrong_error = (
        "def f(x):\n    if x == 0:\n        raise TypeError\n    return {2: 1, 3: 1.5}[x]\n"
    )
    assert (
        "raised TypeError, expected ValueError" in judge(wrong_error, tests, "f", pool=pool).detail
    )
    no_error = "def f(x):\n    return {2: 1, 3: 1.5, 0: None}[x]\n"
    assert "expected it to raise ValueError" in judge(no_error, tests, "f", pool=pool).detail
    tuple_not_list = _hidden([((1,), [1, 2], None)])
    assert not judge("def f(x):\n    return (1, 2)\n", tuple_not_list, "f", pool=pool).passed


def _shape_for(shapes, family_id):
    family = REGISTRY[family_id]
    return next(s for _, s in sorted(shapes.items()) if family.applies(s))


@pytest.mark.parametrize("family_id", sorted(REGISTRY))
def test_each_family_alternative_is_told_apart_by_its_hidden_tests(family_id, shapes, pool):
    from capabench.build.session import make_hidden

    shape = _shape_for(shapes, family_id)
    family = REGISTRY[family_id]
    for alt in family.alternatives:
        hidden = make_hidden(shape, {family_id: alt.id}, "t", pool)
        assert judge(hidden.reference, hidden.tests, hidden.entry_point, pool=pool).passed
        for other in family.alternatives:
            if other.id != alt.id:
                code = compose(shape, {family_id: other.id}).code
                assert not judge(code, hidden.tests, hidden.entry_point, pool=pool).passed, (
                    alt.id,
                    other.id,
                )
        assert not judge(
            shape.task.reference_code, hidden.tests, hidden.entry_point, pool=pool
        ).passed, alt.id


def test_every_alternative_composes_python_for_every_task_it_applies_to(shapes):
    # a reaction such as `return {}` (an empty dict) must not be read as a format field
    broken = {}
    for task_id, shape in shapes.items():
        for family_id, family in REGISTRY.items():
            if not family.applies(shape):
                continue
            for alt in family.alternatives:
                try:
                    compile(compose(shape, {family_id: alt.id}).code, task_id, "exec")
                except (SyntaxError, IndexError, KeyError, ValueError) as exc:
                    broken[(task_id, family_id, alt.id)] = repr(exc)
    assert broken == {}


def test_composition_order_is_fixed(shapes):
    shape = _shape_for(shapes, "input_format")
    choices = {
        "batch": "tuples",
        "input_format": "comma",
        "envelope": "pair",
        "log_channel": "stderr",
        "naming": "camel_case",
    }
    code = compose(shape, choices).code
    positions = [
        code.index(f"def {name}(") for name in ("_enveloped", "_parsed", "_batch", "_logged")
    ]
    assert positions == sorted(positions)
    calls = hidden_calls(shape, choices)
    assert (
        len(calls) == 1
        and isinstance(calls[0].args[0], list)
        and isinstance(calls[0].args[0][0][0], str)
    )


def test_shape_knows_outputs_and_params(shapes):
    shape: Shape = shapes["HumanEval/0"]
    assert shape.params == ("numbers", "threshold")
    assert shape.all_outputs(bool) and shape.simple_params
