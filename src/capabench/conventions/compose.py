"""Compose a task's reference solution with a user's conventions, and the calls the
hidden tests make for them."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from capabench.conventions.base import REGISTRY, Context, Family, Fn, Layer
from capabench.conventions.shape import Call, Shape, entry_def


@dataclass(frozen=True)
class Composed:
    code: str
    public_name: str


def ordered(choices: Mapping[str, str]) -> list[tuple[Family, str]]:
    """The chosen families in composition order (validation, core, output, envelope,
    input, batch, naming, logging)."""
    unknown = set(choices) - set(REGISTRY)
    if unknown:
        raise KeyError(f"unknown convention families: {sorted(unknown)}")
    return sorted(
        ((REGISTRY[f], alt) for f, alt in choices.items()),
        key=lambda pair: (pair[0].layer, pair[0].id),
    )


def public_name(task_entry: str, choices: Mapping[str, str]) -> str:
    for family, alt in ordered(choices):
        renamed = family.public_name(alt, task_entry)
        if renamed:
            return renamed
    return task_entry


def core_code(shape: Shape) -> str:
    """The task's module with its entry point renamed `_<name>` (recursion included)."""
    entry = shape.task.entry_point

    class Rename(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            if node.name == entry:
                node.name = f"_{entry}"
            self.generic_visit(node)
            return node

        def visit_Name(self, node):
            if node.id == entry:
                node.id = f"_{entry}"
            return node

    tree = ast.parse(shape.task.reference_code)
    for node in ast.walk(tree):  # docstrings stay in the prompt; the code needn't repeat them
        if isinstance(node, ast.FunctionDef) and ast.get_docstring(node, clean=False) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(Rename().visit(tree))


def compose(shape: Shape, choices: Mapping[str, str]) -> Composed:
    entry = shape.task.entry_point
    ctx = context(shape, choices)
    name = ctx.public_name
    params = ast.unparse(entry_def(shape.task).args)
    fn = Fn(f"_{entry}", params, ", ".join(shape.params))
    imports: list[str] = []
    layers: list[str] = []
    for family, alt in ordered(choices):
        if family.layer == Layer.NAMING:
            continue
        layered = family.wrap(alt, fn, ctx)
        imports += [i for i in layered.imports if i not in imports]
        layers.append(layered.code)
        fn = layered.fn
    public = f"def {name}({fn.params_src}):\n    return {fn.call()}\n"
    parts = ["\n".join(imports), core_code(shape), *layers, public]
    return Composed("\n\n".join(p.strip("\n") for p in parts if p) + "\n", name)


def hidden_calls(shape: Shape, choices: Mapping[str, str]) -> list[Call]:
    ctx = context(shape, choices)
    calls = [Call(tuple(c.args), dict(c.kwargs)) for c in shape.calls]
    for family, alt in ordered(choices):
        calls = family.adapt(alt, calls, ctx)
    return calls


def context(shape: Shape, choices: Mapping[str, str]) -> Context:
    """What every layer may know: the task's shape and the names it goes by."""
    return Context(shape, public_name(shape.task.entry_point, choices), shape.task.entry_point)
