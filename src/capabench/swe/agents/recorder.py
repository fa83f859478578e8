"""What every agent runner is (`AgentRunner`), and the one way a runner keeps its session
(`SessionRecorder`): events of the kinds the readers know, and asks under one rule, the same
in every arm: at most MAX_ASKS answered with the neutral reply, one more ends the session,
and asks the harness refused don't count toward the cap."""

from __future__ import annotations

import time
from typing import Protocol

from capabench.swe.agents.workspace import Workspace
from capabench.swe.swe_records import AgentTask, Ask, EventKind, SessionOutcome

NEUTRAL_REPLY = "Go with the first option you presented."  # adds no task information
MAX_ASKS = 3  # asks answered per session; one more ends it (max_ask_rounds)


class AgentRunner(Protocol):
    """Plays one session in a workspace. Built by its registration (agents.registry) from
    the model slug and the run's options; `name` is recorded with every run. It may have an
    `ask_hint`: how it asks, in a form its model can copy (the preflight's canary)."""

    name: str

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome: ...


class SessionRecorder:
    """One session's outcome as it happens. Created when the session starts: whether the
    agent had edited anything when it asked is measured against the workspace then."""

    def __init__(self, ws: Workspace, outcome: SessionOutcome) -> None:
        self.ws = ws
        self.out = outcome
        self.start = ws.fingerprint()

    def edited(self) -> bool:
        """The workspace has changed since the session started, by any means."""
        return self.ws.fingerprint() != self.start

    def event(self, kind: str, text: str | None = None, **data) -> None:
        """An event of the stream: {"kind", "text", "t", ...}; `text` None leaves it out (a
        runner's raw records)."""
        entry: dict = {"kind": str(kind)}
        if text is not None:
            entry["text"] = text
        self.out.events.append({**entry, "t": round(time.time(), 3), **data})

    def egress(self, report) -> None:
        """What the sandbox's network relay let through and refused (swe.egress)."""
        refused = ", ".join(f"{t} x{n}" for t, n in sorted(report.refused.items())) or "nothing"
        self.event(
            "egress",
            f"{report.allowed} connection(s) to {report.endpoint}; refused: {refused}",
            allowed=report.allowed,
            refused=report.refused,
        )

    def model(self, text: str, **data) -> None:
        self.event(EventKind.MODEL, text, **data)

    def command(self, text: str, *, exit: int | None, output: str, **data) -> None:
        self.event(EventKind.COMMAND, text, exit=exit, output=output, **data)

    def final(self, text: str, **data) -> None:
        self.event(EventKind.FINAL, text, **data)

    def ask(
        self,
        question: str,
        *,
        turn: int,
        channel: str,
        reply: str = NEUTRAL_REPLY,
        said: str | None = None,
        detection: dict | None = None,
        edited_before: bool | None = None,
        in_stream: bool = False,
    ) -> str | None:
        """Record an ask; the reply to give the agent, or None when it is over the cap (the
        session then ends: max_ask_rounds). `said`: the answer as the trace shows it, when
        the reply is structured (Claude's answers per question); `in_stream`: the question is
        already an event (a final message), so no ask event is added."""
        answered = sum(not a.refused for a in self.out.asks) < MAX_ASKS
        edited = self.edited() if edited_before is None else edited_before
        self.out.asks.append(
            Ask(
                turn=turn,
                question=question,
                answer=reply if answered else None,
                edited_before=edited,
                channel=channel,
                detection=detection or {},
            )
        )
        if not in_stream:
            self.event(EventKind.ASK, question, answered=answered)
        if not answered:
            self.out.stop_reason = "max_ask_rounds"
            return None
        self.event(EventKind.ANSWER, reply if said is None else said)
        return reply

    def refused_ask(
        self,
        question: str,
        *,
        turn: int,
        channel: str,
        edited_before: bool,
        detection: dict,
        refusal: str,
    ) -> None:
        """An ask through a tool the harness refused: counted as asked, never answered, and
        no part of the cap."""
        self.out.asks.append(
            Ask(
                turn=turn,
                question=question,
                answer=None,
                edited_before=edited_before,
                channel=channel,
                refused=True,
                detection=detection,
            )
        )
        self.event(EventKind.REFUSED_ASK, question, output=refusal, channel=channel)
