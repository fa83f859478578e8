"""The GPT arm: the stock Codex CLI (`codex exec --json`), its most vanilla configuration.
Its only ask channel is ending a turn with a question in the final message: each turn's
final message goes through the ask classifier (zero-edit gate, then the regex layer); an ask
is answered with the neutral reply through `codex exec resume`, up to the cap."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from capabench.swe.ask_detection import classifier
from capabench.swe.records import MAX_ASKS, NEUTRAL_REPLY, AgentTask, Ask, SessionOutcome
from capabench.swe.workspace import Workspace

MIN_VERSION = (0, 146, 0)  # older CLIs are rejected server-side for gpt-5.6 models


def codex_binary() -> str:
    """`$CAPABENCH_CODEX`, else `codex` on PATH, else the one scripts/setup.sh installs."""
    local = (
        Path(__file__).resolve().parents[3] / ".tools" / "codex" / "node_modules" / ".bin" / "codex"
    )
    found = (
        os.environ.get("CAPABENCH_CODEX")
        or shutil.which("codex")
        or (str(local) if local.exists() else None)
    )
    if not found:
        raise ValueError(
            "the Codex CLI is not installed: npm install -g @openai/codex (or set CAPABENCH_CODEX)"
        )
    return found


def codex_version(binary: str) -> tuple[int, ...]:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60).stdout
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if not match:
        raise ValueError(f"could not read the Codex CLI version from {out!r}")
    return tuple(int(x) for x in match.groups())


class CodexRunner:
    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 binary: str | None = None, turn_timeout_s: float = 3600.0) -> None:  # fmt: skip
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.binary = binary or codex_binary()
        self.version = codex_version(self.binary)
        if self.version < MIN_VERSION:
            raise ValueError(f"codex-cli {'.'.join(map(str, self.version))} is older than "
                             f"{'.'.join(map(str, MIN_VERSION))}: npm install -g @openai/codex@latest")  # fmt: skip
        self.turn_timeout_s = turn_timeout_s

    def _common(self) -> list[str]:
        # No user config or rules; full access for parity with the Claude arm's approving callback.
        args = ["--json", "--ignore-user-config", "--ignore-rules", "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox", "-m", self.model]  # fmt: skip
        if self.base_url:
            provider = (f'{{name="capabench", base_url="{self.base_url}", '
                        f'env_key="CAPABENCH_CODEX_KEY", wire_api="responses"}}')  # fmt: skip
            args += [
                "-c",
                'model_provider="capabench"',
                "-c",
                f"model_providers.capabench={provider}",
            ]
        return args

    def run(self, task: AgentTask, ws: Workspace) -> SessionOutcome:
        version = ".".join(map(str, self.version))
        out = SessionOutcome(stop_reason="completed", tools=["codex exec (stock tools)"],
                             runner_version=f"codex-cli {version}; classifier {classifier().version}")  # fmt: skip
        env = dict(os.environ)
        home = None
        if self.base_url:  # a private home: nothing of the operator's Codex state leaks in
            home = tempfile.TemporaryDirectory(prefix="capabench-codex-home-")
            env["CODEX_HOME"] = home.name
            env["CAPABENCH_CODEX_KEY"] = self.api_key or "not-needed"
        try:
            thread, start, reply = None, ws.fingerprint(), None
            while True:
                before = ws.fingerprint()
                argv = [self.binary, "exec", *self._common(), task.prompt] if thread is None else \
                    [self.binary, "exec", "resume", *self._common(), thread, reply]  # fmt: skip
                try:
                    proc = subprocess.run(argv, cwd=ws.path, env=env, capture_output=True, text=True,
                                          stdin=subprocess.DEVNULL, timeout=self.turn_timeout_s)  # fmt: skip
                except subprocess.TimeoutExpired:
                    out.stop_reason, out.error = (
                        "error",
                        f"a turn ran past {self.turn_timeout_s:.0f} s",
                    )
                    return out
                out.turns += 1
                started, final, edited, failed = self._read_turn(proc.stdout, out)
                thread = thread or started
                if proc.returncode != 0 or failed or not thread:
                    out.stop_reason = "error"
                    out.error = (
                        failed or proc.stderr.strip()[-500:] or f"codex exited {proc.returncode}"
                    )
                    return out
                edited = edited or ws.fingerprint() != before
                detection = classifier().classify(final, edited=edited)
                out.events.append({"kind": "final", "text": final, "edited": edited,
                                   "detection": detection.model_dump()})  # fmt: skip
                if not detection.asked:
                    return out
                answered = len(out.asks) < MAX_ASKS
                out.asks.append(Ask(turn=out.turns, question=final, answer=NEUTRAL_REPLY if answered else None,
                                    edited_before=ws.fingerprint() != start, channel="final message",
                                    detection=detection.model_dump()))  # fmt: skip
                if not answered:
                    out.stop_reason = "max_ask_rounds"
                    return out
                reply = NEUTRAL_REPLY
                out.events.append({"kind": "answer", "text": reply})
        finally:
            if home is not None:  # its rollout files are the session's own record: keep them
                sessions = Path(home.name) / "sessions"
                for file in sorted(sessions.rglob("*.jsonl")) if sessions.is_dir() else []:
                    out.files[file.name] = file.read_text(errors="replace")
                home.cleanup()

    def _read_turn(self, stdout: str, out: SessionOutcome) -> tuple[str | None, str, bool, str]:
        """(the thread id, the turn's final message, whether it changed files, why it failed
        or ''), with every event kept raw and the trace normalized for the dashboard."""
        thread, final, edited, failed = None, "", False, ""  # the final message: added by run()
        for line in stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            out.events.append({"kind": "codex", "event": event})
            kind, item = event.get("type"), event.get("item") or {}
            if kind == "thread.started":
                thread = event.get("thread_id")
            elif kind == "item.completed" and item.get("type") == "agent_message":
                if final:  # an earlier message of the turn: commentary, never the ask channel
                    out.events.append({"kind": "model", "text": final})
                final = item.get("text", "")
            elif kind == "item.completed" and item.get("type") == "command_execution":
                out.events.append({"kind": "command", "text": item.get("command", ""),
                                   "exit": item.get("exit_code"), "output": item.get("aggregated_output", "")})  # fmt: skip
            elif kind == "item.completed" and item.get("type") == "file_change":
                edited = True
                paths = [c.get("path", "") for c in item.get("changes", [])]
                out.events.append({"kind": "file_change", "text": ", ".join(paths)})
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
                out.input_tokens += usage.get("input_tokens", 0)
                out.output_tokens += usage.get("output_tokens", 0)
            elif kind == "turn.failed":
                failed = (event.get("error") or {}).get("message", "turn failed")
        return thread, final, edited, failed
