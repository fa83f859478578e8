"""The Claude arm: one unattended Claude Agent SDK session in its default permission mode,
with Claude Code's own system prompt (the `claude_code` preset; `bare` is the SDK's
one-line default, kept as an option). Tool calls that would prompt a person reach the
`can_use_tool` callback, which records and approves them; AskUserQuestion calls are the ask
channel, logged in full and answered with the neutral first-option tie-break, up to the cap
(one more ends the session). No hooks, no plan mode. The CLI the SDK spawns runs inside the
sandbox (swe.containment) under an environment built from nothing, with a private config dir.
A turn is one model reply, counted from Claude Code's transcript (an empty reply yields no
SDK message); the turn budget is the CLI's --max-turns, which counts replies the same way."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Literal

import anyio

from capabench.swe.agents.claude_transcript import read_transcript
from capabench.swe.agents.recorder import SessionRecorder
from capabench.swe.agents.registry import RunnerOptions, register
from capabench.swe.agents.workspace import Workspace, agent_files, read_agent_file
from capabench.swe.containment import (
    agent_env,
    bwrap_argv,
    exec_wrapper,
    give,
    require_bwrap,
)
from capabench.swe.containment_view import base_python, install_root, interpreter_roots
from capabench.swe.egress import Relay, endpoint_of
from capabench.swe.swe_records import (
    CLI_TURNS,
    AgentSetup,
    AgentTask,
    AgentWarning,
    Budget,
    SessionOutcome,
)

SystemPrompt = Literal["preset", "bare"]
SYSTEM_PROMPTS: dict[str, dict | None] = {
    "preset": {"type": "preset", "preset": "claude_code"},  # Claude Code as people run it
    "bare": None,  # the SDK passes --system-prompt "": a one-line agent
}
UNRECOGNIZED_MODEL = "[claude-code:unrecognized_model]"
ANTHROPIC_ENDPOINT = "https://api.anthropic.com"
# Claude Code's own calls home, off by its settings (telemetry, error reports, the update
# check and every other nonessential request); whatever remains is refused by the relay.
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}


def claude_cli(sdk) -> str:
    """The SDK's bundled Claude Code, else `claude` on PATH (the SDK's own order)."""
    bundled = Path(sdk.__file__).parent / "_bundled" / "claude"
    found = str(bundled) if bundled.is_file() else shutil.which("claude")
    if not found:
        raise ValueError("Claude Code is not installed: pip install 'capabench[claude]'")
    return found


@register("claude-", takes=("system_prompt",))
class ClaudeRunner:
    name = "claude-agent-sdk"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        budget: Budget | None = None,
        sandbox: bool = True,
        system_prompt: SystemPrompt = "preset",
    ) -> None:
        try:
            import claude_agent_sdk
        except ImportError:
            raise ValueError(
                "the Claude arm needs the Claude Agent SDK: pip install 'capabench[claude]'"
            ) from None
        if system_prompt not in SYSTEM_PROMPTS:
            raise ValueError(f"system prompt {system_prompt!r}: preset or bare")
        self.sdk = claude_agent_sdk
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.budget = budget or Budget(turns=CLI_TURNS)
        self.sandbox = sandbox
        self.system_prompt = system_prompt
        self.cli = claude_cli(claude_agent_sdk)
        if sandbox:
            require_bwrap()

    @classmethod
    def from_options(cls, model: str, options: RunnerOptions, budget: Budget) -> ClaudeRunner:
        return cls(
            model,
            base_url=options.model.base_url,
            api_key=options.model.api_key,
            budget=budget,
            sandbox=options.sandbox,
            system_prompt=options.system_prompt,
        )  # type: ignore[arg-type]

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        if not self.sandbox:
            return asyncio.run(self._run(task, ws, None))
        endpoint = endpoint_of(self.base_url or ANTHROPIC_ENDPOINT)
        relay = Relay(endpoint, ws.root / "egress").start()
        try:
            return asyncio.run(self._run(task, ws, relay))
        finally:
            relay.close()

    def _cli(self, ws: Workspace, relay: Relay | None) -> Path:
        """An executable the SDK starts as its CLI: Claude Code, contained, under exactly the
        environment it needs (the SDK would hand it the host's), reaching only `relay`'s
        endpoint."""
        config = ws.home / ".claude"  # private: nothing of the operator's Claude state
        config.mkdir(exist_ok=True)
        extra = {
            **QUIET,
            "CLAUDE_CONFIG_DIR": str(config),
            "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
            "CLAUDE_AGENT_SDK_VERSION": self.sdk.__version__,
        }
        if self.base_url:
            extra["ANTHROPIC_BASE_URL"] = self.base_url
        key = (
            self.api_key
            or os.environ.get("ANTHROPIC_API_KEY")
            or ("not-needed" if self.base_url else None)
        )
        if key:
            extra["ANTHROPIC_API_KEY"] = key
        elif token := os.environ.get("CLAUDE_CODE_OAUTH_TOKEN"):
            extra["CLAUDE_CODE_OAUTH_TOKEN"] = token
        else:  # a subscription login: its credentials file only
            login = Path.home() / ".claude" / ".credentials.json"
            if login.is_file():
                shutil.copy(login, config / ".credentials.json")
        give([config])  # the sandbox user's, like the rest of its home
        path = [Path(self.cli).parent, Path(sys.executable).parent.resolve()]
        if relay is not None:
            extra |= relay.env()
        env = agent_env(home=ws.home, tmp=ws.scratch, path=path, extra=extra)
        argv = [str(Path(self.cli).resolve())]  # as it is inside (the venv may be a link)
        if relay is not None:
            prefix, python = base_python()
            expose = {install_root(self.cli), *path, *interpreter_roots(), prefix}
            argv = bwrap_argv(
                relay.wrap(argv, python),
                writable=[ws.path, ws.home, ws.scratch],
                chdir=ws.path,
                expose=expose,
                binds=relay.binds(),
            )
        return exec_wrapper(ws.root / "claude-cli", argv, env)

    async def _run(self, task: AgentTask, ws: Workspace, relay: Relay | None) -> SessionOutcome:
        sdk = self.sdk
        setup = AgentSetup(
            containment="bwrap" if self.sandbox else "none",
            network=f"{relay.report.endpoint} only" if relay else "host",
            system_prompt="claude_code preset" if self.system_prompt == "preset" else "bare",
            budget=self.budget,
        )
        out = SessionOutcome(
            stop_reason="completed",
            setup=setup,
            runner_version=f"claude-agent-sdk {sdk.__version__}",
        )
        record = SessionRecorder(ws, out)
        commands, permission_prompts = {}, []
        replies: dict[str, int] = {}  # live: message id -> reply; tool_use id -> reply
        tool_reply: dict[str, int] = {}
        stderr: list[str] = []

        def on_stderr(line: str) -> None:
            stderr.append(line)
            if UNRECOGNIZED_MODEL in line and not any(
                w.kind == "unrecognized_model" for w in out.warnings
            ):
                out.warnings.append(
                    AgentWarning(kind="unrecognized_model", text=line.strip()[:500])
                )

        async def can_use_tool(name: str, data: dict, context) -> object:
            if name != "AskUserQuestion":
                permission_prompts.append(name)
                record.event("permission", name, input=json.dumps(data)[:2000], approved=True)
                return sdk.PermissionResultAllow(updated_input=data)
            questions = [q for q in data.get("questions", []) if isinstance(q, dict)]
            asked = "\n".join(str(q.get("question", "")) for q in questions)
            # The neutral tie-break: the first option of every question; adds no task information.
            answers = {
                str(q.get("question", "")): str((q.get("options") or [{}])[0].get("label", ""))
                for q in questions
            }
            call = getattr(context, "tool_use_id", None)
            # Its reply may not have reached the stream yet: numbered for certain at the end.
            turn = tool_reply.get(str(call), max(len(replies), 1))
            said = "; ".join(f"{q}: {a}" for q, a in answers.items())
            reply = record.ask(
                asked,
                turn=turn,
                channel="AskUserQuestion",
                reply=json.dumps(answers),
                said=said,
                detection={"input": data, "tool_use_id": call},
            )
            if reply is None:
                return sdk.PermissionResultDeny(
                    message="No more questions can be answered.", interrupt=True
                )
            return sdk.PermissionResultAllow(updated_input={**data, "answers": answers})

        options = sdk.ClaudeAgentOptions(
            cwd=str(ws.path),
            model=self.model,
            permission_mode="default",
            can_use_tool=can_use_tool,
            setting_sources=[],
            cli_path=str(self._cli(ws, relay)),
            max_turns=self.budget.turns,
            system_prompt=SYSTEM_PROMPTS[self.system_prompt],
            stderr=on_stderr,
        )

        async def prompt():  # can_use_tool needs the streaming form of the prompt
            yield {"type": "user", "message": {"role": "user", "content": task.prompt}}

        stream = sdk.query(prompt=prompt(), options=options)
        try:
            # An anyio deadline, not asyncio's: the SDK shields its shutdown from anyio's
            # cancellation only.
            with anyio.move_on_after(self.budget.wall_s) as deadline:
                async for message in stream:
                    self._record(message, record, commands, replies, tool_reply)
            if deadline.cancelled_caught:
                out.stop_reason = "time_limit"
        except Exception as exc:  # the CLI died or the API failed: the session's error
            if out.stop_reason not in ("max_ask_rounds", "step_limit"):
                out.stop_reason, out.error = "error", f"{type(exc).__name__}: {exc}"[:2000]
        finally:  # a loop left early doesn't close its stream: the CLI stopped and reaped now
            with contextlib.suppress(Exception):  # its failure is the session's error, above
                await stream.aclose()
            if out.stop_reason == "time_limit":  # the SDK drops the cut pipes unclosed: closed
                gc.collect()  # while the event loop still runs, not after it (a warning)
        if relay is not None:
            record.egress(relay.close())
        record.event("permission_prompts", str(len(permission_prompts)), tools=permission_prompts)
        self._read_transcripts(ws, out, tool_reply)
        out.turns = out.turns or len(replies)
        out.files["claude-stderr.log"] = "\n".join(stderr) + "\n"
        return out

    def _read_transcripts(
        self, ws: Workspace, out: SessionOutcome, tool_reply: dict[str, int]
    ) -> None:
        """Claude Code's own transcripts (main session and subagents), kept; the main one's
        replies are the turns, its request shapes the roster offered."""
        session_id = next((e["text"] for e in out.events if e["kind"] == "session"), "")
        for file in agent_files(ws.home, ".claude/projects", ".jsonl"):
            text = read_agent_file(file).decode(errors="replace")
            out.files[f"{file.parent.name}--{file.name}"] = text
            if session_id and file.stem == session_id:
                transcript = read_transcript(text)
                out.turns = len(transcript.replies)
                if out.setup is not None:
                    out.setup.tools_offered = transcript.tools_offered
                tool_reply |= transcript.tool_reply
        for ask in out.asks:
            ask.turn = tool_reply.get(str(ask.detection.get("tool_use_id")), ask.turn)

    def _record(
        self,
        message,
        record: SessionRecorder,
        commands: dict,
        replies: dict[str, int],
        tool_reply: dict[str, int],
    ) -> None:
        sdk, out = self.sdk, record.out
        if isinstance(message, sdk.SystemMessage) and message.subtype == "init":
            out.tools = list(message.data.get("tools", []))  # the whole roster, deferred included
            record.event("session", str(message.data.get("session_id", "")))
        elif isinstance(message, sdk.AssistantMessage):
            # One model reply arrives as one message per content block: one turn, by its id.
            # A failed call (error set) is no reply; a subagent's replies aren't the session's.
            if message.error is None and message.parent_tool_use_id is None:
                key = message.message_id or f"unnamed-{len(replies)}"
                replies.setdefault(key, len(replies) + 1)
            for block in message.content:
                if isinstance(block, sdk.TextBlock):
                    record.model(block.text)
                elif isinstance(block, sdk.ToolUseBlock):
                    commands[block.id] = (block.name, block.input)
                    if message.message_id in replies:
                        tool_reply[block.id] = replies[message.message_id]
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
                    record.command(
                        str(shown), exit=1 if block.is_error else 0, output=str(content), tool=name
                    )
        elif isinstance(message, sdk.ResultMessage):
            usage = message.usage or {}
            out.input_tokens = int(usage.get("input_tokens", 0) or 0)
            out.output_tokens = int(usage.get("output_tokens", 0) or 0)
            if message.subtype == "error_max_turns":  # the turn budget (Claude Code's --max-turns)
                out.stop_reason = "step_limit"
            elif message.is_error and out.stop_reason == "completed":
                out.stop_reason, out.error = "error", str(message.result or message.subtype)[:2000]
