"""A request may leave things out, never state what its hidden tests reject: the examples
parser, the information control per convention, and the no-contradiction validator."""

from __future__ import annotations

import ast
import doctest
import re

import pytest

from capabench.build import information
from capabench.build.contradictions import contradictions, same
from capabench.build.examples import find
from capabench.build.information import Decided
from capabench.build.replay import record_calls
from capabench.build.session import NotApplicable, violations
from capabench.conventions import REGISTRY
from capabench.conventions.shape import Call


@pytest.mark.parametrize(
    ("text", "args", "result"),
    [
        (">>> f('[[]]')\nTrue\n", ("[[]]",), True),
        (">>> f([])\n\n", ([],), None),  # nothing printed: None
        ("f('[[]]') ➞ True", ("[[]]",), True),
        ("f(1, 2) == 3", (1, 2), 3),
        ("f([4.0, 3]) ==> ['A+', 'B']", ([4.0, 3],), ["A+", "B"]),
        ("f(3) => 'x'", (3,), "x"),
        ("f(2, 2) => true", (2, 2), True),
        ("f(3) -> [1, 3]", (3,), [1, 3]),
        ('f("1234") = "4321"', ("1234",), "4321"),
        ("f('aB') returns 1", ("aB",), 1),
        ('f("14.5") should\n    return 15', ("14.5",), 15),
        ("f('x.txt') # => 'Yes'", ("x.txt",), "Yes"),
        ("For lst = [1,2,3] the output should be 14", ([1, 2, 3],), 14),
    ],
)
def test_every_form_humaneval_writes_an_example_in_is_read(text, args, result):
    examples, unread = find(text, ["f"], ("lst",) if "lst" in text else ())
    assert unread == []
    assert [(e.args, e.result) for e in examples] == [(args, result)]
    assert type(examples[0].result) is type(result)


def test_a_call_that_cant_be_read_is_reported_not_guessed():
    _, unread = find("f(a) => False\nf(19) -> 19 - 5 - 6 = 8\nWrite f() that", ["f"], ("s",))
    assert [u.why for u in unread] == [
        "arguments that aren't literals",
        "a call without a result read here",
        "a mention of the name",
    ]
    # A signature, or a formula over the parameters, shows no value.
    examples, unread = find("def f(n):\nf(n) = f(n - 1) + 1", ["f"], ("n",))
    assert unread == [u for u in unread if "literals" in u.why]
    # Other names count only with an unmistakable result.
    examples, _ = find("g([1]) ==> 2\nand h(3) is fine", ["f"], (), others=True)
    assert [(e.name, e.result) for e in examples] == [("g", 2)]


def test_same_compares_as_the_hidden_tests_do():
    assert same(1.0, 1.0 + 1e-9) and not same(1, 1.0) and not same(True, 1)
    assert same([1, (2, "a")], [1, (2, "a")]) and not same([1, (2,)], [1, [2]])


def _session_with(bench, *families):
    return next(
        s
        for s in bench.sessions
        if s.split == "heldout" and set(families) <= {x.family for x in s.slots}
    )


def _doctests_and_arrows(request: str):
    """A reviewer's reading, apart from the build's: Python's doctest parser and one regex."""
    found = []
    for ex in doctest.DocTestParser().get_examples(request):
        m = re.fullmatch(r"\s*\w+\((.*)\)\s*", ex.source, re.S)
        if m:
            found.append((m.group(1), ex.want.strip() or "None"))
    for m in re.finditer(
        r"(?m)^(?!\s*>>>).*?\b\w+\((.*)\)\s*(?:➞|==>|=>|->|==)\s*(.+?)\s*$", request
    ):
        found.append((m.group(1), m.group(2)))
    out = []
    for args, want in found:
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            out.append(
                (tuple(ast.literal_eval(a) for a in call.args), ast.literal_eval(want.rstrip(".")))
            )
        except (ValueError, SyntaxError, TypeError, AttributeError):
            continue
    return out


