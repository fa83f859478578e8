"""Stage 1: the initial request, in the user's voice. It states the task's behaviour and
leaves the conventions to cues or to silence, as their mechanisms dictate."""

from __future__ import annotations

import ast
import random

from capabench.conventions import REGISTRY
from capabench.conventions.shape import entry_def
from capabench.records import Profile, Slot, Task


def description(task: Task) -> str:
    doc = ast.get_docstring(entry_def(task), clean=True)
    return doc.strip() if doc else f"Implement {task.entry_point}."


def signature(task: Task) -> str:
    fn = entry_def(task)
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    return f"def {task.entry_point}({ast.unparse(fn.args)}){returns}"


def render_request(
    task: Task, profile: Profile, slots: tuple[Slot, ...], rng: random.Random
) -> str:
    cues = []
    for slot in slots:
        options = REGISTRY[slot.family].cues
        cue = rng.choice(options) if options else ""
        if cue:  # an empty cue: this time the user says nothing about it
            cues.append(profile.cue.format(cue=cue))
    parts = [
        profile.opening.format(task=description(task), signature=signature(task)),
        *cues,
        profile.closing,
    ]
    return "\n\n".join(p for p in parts if p).strip() + "\n"


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
