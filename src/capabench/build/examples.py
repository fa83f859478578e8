"""The examples a request shows, found where HumanEval writes them: doctests (`>>> f(x)` and
the result on the next lines), a call and its result on one line (`f(x) ➞ y`, `==`, `==>`,
`=>`, `->`, `=`, `returns`, `should return`, `# =>`) and the prose form naming the
parameters (`For lst = [1, 2] the output should be 5`, `Input: n = 3 ... Output: 7`).

Stage 1 rewrites the ones a session's conventions decide, and the no-contradiction validator
replays every one left against the composed reference, so both read examples the same way.
A call site that can't be read (arguments or result that aren't literals) is reported as
such: the validator can't vouch for it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

_SEPARATOR = re.compile(
    r"\s*(?:#\s*)?(?:➞|==>|=>|->|==|=|:|\breturns?\b|\bshould\s+(?:return|be|give)\b|"
    r"\bgives?\b|\bis\b)\s*",
)
_OUTPUT = re.compile(
    r"\b(?:(?:the )?(?:output|result|return(?:s|ed)?|answer)\b[^\n=:]{0,40}?"
    r"(?:\bshould be\b|\bwill be\b|\bwould be\b|\bis\b|=|:)|\breturn\b)\s*",
    re.IGNORECASE,
)
_QUOTES = "'\""


@dataclass(frozen=True)
class Example:
    start: int  # the span of the text it occupies
    end: int
    name: str | None  # the name the call uses; None for the prose form (parameters only)
    args: tuple
    kwargs: dict
    result: Any
    form: str  # "doctest", "inline" or "prose"


@dataclass(frozen=True)
class Unread:
    """A call site that shows a call but not in a form read here."""

    start: int
    end: int
    name: str
    why: str


def _closing(text: str, open_at: int) -> int | None:
    """Index just past the bracket matching text[open_at], honouring string quotes."""
    depth, i, quote = 0, open_at, None
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in _QUOTES:
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _call_args(src: str) -> tuple[tuple, dict]:
    call = ast.parse(f"_f({src})", mode="eval").body
    assert isinstance(call, ast.Call)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise ValueError("starred arguments")
    return tuple(ast.literal_eval(a) for a in call.args), {
        k.arg: ast.literal_eval(k.value) for k in call.keywords
    }


_WORDS = {"true": True, "false": False}  # how some docstrings write a bool result


def literal_prefix(text: str) -> tuple[Any, int] | None:
    """The longest prefix of `text` that is one Python literal: (value, its length). A literal
    that an operator continues (`19 - 5 - 6 = 8`) is an expression, not a result: None."""
    stripped = text.rstrip()
    word = re.match(r"(true|false)\b", stripped)
    if word:
        return _WORDS[word.group(1)], word.end()
    for end in range(len(stripped), 0, -1):
        if stripped[end - 1] in " \t,.;" and end != len(stripped):
            continue
        chunk = stripped[:end].rstrip(" \t,.;")
        if not chunk:
            continue
        try:
            value = ast.literal_eval(ast.parse(chunk, mode="eval").body)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        if re.match(r"\s*(?:[-+*/%^<>]|=(?!>))", stripped[len(chunk) :]):
            return None
        return value, len(chunk)
    return None


def _line_bounds(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end


def _doctest_want(text: str, after: int) -> tuple[Any, int] | None:
    """A doctest's expected output: the lines after the call up to a blank line or `>>>`."""
    first, *rest = text[after:].split("\n")
    if first.strip():
        return None
    lines, end, pos = [], after, after + len(first) + 1
    for line in rest:
        if not line.strip() or line.strip().startswith(">>>"):
            break
        lines.append(line.strip())
        end = pos + len(line.rstrip())
        pos += len(line) + 1
    if not lines:  # nothing printed: the call returns None
        return None, after
    got = literal_prefix(" ".join(lines))
    if got is None or got[1] != len(" ".join(lines)):
        return None
    return got[0], end


_STRONG = re.compile(r"\s*(?:#\s*)?(?:➞|==>|=>|->|==)")


