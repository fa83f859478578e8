"""One session's hidden half: the composed reference, its hidden tests, and the checks
that make the session valid (the validators of DESIGN.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from capabench.build.contradictions import contradictions
from capabench.build.replay import record_calls
from capabench.conventions import REGISTRY, compose, hidden_calls
from capabench.conventions.compose import context
from capabench.conventions.hidden_tests import Case, render
from capabench.conventions.shape import Shape
from capabench.judge import judge
from capabench.judge.sandbox import SandboxPool
from capabench.records import Session


@dataclass(frozen=True)
class Hidden:
    reference: str
    entry_point: str
    tests: str


class NotApplicable(Exception):
    """These conventions can't be carried by this task (say why)."""


def make_hidden(
    shape: Shape, choices: Mapping[str, str], title: str, pool: SandboxPool | None = None
) -> Hidden:
    composed = compose(shape, choices)
    calls = hidden_calls(shape, choices)
    records = record_calls(composed.code, composed.public_name, calls, pool)
    if records is None:
        raise NotApplicable("the composed reference does not run on its hidden calls")
    cases = []
    for call, record in zip(calls, records, strict=True):
        if record.raised is not None and not call.probe:
            raise NotApplicable(
                f"the composed reference raises {record.raised} on a recorded input"
            )
        cases.append(Case(call, record.returned, record.raised))
    ctx = context(shape, choices)
    checks = [
        check
        for family_id, alt in choices.items()
        for check in REGISTRY[family_id].checks(alt, ctx)
    ]
    return Hidden(composed.code, composed.public_name, render(title, cases, checks))


def violations(session: Session, shape: Shape, pool: SandboxPool | None = None) -> list[str]:
    """Everything wrong with a session; [] when it is valid."""
    found = []
    choices = {s.family: s.alternative for s in session.slots}
    verdict = judge(session.reference, session.hidden_tests, session.entry_point, pool=pool)
    if not verdict.passed:
        found.append(
            f"{session.id}: the composed reference fails its hidden tests: {verdict.detail[:200]}"
        )
    for slot in session.slots:
        for alt in REGISTRY[slot.family].alternatives:
            if alt.id == slot.alternative:
                continue
            other = compose(shape, {**choices, slot.family: alt.id})
            if judge(other.code, session.hidden_tests, session.entry_point, pool=pool).passed:
                found.append(
                    f"{session.id}: not discriminating: {slot.family}={alt.id} also passes"
                )
        # Honouring every other convention but ignoring this one must fail too.
        rest = {f: a for f, a in choices.items() if f != slot.family}
        if judge(
            compose(shape, rest).code, session.hidden_tests, session.entry_point, pool=pool
        ).passed:
            found.append(f"{session.id}: not discriminating: {slot.family} ignored also passes")
    if judge(session.original, session.hidden_tests, session.entry_point, pool=pool).passed:
        found.append(f"{session.id}: the plain original solution passes")
    return found + contradictions(session, shape, pool)
