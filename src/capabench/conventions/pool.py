"""Which tasks can carry conventions: the check must pin each output to one value.

Spied hidden tests demand the reference's exact output for each recorded input. That
is only fair when the original check does the same: compares the candidate's result
with `==` (possibly through tuple()/list()) or within a float tolerance (abs(a - b) <
eps, math.isclose). A check that tests a property (`poly(xs, candidate(xs)) < eps`),
ignores order (`sorted(candidate(x))`) or feeds results back into the candidate admits
several correct outputs; such tasks are left out of the pool, with the reason.
"""

from __future__ import annotations

import ast

from capabench.records import Task

_TRANSPARENT_CALLS = {"tuple", "list", "str", "int", "float", "bool"}


def _candidate_name(tree: ast.Module) -> str:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
            return node.args.args[0].arg
    return "candidate"


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _pinned(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> bool:
    """Does this candidate call sit where its value is compared to one expected value?"""
    node: ast.AST = call
    parent = parents.get(node)
    while (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and parent.func.id in _TRANSPARENT_CALLS
    ):
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Assert) and parent.test is node:  # a predicate: True/False exactly
        return True
    if (
        isinstance(parent, ast.Compare)
        and len(parent.ops) == 1
        and isinstance(parent.ops[0], ast.Eq | ast.Is | ast.NotEq)
    ):
        return True
    # abs(candidate(x) - expected) < tol
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Sub):
        grand = parents.get(parent)
        if (
            isinstance(grand, ast.Call)
            and isinstance(grand.func, ast.Name)
            and grand.func.id == "abs"
        ):
            return isinstance(parents.get(grand), ast.Compare)
    # math.isclose(candidate(x), expected, ...)
    return isinstance(parent, ast.Call) and ast.unparse(parent.func) in ("math.isclose", "isclose")


def exclusion_reason(task: Task) -> str | None:
    """None when every output the check sees is pinned to one value; else why not."""
    tree = ast.parse(task.test)
    name = _candidate_name(tree)
    parents = _parents(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    candidate_calls = [c for c in calls if c.func.id in (name, task.entry_point)]
    if not candidate_calls:
        return "the check never calls the candidate directly"
    # An assert's message is only evaluated after a failure: calls there don't count.
    in_messages = {
        n for a in ast.walk(tree) if isinstance(a, ast.Assert) and a.msg for n in ast.walk(a.msg)
    }
    for call in candidate_calls:
        if call not in in_messages and not _pinned(call, parents):
            return f"property check: `{ast.unparse(parents.get(call, call))[:80]}` admits several outputs"
    if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree)) and any(
        isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in n.args)
        for n in ast.walk(tree)
    ):
        return "the check passes the candidate itself to other code"
    return None