def find(
    text: str, names: list[str], params: tuple[str, ...] = (), *, others: bool = False
) -> tuple[list[Example], list[Unread]]:
    """Every example `text` shows for a function called by one of `names`, and the call sites
    it shows that can't be read as one. `others`: also calls by any other name shown with an
    unmistakable result (`g(x) ==> y`, `>>> g(x)`), as a reader would take them."""
    examples: list[Example] = []
    unread: list[Unread] = []
    known = "|".join(re.escape(n) for n in names if n)
    pattern = re.compile(r"(?<![\w.])(" + (r"[A-Za-z_]\w*" if others else known) + r")\s*\(")
    for m in pattern.finditer(text):
        name, open_at = m.group(1), m.end() - 1
        if name not in names:
            close = _closing(text, open_at)
            line_start = _line_bounds(text, m.start())[0]
            doctest = text[line_start : m.start()].strip() == ">>>"
            if close is None or not (doctest or _STRONG.match(text, close)):
                continue
        if re.search(r"\bdef\s+$", text[: m.start()]):
            continue  # a signature, not a call
        close = _closing(text, open_at)
        note = unread.append if name in names else (lambda _u: None)
        if close is None:
            note(Unread(m.start(), m.end(), name, "unbalanced brackets"))
            continue
        try:
            args, kwargs = _call_args(text[open_at + 1 : close - 1])
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError, AssertionError):
            inside = {w for w in re.findall(r"[A-Za-z_]\w*", text[open_at + 1 : close - 1])}
            if not (inside and inside <= set(params)):  # `f(n)` in prose shows no value
                note(Unread(m.start(), close, name, "arguments that aren't literals"))
            continue
        line_start = _line_bounds(text, m.start())[0]
        line_end = _line_bounds(text, close)[1]
        prefix = text[line_start : m.start()]
        if not args and not kwargs and params:  # `f()` in prose names the function, calls nothing
            note(Unread(m.start(), close, name, "a mention of the name"))
            continue
        if prefix.strip() == ">>>":
            want = _doctest_want(text, close)
            if want is not None:
                examples.append(
                    Example(line_start, want[1], name, args, kwargs, want[0], "doctest")
                )
                continue
        # The separator may wrap onto the next line (`f("14.5") should\nreturn 15`).
        sep = _SEPARATOR.match(text, close, _line_bounds(text, line_end + 1)[1])
        got = None
        if sep and sep.end() > close:
            got = literal_prefix(text[sep.end() : _line_bounds(text, sep.end())[1]])
        if got is None:
            note(Unread(m.start(), close, name, "a call without a result read here"))
            continue
        start = line_start if prefix.strip() == ">>>" else m.start()
        examples.append(Example(start, sep.end() + got[1], name, args, kwargs, got[0], "inline"))
    if params:
        examples += _prose(text, params, examples)
    return sorted(examples, key=lambda e: e.start), unread


def _prose(text: str, params: tuple[str, ...], calls: list[Example]) -> list[Example]:
    """`For x = 3 the output should be 7`: every parameter given a literal, then the result,
    on the line or on an `Output` line within the next three."""
    found = []
    names = "|".join(re.escape(p) for p in params)
    assign = re.compile(rf"(?<![\w.])({names})\s*=\s*(?!=)")
    pos = 0
    while (m := assign.search(text, pos)) is not None:
        pos = m.end()
        if any(e.start <= m.start() < e.end for e in calls + found):
            continue
        values: dict[str, Any] = {}
        cursor, start = m.start(), m.start()
        line_end = _line_bounds(text, m.start())[1]
        while (a := assign.match(text, cursor)) is not None:
            got = literal_prefix(text[a.end() : line_end])
            if got is None:
                break
            values[a.group(1)] = got[0]
            cursor = a.end() + got[1]
            sep = re.match(r"\s*(?:,|and)?\s*", text[cursor:line_end])
            cursor += sep.end() if sep else 0
        if set(values) != set(params):
            continue
        window_end = line_end
        for _ in range(3):
            nxt = text.find("\n", window_end + 1)
            window_end = len(text) if nxt < 0 else nxt
        out = _OUTPUT.search(text, cursor, window_end)
        if out is None:
            continue
        got = literal_prefix(text[out.end() : _line_bounds(text, out.end())[1]])
        if got is None:
            continue
        line_start = _line_bounds(text, start)[0]
        if not text[line_start:start].strip() or re.fullmatch(
            r"\s*(?:for|if|input:?|when|given|e\.g\.|example:?)\s*", text[line_start:start], re.I
        ):
            start = line_start + len(text[line_start:start]) - len(text[line_start:start].lstrip())
        args = tuple(values[p] for p in params)
        found.append(Example(start, out.end() + got[1], None, args, {}, got[0], "prose"))
        pos = out.end() + got[1]
    return found
