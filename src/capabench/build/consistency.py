"""Stage 3: cross-session consistency. Each resolved trace must agree with the user's
configuration and with the previously accepted trace; only an inconsistent trace is
regenerated."""

from __future__ import annotations

from capabench.conventions import REGISTRY
from capabench.records import Session


def inconsistencies(session: Session, previous: Session | None) -> list[str]:
    found = []
    trace = session.trace
    if not trace or trace[-1].role != "user" or not any(t.verdict == "passed" for t in trace):
        found.append(f"{session.id}: the trace does not end at an accepted solution")
    slots = {s.family: s for s in session.slots}
    for turn in trace:
        if turn.role != "user":
            continue
        for family in turn.revealed:
            if family not in slots:
                found.append(
                    f"{session.id}: reveals {family}, which is not one of the user's conventions"
                )
            elif slots[family].statement not in turn.text:
                found.append(f"{session.id}: the answer about {family} is not the user's statement")
        for slot in session.slots:  # another alternative's statement would contradict the user
            for alt in REGISTRY[slot.family].alternatives:
                if alt.id != slot.alternative and alt.statement in turn.text:
                    found.append(
                        f"{session.id}: states {slot.family}={alt.id}, but the user holds {slot.alternative}"
                    )
    if previous is not None:
        before = {s.family: s.statement for s in previous.slots}
        for slot in session.slots:
            if before.get(slot.family) not in (None, slot.statement):
                found.append(
                    f"{session.id}: {slot.family} differs from the previous accepted session"
                )
    return found
