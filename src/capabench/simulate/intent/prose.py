"""A message as prose addressed to the user: without its code blocks, unfenced code,
docstrings and the writer's recorded reasoning."""

from __future__ import annotations

import ast
import re

from capabench import messages

# The writer's own reasoning, recorded as reply text by some agents: everything before a
# closing </think>, and any <think>...</think> block.
_REASONING = re.compile(r"\A.*</think>|<think>.*?(?:</think>|\Z)", re.S | re.I)
# A docstring or other triple-quoted block outside a fence (the task's text, not a question).
_TRIPLE = re.compile(r"(?ms)^[ \t]*[rRbBuU]?(\"\"\"|\'\'\').*?(?:\1|\Z)")
_CODE_START = re.compile(
    r"^\s*(?:def |class |async def |@\w|>>> |\.\.\. |from [\w.]+ import |import [\w.]+\s*$|"
    r"(?:return|raise|assert|yield|elif|while|for|if|with|try|except|else|finally)\b[^?]*[:(=\[]|"
    r"[A-Za-z_][\w.\[\]'\"]*\s*(?:[-+*/%|&]?=|\()[^?]*$)"
)


def _is_code(line: str) -> bool:
    """An unfenced line of Python (a pasted function, a doctest), not prose about code:
    it looks like a statement and parses as one."""
    if not _CODE_START.match(line):
        return False
    text = line.strip().removeprefix(">>> ").removeprefix("... ")
    if text.endswith(":"):
        text += " pass"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    # a bare expression of words ("ok", "sorted(x) or not") is prose unless it is a call
    return not all(
        isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call) for node in tree.body
    )


def _without_code_lines(text: str) -> str:
    """Unfenced code: each line that parses as a statement, and the lines indented under it."""
    out, indent = [], None
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip())
        if indent is not None and line.strip() and depth > indent:
            continue  # the body of a code line above
        indent = None
        if _is_code(line):
            indent = depth
            out.append("")
            continue
        out.append(line)
    return "\n".join(out)


def prose(message: str) -> str:
    """The message as prose addressed to the user: without its code blocks (a blank line
    where each was), unfenced code and docstrings, and the writer's recorded reasoning."""
    text = messages.without_fences(_REASONING.sub("", message))
    return _without_code_lines(_TRIPLE.sub("\n\n", text))
