"""The built-in agent: a minimal shell-tool loop over any chat model (so the embedded local
model can run the whole arm), with an explicit ask channel. One action per reply: a shell
command, a question to the user, or submit."""

from __future__ import annotations

import json
import re
import time

from capabench.models import (
    PLAIN,
    ChatModel,
    InfraError,
    Message,
    ReplyOptions,
    UnknownModel,
    is_local,
    is_policy,
    make_model,
)
from capabench.swe.agents.recorder import SessionRecorder
from capabench.swe.agents.registry import RunnerOptions, register
from capabench.swe.agents.workspace import Workspace
from capabench.swe.containment import require_bwrap
from capabench.swe.swe_records import AgentSetup, AgentTask, Budget, SessionOutcome

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
# Structured actions: the same three actions as one JSON object, decoded under this schema
# where the endpoint can enforce it (llama.cpp's grammar): every reply is a valid action, so
# a small model's free-text drift can't decide whether it asks.
STRUCTURED_SYSTEM = """You are a software engineer working in a git repository; your commands run in its root.
Act by replying with exactly one JSON object per message:

{"action": "bash", "text": "ls"}                  runs a shell command in the repository; you see its output
{"action": "ask_user", "text": "your question"}   asks the user a question; you see their reply
{"action": "submit", "text": ""}                  ends the session (the changes in the repository are your result)"""
ACTION_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["bash", "ask_user", "submit"]},
        "text": {"type": "string"},
    },
    "required": ["action", "text"],
}
REMINDER = "Reply with one ```bash```, ```ask_user``` or ```submit``` block."
STRUCTURED_REMINDER = (
    'Reply with one JSON object: {"action": "bash" | "ask_user" | "submit", "text": "..."}.'
)
MAX_OUTPUT = 4000  # characters of command output per step: small models' context is short


# The canary takes three replies: a small model gets a few to spare, not thirty.
@register("", turns=Budget().turns, preflight_turns=8, takes=("structured",))
class BuiltinAgent:
    name = "builtin"

    def __init__(
        self,
        model: ChatModel,
        *,
        budget: Budget | None = None,
        command_timeout_s: float = 60.0,
        structured: bool = False,
        sandbox: bool = True,
    ) -> None:
        self.model = model
        self.budget = budget or Budget()  # turns: model replies
        self.command_timeout_s = command_timeout_s
        self.structured = structured
        self.sandbox = sandbox
        if sandbox:
            require_bwrap()

    @classmethod
    def from_options(cls, model: str, options: RunnerOptions, budget: Budget) -> BuiltinAgent:
        """Any model capabench's model layer knows (openai/<m>, local, scripted:...)."""
        if is_policy(model):
            raise ValueError(
                f"{model!r}: the reference policies play CAPA sessions, not repository issues"
            )
        try:
            chat = make_model(model, options.model)
        except UnknownModel:
            raise UnknownModel(
                f"unknown model {model!r} for the ask-or-guess arm: claude-<m> (Claude Agent SDK), gpt-<m> or "
                "codex-<m> (Codex CLI), or the built-in agent on openai/<m> (with --base-url) or local"
            ) from None
        # Local models act under a JSON schema by default: a small model's free-text choice
        # of whether to ask would differ between CPUs and llama.cpp builds.
        structured = is_local(model) if options.structured is None else options.structured
        return cls(chat, budget=budget, structured=structured, sandbox=options.sandbox)

    @property
    def ask_hint(self) -> str:
        """How this agent asks, in a form a small model can copy (the preflight's canary)."""
        if self.structured:
            return 'Your first reply must be exactly: {"action": "ask_user", "text": "What should notes.txt say?"}'
        return "Your first reply must be exactly:\n```ask_user\nWhat should notes.txt say?\n```"

    def _action(self, text: str) -> tuple[str, str] | None:
        """The reply's action (kind, body), or None when it has none."""
        if self.structured:
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                return None
            if not isinstance(data, dict) or data.get("action") not in TOOLS:
                return None
            return data["action"], str(data.get("text", "")).strip()
        match = ACTION.search(text)
        return (match.group(1), match.group(2).strip()) if match else None

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        system = STRUCTURED_SYSTEM if self.structured else SYSTEM
        messages = [
            Message(role="system", content=system),
            Message(role="user", content=task.prompt),
        ]
        decoding = "structured (JSON schema)" if self.structured else "free text"
        budget = self.budget
        setup = AgentSetup(
            containment="bwrap" if self.sandbox else "none",
            network="none" if self.sandbox else "host",  # its model calls are capabench's
            system_prompt=VERSION,
            tools_offered=TOOLS,
            budget=budget,
        )
        out = SessionOutcome(
            stop_reason="step_limit",
            tools=TOOLS,
            setup=setup,
            runner_version=f"{VERSION}; {decoding}",
        )
        record = SessionRecorder(ws, out)
        idle, deadline = 0, time.monotonic() + budget.wall_s
        for turn in range(1, budget.turns + 1):
            if time.monotonic() >= deadline:
                out.stop_reason = "time_limit"
                return out
            out.turns = turn
            try:
                # Only what is asked for goes in the call: older ChatModels still work.
                reply = self.model.complete(
                    messages, ReplyOptions(schema=ACTION_SCHEMA) if self.structured else PLAIN
                )
            except InfraError as exc:
                out.stop_reason, out.error = "error", str(exc)
                record.event("error", str(exc))
                return out
            out.input_tokens += reply.input_tokens
            out.output_tokens += reply.output_tokens
            record.model(
                reply.text, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens
            )
            messages.append(Message(role="assistant", content=reply.text))
            action = self._action(reply.text)
            if action is None:
                idle += 1
                if idle == 3:
                    out.stop_reason = "no_action"
                    return out
                reminder = STRUCTURED_REMINDER if self.structured else REMINDER
                messages.append(Message(role="user", content=reminder))
                continue
            idle = 0
            kind, body = action
            if kind == "submit":
                out.stop_reason = "completed"
                return out
            if kind == "ask_user":
                answer = record.ask(body, turn=turn, channel="ask_user action")
                if answer is None:
                    return out
                messages.append(Message(role="user", content=answer))
                continue
            left = max(1.0, deadline - time.monotonic())
            code, output = ws.run(body, min(self.command_timeout_s, left), contained=self.sandbox)
            if len(output) > MAX_OUTPUT:
                output = f"{output[: MAX_OUTPUT // 2]}\n[...]\n{output[-MAX_OUTPUT // 2 :]}"
            status = "timed out" if code is None else f"exit code {code}"
            record.command(body, exit=code, output=output)
            messages.append(Message(role="user", content=f"[{status}]\n{output}"))
        return out
