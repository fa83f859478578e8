"""Stage 1: the initial request, in the user's voice. It states the task's behaviour and
leaves the conventions to cues or to silence, as their mechanisms dictate; what they decide
is left out or put in words true under every alternative (information.py)."""

from __future__ import annotations

import ast
import inspect
import random
import re
from dataclasses import dataclass

from capabench.build import information
from capabench.build.examples import find
from capabench.build.information import Decided
from capabench.build.replay import record_calls
from capabench.conventions import REGISTRY
from capabench.conventions.shape import Call, entry_def
from capabench.judge.sandbox import SandboxPool
from capabench.models import ChatModel, Message
from capabench.records import Profile, Slot, Task


def description(task: Task) -> str:
    """The task's docstring as its prompt shows it: from the source, so an escape such as
    `"abc\\ndef"` in an example stays the two characters the task wrote, not a line break."""
    fn = entry_def(task)
    # The docstring, or the string a task puts after an import (HumanEval/115 does).
    node = next(
        (
            n.value
            for n in fn.body[:2]
            if isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)
            and n.value.value.strip()
        ),
        None,
    )
    if node is None:
        return f"Implement {task.entry_point}."
    literal = ast.get_source_segment(task.reference_code, node) or ""
    quotes = re.match(r"[rRuU]?(\"\"\"|\'\'\'|\"|\')", literal)
    if quotes is None:  # not a plain literal: fall back to its value
        return inspect.cleandoc(node.value).strip()
    body = literal[quotes.end() : len(literal) - len(quotes.group(1))]
    return inspect.cleandoc(body).strip()


def signature(task: Task) -> str:
    fn = entry_def(task)
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    return f"def {task.entry_point}({ast.unparse(fn.args)}){returns}"


@dataclass(frozen=True)
class Controlled:
    """The task as a session's request may show it: its behaviour, and how the function is
    introduced (a signature or words), under the session's information control."""

    description: str
    function: str


def controlled(task: Task, slots: tuple[Slot, ...], pool: SandboxPool | None = None) -> Controlled:
    """Stage 1's information control for one session (build/information.py): each example
    that shows what a convention decides is worded with the task reference's own result."""
    text = description(task)
    fn = entry_def(task)
    params = tuple(a.arg for a in fn.args.args)
    decided = Decided.of(slots)
    examples, _ = find(text, [task.entry_point], params)
    wanted = [i for i, e in enumerate(examples) if decided.touches(e) and not decided.governed(e)]
    outcomes: dict[int, object] = {}
    if wanted:
        calls = [Call(examples[i].args, examples[i].kwargs) for i in wanted]
        records = record_calls(task.reference_code, task.entry_point, calls, pool) or []
        outcomes = {
            i: r.returned for i, r in zip(wanted, records, strict=False) if r.raised is None
        }
    return Controlled(
        information.controlled(text, examples, outcomes, decided, task),
        information.function_line(task, decided, fn),
    )


def choose_cues(slots: tuple[Slot, ...], rng: random.Random) -> list[str]:
    """One cue per convention whose mechanism voices it; an empty cue means silence this time."""
    cues = []
    for slot in slots:
        options = REGISTRY[slot.family].cues
        cue = rng.choice(options) if options else ""
        if cue:
            cues.append(cue)
    return cues


def render_request(shown: Controlled, profile: Profile, cues: list[str]) -> str:
    parts = [
        profile.opening.format(task=shown.description, signature=shown.function),
        *(profile.cue.format(cue=cue) for cue in cues),
        profile.closing,
    ]
    return "\n\n".join(p for p in parts if p).strip() + "\n"


INFORMATION_CONTROL_PROMPT = """You rewrite a coding request the way one particular user would write it.

The user: {expertise} programmer, {verbosity}, tone: {tone}.

Keep, in substance, what the function must do and every example, in the form it is written
(an example written in words stays in words: it leaves open on purpose how the result is
represented). {naming}
Keep these phrases word for word; they are how this user hints at their habits: {cues}
Never mention, hint at or paraphrase any of the following. They are this user's unstated habits,
which the assistant must learn from earlier sessions or ask about:
{hidden}
Add no requirement of your own. Reply with the rewritten request only.

The request:
{request}"""


def rewrite_request(
    model: ChatModel,
    request: str,
    task: Task,
    profile: Profile,
    slots: tuple[Slot, ...],
    cues: list[str],
    hidden_tests: str,
) -> str | None:
    """Stage 1 with an LLM under the paper's information control. None when the rewrite
    breaks a rule (drops the function or a cue, or leaks): the caller keeps the template."""
    hidden = "\n".join(
        f"- {alt.statement}" for s in slots for alt in REGISTRY[s.family].alternatives
    )
    prompt = INFORMATION_CONTROL_PROMPT.format(
        expertise=profile.expertise,
        verbosity=profile.verbosity,
        tone=profile.tone,
        naming=(
            "Don't name the function; describe it as the request does."
            if Decided.of(slots).name
            else f"Name the function {task.entry_point}."
        ),
        cues="; ".join(f'"{c}"' for c in cues) or "(none)",
        hidden=hidden,
        request=request,
    )
    text = model.complete([Message(role="user", content=prompt)]).text.strip()
    lowered = text.lower()
    named = Decided.of(slots).name or task.entry_point in text
    if not text or not named or any(c.lower() not in lowered for c in cues):
        return None
    if leaks(text, slots, hidden_tests):
        return None
    return text + "\n"


def leaks(request: str, slots: tuple[Slot, ...], hidden_tests: str) -> list[str]:
    """Hidden information that shows in the request: statements, alternatives, test lines."""
    text = request.lower()
    found = [f"statement of {s.family}" for s in slots if s.statement.lower() in text]
    for slot in slots:
        for alt in REGISTRY[slot.family].alternatives:
            found += [
                f"{slot.family}/{alt.id} token {tok!r}"
                for tok in alt.secrets
                if tok.lower() in text
            ]
    found += [
        f"test line {line.strip()[:40]!r}"
        for line in hidden_tests.splitlines()
        if len(line.strip()) > 24 and line.strip().lower() in text
    ]
    return found