def test_no_request_of_the_benchmark_states_what_its_tests_reject(built, pool):
    bench, _ = built
    replayed = 0
    for session in bench.sessions:
        shown = _doctests_and_arrows(session.request)
        if shown:
            records = record_calls(
                session.reference, session.entry_point, [Call(a, {}) for a, _ in shown], pool
            )
            assert records is not None, session.id
            for (args, want), record in zip(shown, records, strict=True):
                assert record.raised is None and same(record.returned, want), (session.id, args)
            replayed += len(shown)
        if session.base_entry_point != session.entry_point:
            assert not re.search(rf"\b{session.base_entry_point}\b", session.request), session.id
    assert replayed  # examples of conventions that decide nothing stay as the task wrote them


def test_what_a_convention_decides_is_worded_not_shown(built):
    bench, _ = built
    yes_no = _session_with(bench, "yes_no")
    assert not re.search(r"\b(?:True|False)\b", yes_no.request)
    assert re.search(r"the answer is (?:yes|no)\b", yes_no.request)
    naming = _session_with(bench, "naming")
    assert "a function of" in naming.request and naming.base_entry_point not in naming.request
    listed = _session_with(bench, "input_format")
    assert "the numbers " in listed.request
    assert not re.search(r"\w\(\[", listed.request)  # no call with a Python list
    enveloped = _session_with(bench, "envelope")
    assert "returned the way we agreed" in enveloped.request


def test_a_request_that_shows_a_decided_result_is_refused(built, pool):
    from capabench.judge.spy import spy_tasks
    from capabench.tasks import load_humaneval

    bench, _ = built
    shapes, _ = spy_tasks(load_humaneval(), pool)
    session = _session_with(bench, "yes_no")
    shape = shapes[session.task_id]
    assert contradictions(session, shape, pool) == []
    # The task's own doctest form, with its literal result, put back into the request.
    call = shape.calls[0]
    literal = f">>> {session.entry_point}({call.args[0]!r})\n{call.returned!r}\n"
    shown = session.model_copy(update={"request": session.request + "\n" + literal})
    found = contradictions(shown, shape, pool)
    assert any("the reference returns" in p for p in found), found
    assert any("the reference returns" in p for p in violations(shown, shape, pool))


def test_the_build_refuses_drafts_when_a_family_shows_its_result_literally(
    built, pool, monkeypatch
):
    """Information control switched off for results: every draft of a yes/no user that
    shows an example shows True/False, and the build refuses each one."""
    from capabench.build.builder import Models, _with_request
    from capabench.judge.spy import spy_tasks
    from capabench.tasks import load_humaneval

    bench, _ = built
    user = next(
        u
        for u in bench.users
        if "yes_no" in {s.family for s in u.slots}
        and not (lambda d: d.name or d.call or d.inputs)(Decided.of(u.slots))
    )
    shapes, _ = spy_tasks(load_humaneval(), pool)
    tasks = [s for s in shapes.values() if all(REGISTRY[x.family].applies(s) for x in user.slots)]
    real = Decided.of

    def literal_results(slots):
        d = real(slots)
        return Decided(d.name, d.call, d.inputs, (), d.validation)

    def drafts():
        """(shows a call example, refused) for each draft of the user's first tasks."""
        out = []
        for shape in tasks[:6]:
            try:
                draft = _with_request(0, 5, user, shape, 0, pool, Models(), 5)
            except NotApplicable:
                continue
            names = [draft.entry_point, draft.base_entry_point]
            out.append(
                (
                    bool(find(draft.request, names, shape.params)[0]),
                    bool(violations(draft, shape, pool)),
                )
            )
        return out

    controlled = drafts()
    assert controlled and not any(refused for _, refused in controlled)
    monkeypatch.setattr(information.Decided, "of", staticmethod(literal_results))
    literal = drafts()
    assert any(shows for shows, _ in literal)
    assert all(refused for shows, refused in literal if shows)
