"""Stage 1's information control, per convention: the request leaves out or words vaguely
what a session's conventions decide, and never states what its hidden tests reject.

What a family decides follows from its layer: the naming layer the function's name, the
input layer the form of an argument, the batch layer how the function is called, the output
and envelope layers how a result is represented, a validation layer what happens on the
inputs it governs (a negative number, None). An example that shows something decided is
rewritten into words true under every alternative ("for `'[[]]'` the answer is yes"), with
the result the task's own reference computes; one whose input a validation layer governs is
left out, since what happens there is the convention itself. Examples that touch no
convention stay as the task wrote them."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from capabench.build.examples import Example
from capabench.conventions import REGISTRY, Family, Layer
from capabench.records import Slot, Task


@dataclass(frozen=True)
class Decided:
    """What a session's conventions decide about what a request could show."""

    name: bool = False
    call: bool = False
    inputs: tuple[Family, ...] = ()
    results: tuple[Family, ...] = ()  # innermost first
    validation: tuple[Family, ...] = ()

    @classmethod
    def of(cls, slots: tuple[Slot, ...]) -> Decided:
        families = sorted((REGISTRY[s.family] for s in slots), key=lambda f: f.layer)
        return cls(
            name=any(f.layer == Layer.NAMING for f in families),
            call=any(f.layer == Layer.BATCH for f in families),
            inputs=tuple(f for f in families if f.layer == Layer.INPUT),
            results=tuple(f for f in families if f.layer in (Layer.OUTPUT, Layer.ENVELOPE)),
            validation=tuple(f for f in families if f.layer == Layer.VALIDATION),
        )

    @property
    def shape(self) -> bool:
        """Whether anything a call example shows (name, arguments, call, result) is decided."""
        return self.name or self.call or bool(self.inputs) or bool(self.results)

    def touches(self, example: Example) -> bool:
        return (
            (self.name and example.name is not None)
            or self.call
            or bool(self.inputs or self.results)
        )

    def governed(self, example: Example) -> bool:
        return any(f.governs(example.args) for f in self.validation)


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def neutral(example: Example, value: object, decided: Decided) -> str:
    """The example's information in words true under every alternative of the session."""
    shown = []
    for i, arg in enumerate(example.args):
        words = next((w for f in decided.inputs if i == 0 and (w := f.describe_input(arg))), None)
        shown.append(words or f"`{arg!r}`")
    shown += [f"`{k}` = `{v!r}`" for k, v in example.kwargs.items()]
    subject = f"for {_and(shown)}" if shown else "with no arguments"
    text = f"`{value!r}`"
    for family in decided.results:
        text = family.describe_result(value, text)
    return f"{subject} the answer is {text}"


def controlled(
    text: str,
    examples: list[Example],
    outcomes: dict[int, object],
    decided: Decided,
    task: Task,
) -> str:
    """`text` with each example the session decides rewritten (`outcomes`: index -> what the
    task's reference returns for it) or left out, and the name left out where it's decided."""
    out, pos = [], 0
    for i, example in enumerate(examples):
        out.append(text[pos : example.start])
        pos = example.end
        if decided.governed(example):
            continue  # left out: what happens on these inputs is the convention itself
        if decided.touches(example) and i in outcomes:
            sentence = neutral(example, outcomes[i], decided)
            out.append(sentence[0].upper() + sentence[1:] + ".")
        else:
            out.append(text[example.start : example.end])
    out.append(text[pos:])
    result = "".join(out)
    for family in decided.results:
        result = family.reword(result)
    if decided.name:
        result = unnamed(result, task.entry_point)
    return re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", result)


def unnamed(text: str, name: str) -> str:
    """The text with the function's own name put in words (a call site can't stay: the
    validator refuses one it can't read)."""
    text = re.sub(rf"\b(?:a |the )?function {re.escape(name)}\b(?!\s*\()", "the function", text)
    return re.sub(rf"(?<![\w.]){re.escape(name)}\b(?!\s*\()", "the function", text)


def function_line(task: Task, decided: Decided, fn: ast.FunctionDef) -> str:
    """How the request introduces the function: its signature as the task wrote it, less
    what the session decides (the return annotation once a result form is decided, the
    parameters' once an input form is; both once a validation layer decides some inputs), or
    in words once its name or call shape is."""
    params = [a.arg for a in fn.args.args]
    if decided.name or decided.call:
        named = "" if decided.name else f" `{task.entry_point}`"
        of = f" of {_and([f'`{p}`' for p in params])}" if params else " with no arguments"
        return f"a function{named}{of}"
    args = fn.args
    if decided.inputs or decided.validation:
        args = ast.arguments(
            posonlyargs=[ast.arg(a.arg) for a in args.posonlyargs],
            args=[ast.arg(a.arg) for a in args.args],
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=args.kw_defaults,
            kwarg=args.kwarg,
            defaults=args.defaults,
        )
    keep = fn.returns and not (decided.results or decided.validation)
    returns = f" -> {ast.unparse(fn.returns)}" if keep else ""
    return f"def {task.entry_point}({ast.unparse(args)}){returns}"
