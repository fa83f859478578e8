"""The Claude arm: one unattended Claude Agent SDK session in its default permission mode.
Tool calls that would prompt a person reach the `can_use_tool` callback, which records and
approves them; AskUserQuestion calls are the ask channel, logged in full and answered with
the neutral first-option tie-break, up to the cap (one more ends the session). No hooks, no
plan mode, no system prompt of ours; the tool roster is recorded from the session itself."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from capabench.swe.records import MAX_ASKS, AgentTask, Ask, SessionOutcome
from capabench.swe.workspace import Workspace


class ClaudeRunner:
    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 max_turns: int | None = None) -> None:  # fmt: skip
        try:
            import claude_agent_sdk
        except ImportError:
            raise ValueError(
                "the Claude arm needs the Claude Agent SDK: pip install 'capabench[claude]'"
            ) from None
        self.sdk = claude_agent_sdk
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.max_turns = max_turns

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        return asyncio.run(self._run(task, ws))

    async def _run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        sdk = self.sdk
        out = SessionOutcome(stop_reason="completed",
                             runner_version=f"claude-agent-sdk {sdk.__version__}")  # fmt: skip
        start, commands, permission_prompts = ws.fingerprint(), {}, []

        def note(kind: str, text: str, **data) -> None:
            out.events.append({"kind": kind, "text": text, "t": round(time.time(), 3), **data})

        async def can_use_tool(name: str, data: dict, context) -> object:
            if name != "AskUserQuestion":
                permission_prompts.append(name)
                note("permission", name, input=json.dumps(data)[:2000], approved=True)
                return sdk.PermissionResultAllow(updated_input=data)
            questions = [q for q in data.get("questions", []) if isinstance(q, dict)]
            asked = "\n".join(str(q.get("question", "")) for q in questions)
            # The neutral tie-break: the first option of every question; adds no task information.
            answers = {str(q.get("question", "")): str((q.get("options") or [{}])[0].get("label", ""))
                       for q in questions}  # fmt: skip
            answered = len(out.asks) < MAX_ASKS
            out.asks.append(Ask(turn=out.turns + 1, question=asked, answer=json.dumps(answers) if answered else None,
                                edited_before=ws.fingerprint() != start, channel="AskUserQuestion",
                                detection={"input": data}))  # fmt: skip
            note("ask", asked, answered=answered)
            if not answered:
                out.stop_reason = "max_ask_rounds"
                return sdk.PermissionResultDeny(
                    message="No more questions can be answered.", interrupt=True
                )
            note("answer", "; ".join(f"{q}: {a}" for q, a in answers.items()))
            return sdk.PermissionResultAllow(updated_input={**data, "answers": answers})

        env = {"DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1"}
        config = tempfile.TemporaryDirectory(prefix="capabench-claude-") if self.base_url else None
        if (
            config is not None
        ):  # a private config dir: nothing of the operator's Claude state leaks in
            env |= {"ANTHROPIC_BASE_URL": self.base_url, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "CLAUDE_CONFIG_DIR": config.name}  # fmt: skip
        key = (
            self.api_key
            or os.environ.get("ANTHROPIC_API_KEY")
            or ("not-needed" if self.base_url else None)
        )
        if key:
            env["ANTHROPIC_API_KEY"] = key
        options = sdk.ClaudeAgentOptions(
            cwd=str(ws.path), model=self.model, permission_mode="default", can_use_tool=can_use_tool,
            setting_sources=[], env=env, max_turns=self.max_turns,
        )  # fmt: skip

        async def prompt():  # can_use_tool needs the streaming form of the prompt
            yield {"type": "user", "message": {"role": "user", "content": task.prompt}}

        try:
            async for message in sdk.query(prompt=prompt(), options=options):
                self._record(message, out, commands, note)
        except Exception as exc:  # the CLI died or the API failed: the session's error
            if out.stop_reason != "max_ask_rounds":
                out.stop_reason, out.error = "error", f"{type(exc).__name__}: {exc}"[:2000]
        out.events.append({"kind": "permission_prompts", "text": str(len(permission_prompts)),
                           "tools": permission_prompts})  # fmt: skip
        session_id = next((e["text"] for e in out.events if e["kind"] == "session"), "")
        # Claude Code's own transcripts (main session and subagents), before anything prunes them.
        root = Path(config.name if config else Path.home() / ".claude") / "projects"
        for file in sorted(root.rglob("*.jsonl")) if root.is_dir() else []:
            text = file.read_text(errors="replace")
            if config is not None or (session_id and session_id in text[:4000]):
                out.files[f"{file.parent.name}--{file.name}"] = text
        if config is not None:
            config.cleanup()
        return out

    def _record(self, message, out: SessionOutcome, commands: dict, note) -> None:
        sdk = self.sdk
        if isinstance(message, sdk.SystemMessage) and message.subtype == "init":
            out.tools = list(message.data.get("tools", []))
            out.events.append({"kind": "session", "text": str(message.data.get("session_id", ""))})
        elif isinstance(message, sdk.AssistantMessage):
            out.turns += 1
            for block in message.content:
                if isinstance(block, sdk.TextBlock):
                    note("model", block.text)
                elif isinstance(block, sdk.ToolUseBlock):
                    commands[block.id] = (block.name, block.input)
        elif isinstance(message, sdk.UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, sdk.ToolResultBlock):
                    name, arguments = commands.get(block.tool_use_id, ("?", {}))
                    content = block.content
                    if isinstance(content, list):
                        content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
                    shown = (
                        arguments.get("command")
                        if name == "Bash"
                        else f"{name} {json.dumps(arguments)[:300]}"
                    )
                    note(
                        "command",
                        str(shown),
                        tool=name,
                        output=str(content),
                        exit=1 if block.is_error else 0,
                    )
        elif isinstance(message, sdk.ResultMessage):
            usage = message.usage or {}
            out.input_tokens = int(usage.get("input_tokens", 0) or 0)
            out.output_tokens = int(usage.get("output_tokens", 0) or 0)
            if message.is_error and out.stop_reason == "completed":
                out.stop_reason, out.error = "error", str(message.result or message.subtype)[:2000]
