"""The GPT arm: the stock Codex CLI (`codex exec --json`, found by agents.codex_cli), its
most vanilla configuration, inside the sandbox (swe.containment) with a private CODEX_HOME. Its
answerable ask channel is ending a turn with a question in the final message: each turn's
final message goes through the ask classifier (v2 by default; an LLM judge beside it, or
deciding, when configured); an ask is answered with the neutral reply through `codex exec
resume`, up to the cap. Its ask tool, `request_user_input`, is refused by the CLI in exec
mode: each call, read from the rollout, is an ask through a refused channel (asked, never
answered). A turn is one model reply (the rollout's token-usage
records); the session's budget stops the CLI before a reply beyond it, or at its deadline."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from capabench.swe.agents.codex_cli import check_version, codex_binary, codex_version
from capabench.swe.agents.codex_logs import (
    ASK_TOOL,
    LOG_FILTER,
    ReplyCounter,
    fallback_warning,
    http_failure,
    question_text,
    read_request,
    read_rollouts,
)
from capabench.swe.agents.process import supervise
from capabench.swe.agents.recorder import SessionRecorder
from capabench.swe.agents.registry import RunnerOptions, register
from capabench.swe.agents.workspace import Workspace, agent_files, read_agent_file
from capabench.swe.asks.detection import classifier
from capabench.swe.asks.verdict import AskClassifier
from capabench.swe.containment import (
    agent_env,
    bwrap_argv,
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

REFUSED_CHANNEL = f"{ASK_TOOL} (refused)"
# The CLI's own calls home, switched off where it has a setting (its update check, analytics,
# feedback upload, plugin and marketplace sync); whatever remains is refused by the relay.
QUIET = (
    "check_for_update_on_startup=false",
    "analytics.enabled=false",
    "feedback.enabled=false",
    "features.plugins=false",
    "features.apps=false",
)
OPENAI_ENDPOINT = "https://api.openai.com/v1"
CHATGPT_ENDPOINT = "https://chatgpt.com/backend-api/codex"


@register("gpt-", "codex-", takes=("ask_judge", "judge_decides"))
class CodexRunner:
    name = "codex-cli"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        binary: str | None = None,
        budget: Budget | None = None,
        sandbox: bool = True,
        ask_judge: AskClassifier | None = None,
        judge_decides: bool = False,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.binary = binary or codex_binary()
        self.version = codex_version(self.binary)
        check_version(self.version)
        self.budget = budget or Budget(turns=CLI_TURNS)
        self.ask_judge = ask_judge  # its verdict recorded beside the classifier's,
        self.judge_decides = judge_decides  # ... or deciding whether the agent asked
        self.sandbox = sandbox
        if sandbox:
            require_bwrap()

    @classmethod
    def from_options(cls, model: str, options: RunnerOptions, budget: Budget) -> CodexRunner:
        return cls(
            model,
            base_url=options.model.base_url,
            api_key=options.model.api_key,
            budget=budget,
            sandbox=options.sandbox,
            ask_judge=options.ask_judge,
            judge_decides=options.judge_decides,
        )

    def _common(self) -> list[str]:
        # No user config or rules; full access inside our sandbox, for parity with the Claude
        # arm's approving callback (Codex's own sandbox would stand in for ours, not add to it).
        args = [
            "--json",
            "--ignore-user-config",
            "--ignore-rules",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-m",
            self.model,
        ]
        for setting in QUIET:
            args += ["-c", setting]
        if self.base_url:
            provider = (
                f'{{name="capabench", base_url="{self.base_url}", '
                f'env_key="CAPABENCH_CODEX_KEY", wire_api="responses"}}'
            )
            args += [
                "-c",
                'model_provider="capabench"',
                "-c",
                f"model_providers.capabench={provider}",
            ]
        return args

    def _env(self, ws: Workspace) -> tuple[dict[str, str], list[Path]]:
        """The CLI's whole environment (a private CODEX_HOME, its key, nothing of the host's)
        and the PATH it gets."""
        codex_home = ws.home / ".codex"
        codex_home.mkdir(exist_ok=True)
        extra = {"CODEX_HOME": str(codex_home), "RUST_LOG": LOG_FILTER}
        if self.base_url:
            extra["CAPABENCH_CODEX_KEY"] = self.api_key or "not-needed"
        elif key := (
            self.api_key or os.environ.get("CODEX_API_KEY") or os.environ.get("OPENAI_API_KEY")
        ):
            extra |= {"CODEX_API_KEY": key, "OPENAI_API_KEY": key}
        else:  # a ChatGPT login: its credentials file, and nothing else of the operator's state
            host = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "auth.json"
            if host.is_file():
                shutil.copy(host, codex_home / "auth.json")
        node = shutil.which("node")
        path = [
            Path(self.binary).parent,
            *([Path(node).parent] if node else []),
            Path(sys.executable).parent.resolve(),
        ]
        give([codex_home])  # the sandbox user's, like the rest of its home
        return agent_env(home=ws.home, tmp=ws.scratch, path=path, extra=extra), path

    def _endpoint(self, env: dict[str, str]) -> str:
        """The one destination the CLI may reach: its provider's base URL, else OpenAI's API
        (with a key) or ChatGPT's backend (a ChatGPT login)."""
        if self.base_url:
            return self.base_url
        return OPENAI_ENDPOINT if "CODEX_API_KEY" in env else CHATGPT_ENDPOINT

    def _contain(
        self, argv: list[str], ws: Workspace, path: list[Path], relay: Relay | None
    ) -> list[str]:
        if relay is None:
            return argv
        node = shutil.which("node")
        expose = {install_root(self.binary), *path, *interpreter_roots()}
        if node:
            expose.add(Path(node).resolve().parent.parent)
        prefix, python = base_python()
        return bwrap_argv(
            relay.wrap(argv, python),
            writable=[ws.path, ws.home, ws.scratch],
            chdir=ws.path,
            expose={*expose, prefix},
            binds=relay.binds(),
        )

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        version = ".".join(map(str, self.version))
        setup = AgentSetup(
            containment="bwrap" if self.sandbox else "none",
            system_prompt="codex default",
            budget=self.budget,
        )
        out = SessionOutcome(
            stop_reason="completed",
            tools=["codex exec (stock tools)"],
            setup=setup,
            runner_version=f"codex-cli {version}; classifier {classifier().version}",
        )
        env, path = self._env(ws)
        relay = None
        if self.sandbox:
            relay = Relay(endpoint_of(self._endpoint(env)), ws.root / "egress").start()
            env |= relay.env()
            setup.network = f"{relay.report.endpoint} only"
        else:
            setup.network = "host"
        deadline = time.monotonic() + self.budget.wall_s
        stderr: list[str] = []
        replies = ReplyCounter(ws.home)
        record, thread, reply = SessionRecorder(ws, out), None, None
        try:
            while True:
                before = ws.fingerprint()
                argv = (
                    [self.binary, "exec", *self._common(), task.prompt]
                    if thread is None
                    else [self.binary, "exec", "resume", *self._common(), thread, reply]
                )
                stderr.append(f"=== {'exec' if thread is None else 'exec resume'}")

                def on_stderr(line: str) -> bool:
                    request = read_request(line)
                    if request is None:
                        stderr.append(line)
                        if warning := fallback_warning(line):
                            self._warn(out, warning)
                        return False
                    stderr.append(request[0])
                    offered = setup.tools_offered
                    offered += [t for t in request[1] if t not in offered]
                    return replies() >= self.budget.turns  # this request's reply is over budget

                done = supervise(
                    self._contain(argv, ws, path, relay),
                    cwd=ws.path,
                    env=env,
                    deadline=deadline,
                    on_stderr=on_stderr,
                )
                started, final, edited, failed = self._read_turn(done.stdout, record)
                thread = thread or started
                self._read_rollouts(ws, record, edited_before=before != record.start)
                if done.stopped:
                    out.stop_reason = done.stopped  # type: ignore[assignment]
                    return out
                if done.returncode != 0 or failed or not thread:
                    out.stop_reason = "error"
                    tail = "\n".join(stderr[-20:]).strip()[-500:]
                    out.error = failed or tail or f"codex exited {done.returncode}"
                    if http := http_failure(stderr):  # the cause Codex's message leaves out
                        out.error += f" ({http}; the CLI's stderr is kept beside the run)"
                    return out
                edited = edited or ws.fingerprint() != before
                detection = classifier().classify(final, edited=edited)
                verdicts = {"detection": detection.model_dump()}
                if self.ask_judge is not None:
                    judged = self.ask_judge.classify(final, edited=edited)
                    verdicts["judge"] = judged.model_dump()
                    detection = judged if self.judge_decides else detection
                record.final(final, edited=edited, **verdicts)
                if not detection.asked:
                    return out
                reply = record.ask(
                    final,
                    turn=out.turns,
                    channel="final message",
                    detection=detection.model_dump(),
                    in_stream=True,
                )
                if reply is None:
                    return out
        finally:
            if relay is not None:
                record.egress(relay.close())
            out.asks.sort(key=lambda a: a.turn)  # refused asks are read after their invocation
            out.tools = setup.tools_offered or out.tools
            out.files["codex-stderr.log"] = "\n".join(stderr) + "\n"
            # The rollout files are the session's own record: kept.
            for file in self._rollout_files(ws):
                out.files[file.name] = read_agent_file(file).decode(errors="replace")

    @staticmethod
    def _warn(out: SessionOutcome, warning: AgentWarning) -> None:
        """Once per kind: every resumed invocation says it again."""
        if all(w.kind != warning.kind for w in out.warnings):
            out.warnings.append(warning)

    @staticmethod
    def _rollout_files(ws: Workspace) -> list[Path]:
        return agent_files(ws.home, ".codex/sessions", ".jsonl")

    def _read_rollouts(
        self, ws: Workspace, record: SessionRecorder, *, edited_before: bool
    ) -> None:
        """The replies so far (the turn count), and the invocation's refused ask-tool calls."""
        out = record.out
        rollout = read_rollouts(
            [read_agent_file(f).decode(errors="replace") for f in self._rollout_files(ws)]
        )
        seen = out.turns
        out.turns = rollout.replies
        for call in rollout.asks:
            if call.reply <= seen:
                continue  # an earlier invocation's
            # Edited before: as far as known (the workspace at the invocation's start).
            record.refused_ask(
                question_text(call.arguments),
                turn=call.reply,
                channel=REFUSED_CHANNEL,
                edited_before=edited_before,
                refusal=call.output,
                detection={"arguments": call.arguments, "refusal": call.output},
            )

    def _read_turn(self, stdout: str, record: SessionRecorder) -> tuple[str | None, str, bool, str]:
        """(the thread id, the turn's final message, whether it changed files, why it failed
        or ''), with every event kept raw and the trace normalized for the dashboard."""
        out = record.out
        thread, final, edited, failed = None, "", False, ""  # the final message: added by run()
        for line in stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            record.event("codex", event=event)
            kind, item = event.get("type"), event.get("item") or {}
            if kind == "thread.started":
                thread = event.get("thread_id")
            elif kind == "item.completed" and item.get("type") == "agent_message":
                if final:  # an earlier message of the turn: commentary, never the ask channel
                    record.model(final)
                final = item.get("text", "")
            elif kind == "item.completed" and item.get("type") == "command_execution":
                record.command(
                    item.get("command", ""),
                    exit=item.get("exit_code"),
                    output=item.get("aggregated_output", ""),
                )
            elif kind == "item.completed" and item.get("type") == "file_change":
                edited = True
                paths = [c.get("path", "") for c in item.get("changes", [])]
                record.event("file_change", ", ".join(paths))
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
                out.input_tokens += usage.get("input_tokens", 0)
                out.output_tokens += usage.get("output_tokens", 0)
            elif kind == "item.completed" and item.get("type") == "error":
                if warning := fallback_warning(str(item.get("message", ""))):
                    self._warn(out, warning)
            elif kind == "turn.failed":
                failed = (event.get("error") or {}).get("message", "turn failed")
        return thread, final, edited, failed
