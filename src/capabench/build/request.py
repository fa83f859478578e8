"""Stage 1: the initial request, in the user's voice. It states the task's behaviour and
leaves the conventions to cues or to silence, as their mechanisms dictate."""

from __future__ import annotations

import ast
import inspect
import random
import re

from capabench.conventions import REGISTRY
from capabench.conventions.shape import entry_def
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


def choose_cues(slots: tuple[Slot, ...], rng: random.Random) -> list[str]:
    """One cue per convention whose mechanism voices it; an empty cue means silence this time."""
    cues = []
    for slot in slots:
        options = REGISTRY[slot.family].cues
        cue = rng.choice(options) if options else ""
        if cue:
            cues.append(cue)
    return cues


def render_request(task: Task, profile: Profile, cues: list[str]) -> str:
    parts = [
        profile.opening.format(task=description(task), signature=signature(task)),
        *(profile.cue.format(cue=cue) for cue in cues),
        profile.closing,
    ]
    return "\n\n".join(p for p in parts if p).strip() + "\n"


INFORMATION_CONTROL_PROMPT = """You rewrite a coding request the way one particular user would write it.

The user: {expertise} programmer, {verbosity}, tone: {tone}.

Keep, in substance, what the function must do and its examples, and name the function {name}.
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
        name=task.entry_point,
        cues="; ".join(f'"{c}"' for c in cues) or "(none)",
        hidden=hidden,
        request=request,
    )
    text = model.complete([Message(role="user", content=prompt)]).text.strip()
    lowered = text.lower()
    if not text or task.entry_point not in text or any(c.lower() not in lowered for c in cues):
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
