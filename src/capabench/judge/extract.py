"""Find the submission in an assistant message.

Rules, in order: fenced blocks (``` or ~~~, any or no language tag; other languages
skipped; found by capabench.messages, as the simulated user and the ask classifiers find
them); with an entry point, the last block that defines it, plus the imports and helpers it
uses from the other blocks; without fences, the longest stretch of lines that parses as
Python and defines something. Top-level demo code (prints, asserts,
`if __name__ == "__main__":`) is dropped so examples can't break the load. Nothing
found means no submission.
"""

from __future__ import annotations

import ast
import functools
import re

from capabench.messages import fences

_PYTHON_TAGS = {"", "python", "py", "python3", "py3", "ipython", "pycon"}
_DEF_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CODE_START = re.compile(r"^(def |async def |class |import |from \S+ import |@)")


def _blocks(message: str) -> list[str]:
    """The bodies of the Python blocks (a one-line block is a span of code in prose)."""
    return [f.body for f in fences(message) if not f.one_line and f.language in _PYTHON_TAGS]


@functools.lru_cache(maxsize=256)
def _parse(code: str) -> ast.Module | None:
    """Parsed once per text (parsing is most of extraction's cost); callers only read trees."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def _defined(tree: ast.Module) -> dict[str, ast.stmt]:
    """Top-level names a module binds, to the statement that binds them."""
    names: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, _DEF_KINDS):
            names[node.name] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names[sub.id] = node
    return names


def _used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_demo(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Expr):
        return not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    if isinstance(node, ast.If):
        test = ast.unparse(node.test).replace("'", '"')
        return test in ('__name__ == "__main__"', '"__main__" == __name__')
    return False


def _strip_demo(code: str, tree: ast.Module) -> str:
    lines = code.splitlines(keepends=True)
    drop = set()
    for node in tree.body:
        if _is_demo(node):
            drop.update(range(node.lineno - 1, (node.end_lineno or node.lineno)))
    return "".join(line for i, line in enumerate(lines) if i not in drop).strip("\n") + "\n"


def _with_helpers(main: str, main_tree: ast.Module, others: list[tuple[str, ast.Module]]) -> str:
    """Prepend the imports/definitions `main` uses but takes from other blocks."""
    have = set(_defined(main_tree))
    pool: dict[str, tuple[str, ast.stmt]] = {}
    for code, tree in others:
        for name, node in _defined(tree).items():
            pool.setdefault(name, (code, node))
    wanted = _used(main_tree) - have
    chosen: list[tuple[str, ast.stmt]] = []
    while wanted:
        name = wanted.pop()
        if name not in pool or name in have:
            continue
        code, node = pool[name]
        have.add(name)
        if all(node is not n for _, n in chosen):
            chosen.append((code, node))
            wanted |= _used(node) - have
    if not chosen:
        return main
    pieces = [ast.get_source_segment(code, node, padded=False) or "" for code, node in chosen]
    imports = [
        p
        for p, (_, n) in zip(pieces, chosen, strict=True)
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    defs = [
        p
        for p, (_, n) in zip(pieces, chosen, strict=True)
        if not isinstance(n, ast.Import | ast.ImportFrom)
    ]
    return "\n".join([*imports, "", *("\n" + d + "\n" for d in defs), main]).lstrip("\n")


def _unfenced(message: str) -> str | None:
    """Longest run of lines, from the first code-looking line, that parses and defines something."""
    lines = message.splitlines()
    starts = [i for i, line in enumerate(lines) if _CODE_START.match(line)]
    for start in starts:
        for end in range(len(lines), start, -1):
            chunk = "\n".join(lines[start:end])
            tree = _parse(chunk)
            if tree is not None and any(isinstance(n, _DEF_KINDS) for n in tree.body):
                return chunk
    return None


def extract_code(message: str, entry_point: str | None = None) -> str | None:
    """The code a message submits, or None when it submits nothing."""
    blocks = _blocks(message)
    if not blocks:
        fallback = _unfenced(message)
        blocks = [fallback] if fallback else []
    parsed = [(code, _parse(code)) for code in blocks]
    good = [(code, tree) for code, tree in parsed if tree is not None]
    if entry_point is None:
        if good:
            code, tree = good[-1]
            return _strip_demo(code, tree)
        return None
    defining = [(code, tree) for code, tree in good if entry_point in _defined(tree)]
    if defining:
        code, tree = defining[-1]
        others = [(c, t) for c, t in good if c is not code]
        stripped = _strip_demo(code, tree)
        return _with_helpers(stripped, _parse(stripped) or tree, others)
    # A broken block that clearly meant to define it: let the judge report the syntax error.
    for code, tree in reversed(parsed):
        if tree is None and re.search(
            rf"^\s*(async\s+)?def\s+{re.escape(entry_point)}\s*\(", code, re.M
        ):
            return code
    return None
