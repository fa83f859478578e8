"""The built-in agent: a minimal shell-tool loop over any chat model (so the embedded local
model can run the whole arm), with an explicit ask channel. One action per reply: a shell
command, a question to the user, or submit."""

from __future__ import annotations

import re
import time

from capabench.models import ChatModel, InfraError, Message
from capabench.swe.records import MAX_ASKS, NEUTRAL_REPLY, AgentTask, Ask, SessionOutcome
from capabench.swe.workspace import Workspace

VERSION = "builtin-1"
TOOLS = ["bash", "ask_user", "submit"]
# No checkout path in the prompt: it is a fresh temporary folder each session, and would make
# sessions irreproducible at temperature 0 and their model calls uncacheable.
SYSTEM = """You are a software engineer working in a git repository; your commands run in its root.
Act by replying with exactly one block per message; only the first block counts.

To run a shell command in the repository and see its output:
```bash
ls
```

To ask the user a question and see their reply:
```ask_user
Your question here
```

To end the session (the changes in the repository are your result):
```submit
```"""
ACTION = re.compile(r"```(bash|sh|ask_user|submit)[^\n]*\n(.*?)```", re.S)
REMINDER = "Reply with one ```bash```, ```ask_user``` or ```submit``` block."
MAX_OUTPUT = 4000  # characters of command output per step: small models' context is short


class BuiltinAgent:
    def __init__(
        self, model: ChatModel, *, steps: int = 30, command_timeout_s: float = 60.0
    ) -> None:
        self.model = model
        self.steps = steps
        self.command_timeout_s = command_timeout_s

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        messages = [Message(role="system", content=SYSTEM),
                    Message(role="user", content=task.prompt)]  # fmt: skip
        out = SessionOutcome(stop_reason="step_limit", tools=TOOLS, runner_version=VERSION)
        start, idle = ws.fingerprint(), 0

        def note(kind: str, text: str, **data) -> None:
            out.events.append({"kind": kind, "text": text, "t": round(time.time(), 3), **data})

        for turn in range(1, self.steps + 1):
            out.turns = turn
            try:
                reply = self.model.complete(messages)
            except InfraError as exc:
                out.stop_reason, out.error = "error", str(exc)
                note("error", str(exc))
                return out
            out.input_tokens += reply.input_tokens
            out.output_tokens += reply.output_tokens
            note(
                "model",
                reply.text,
                input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens,
            )
            messages.append(Message(role="assistant", content=reply.text))
            match = ACTION.search(reply.text)
            if match is None:
                idle += 1
                if idle == 3:
                    out.stop_reason = "no_action"
                    return out
                messages.append(Message(role="user", content=REMINDER))
                continue
            idle = 0
            kind, body = match.group(1), match.group(2).strip()
            if kind == "submit":
                out.stop_reason = "completed"
                return out
            if kind == "ask_user":
                answered = len(out.asks) < MAX_ASKS
                answer = NEUTRAL_REPLY if answered else None
                out.asks.append(Ask(turn=turn, question=body, answer=answer, channel="ask_user action",
                                    edited_before=ws.fingerprint() != start))  # fmt: skip
                note("ask", body, answered=answered)
                if not answered:
                    out.stop_reason = "max_ask_rounds"
                    return out
                note("answer", answer)
                messages.append(Message(role="user", content=answer))
                continue
            code, output = ws.run(body, self.command_timeout_s)
            if len(output) > MAX_OUTPUT:
                output = f"{output[: MAX_OUTPUT // 2]}\n[...]\n{output[-MAX_OUTPUT // 2 :]}"
            status = "timed out" if code is None else f"exit code {code}"
            note("command", body, exit=code, output=output)
            messages.append(Message(role="user", content=f"[{status}]\n{output}"))
        return out
