"""Reference policies, `baseline/<name>`: fixed strategies that show what the benchmark
measures. They read only what an assistant could (the request, the dialogue, the history
context), except the oracle, which knows the hidden slots by definition."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

from capabench.conventions import REGISTRY, Shape, compose, conventions_in, cued
from capabench.history import HistoryContext
from capabench.models.spec import POLICY, is_policy, split_spec
from capabench.records import Session, Turn


@dataclass(frozen=True)
class PolicyInput:
    session: Session  # what the harness knows; policies other than the oracle use only public parts
    shape: Shape
    context: HistoryContext
    seed: int


def _submit(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def _asked_answers(turns: list[Turn]) -> dict[str, str]:
    return conventions_in("\n".join(t.text for t in turns if t.role == "user"))


class Oracle:
    completions = ()  # no model

    def __init__(self, given: PolicyInput) -> None:
        self.given = given

    def reply(self, turns: list[Turn]) -> str:
        return _submit(self.given.session.reference)


class Asker:
    """Asks about every convention family there is, then submits what the answers say."""

    completions = ()  # no model

    def __init__(self, given: PolicyInput) -> None:
        self.given = given

    def reply(self, turns: list[Turn]) -> str:
        if not any(t.role == "assistant" for t in turns):
            return "Before I start:\n" + "\n".join(f"- {f.question}" for f in REGISTRY.values())
        learned = _asked_answers(turns)
        return _submit(compose(self.given.shape, learned).code)


class Guesser:
    """Never asks: submits a random combination of alternatives, a new one after each failure.
    It is told which convention families the session has (not their alternatives), so its
    first-turn success is the chance rate of the alternatives."""

    completions = ()  # no model

    def __init__(self, given: PolicyInput) -> None:
        rng = random.Random(f"guesser:{given.seed}:{given.session.id}")
        families = sorted({s.family for s in given.session.slots})
        options = [[(f, a.id) for a in REGISTRY[f].alternatives] for f in families]
        self.combos = [dict(c) for c in itertools.product(*options)]
        rng.shuffle(self.combos)
        self.given = given

    def reply(self, turns: list[Turn]) -> str:
        tried = sum(t.role == "assistant" for t in turns)
        guess = self.combos[tried % len(self.combos)]
        return _submit(compose(self.given.shape, guess).code)


class HistoryReader:
    """Learns conventions from the statements in the history it is given and submits at once;
    asks first only about cued families the history doesn't settle. After a failure it
    stops trusting the history: it asks about everything and goes by the answers."""

    completions = ()  # no model

    def __init__(self, given: PolicyInput) -> None:
        self.given = given
        self.known = conventions_in(given.context.text)

    def reply(self, turns: list[Turn]) -> str:
        mine = [t for t in turns if t.role == "assistant"]
        answers = _asked_answers(turns)
        failed = any(t.verdict not in (None, "passed") for t in mine)
        asked_all = any(t.text.startswith(_ASK_ALL) for t in mine)
        if failed and not asked_all:
            return _ASK_ALL + "\n" + "\n".join(f"- {f.question}" for f in REGISTRY.values())
        if not mine:
            unsettled = [f for f in cued(self.given.session.request) if f not in self.known]
            if unsettled:
                return "Before I start:\n" + "\n".join(
                    f"- {REGISTRY[f].question}" for f in unsettled
                )
        learned = answers if asked_all else {**self.known, **answers}
        applicable = {f: a for f, a in learned.items() if REGISTRY[f].applies(self.given.shape)}
        return _submit(compose(self.given.shape, applicable).code)


_ASK_ALL = "That didn't fit your setup. Let me check everything:"


POLICIES: dict[str, Callable[[PolicyInput], object]] = {
    "oracle": Oracle,
    "asker": Asker,
    "guesser": Guesser,
    "history-reader": HistoryReader,
}


def policy(spec: str) -> Callable[[PolicyInput], object]:
    """The policy a `baseline/<name>` spec names."""
    name = split_spec(spec)[1]
    if not is_policy(spec) or name not in POLICIES:
        known = ", ".join(f"{POLICY}/{n}" for n in POLICIES)
        raise ValueError(f"unknown baseline {spec!r}; known: {known}")
    return POLICIES[name]
