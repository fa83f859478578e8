"""What the Codex CLI says about a session outside its --json stream: the requests it sends
(logged on stderr at trace level by its HTTP transport: the tool roster the model was
offered, one line per model request), its rollout files (every model reply, and the
`request_user_input` calls it refuses in exec mode, which never reach the stream), and its
warning that it runs an unknown model slug on fallback metadata (a reduced tool set)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from capabench.swe.agents.workspace import agent_files, read_agent_file
from capabench.swe.swe_records import AgentWarning

# Trace only for the HTTP client: each request (its body: the tools offered) and each
# response's status (Codex replaces an error's own message with a generic one); the CLI's
# warnings and errors kept.
LOG_FILTER = "warn,codex_http_client=trace"
_POST = re.compile(r"codex_http_client::transport: POST to (\S+): (\{.*)$")
_STATUS = re.compile(r"Request completed method=\S+ url=(\S+) status=(\d{3}[^=]*?) headers=")
_FALLBACK = re.compile(r"Model metadata for .{0,200}? not found|fallback metadata")
ASK_TOOL = "request_user_input"


def read_request(line: str) -> tuple[str, list[str]] | None:
    """(the line with the request body left out, the tool names it offered), for a line
    that logs a model request; None for any other line."""
    match = _POST.search(line)
    if not match:
        return None
    body = match.group(2)
    try:
        tools = json.loads(body).get("tools") or []
    except ValueError:
        tools = []
    names = [str(t.get("name") or t.get("type") or "?") for t in tools if isinstance(t, dict)]
    kept = (
        f"{line[: match.start(2)]}<request body, {len(body)} characters; tools: {', '.join(names)}>"
    )
    return kept, names


def http_failure(lines: list[str]) -> str:
    """The last failed HTTP response the CLI logged, e.g. 'HTTP 500 Internal Server Error
    from <url>', or ''."""
    for line in reversed(lines):
        match = _STATUS.search(line)
        if match and not match.group(2).startswith(("2", "1")):
            return f"HTTP {match.group(2).strip()} from {match.group(1)}"
    return ""


def fallback_warning(text: str) -> AgentWarning | None:
    """Codex running a model it has no metadata for (from an error item or stderr)."""
    if _FALLBACK.search(text):
        return AgentWarning(kind="fallback_model_metadata", text=text.strip()[:500])
    return None


class ReplyCounter:
    """Model replies so far, read live from the rollout files as they grow (each reply has
    one token-usage record): the turn budget counts replies, not retried requests."""

    def __init__(self, home: Path, sessions: str = ".codex/sessions") -> None:
        self.home = home  # the agent's: read without following its links
        self.sessions = sessions
        self.read: dict[Path, int] = {}
        self.partial: dict[Path, bytes] = {}
        self.responses: set[str] = set()

    def __call__(self) -> int:
        for file in agent_files(self.home, self.sessions, ".jsonl"):
            chunk = read_agent_file(file, self.read.get(file, 0))
            data = self.partial.get(file, b"") + chunk
            self.read[file] = self.read.get(file, 0) + len(chunk)
            *lines, self.partial[file] = data.split(b"\n")
            for line in lines:
                if b'"token_usage_record"' in line:
                    try:
                        payload = json.loads(line).get("payload") or {}
                    except ValueError:
                        continue
                    self.responses.add(str(payload.get("response_id") or len(self.responses)))
        return len(self.responses)


class RolloutCall(BaseModel):
    reply: int  # the model reply (1-based) that made the call
    name: str
    arguments: dict
    output: str  # what the CLI answered the model


class Rollout(BaseModel):
    replies: int  # model replies (each has its token-usage record)
    asks: list[RolloutCall]  # request_user_input calls


def read_rollouts(texts: list[str]) -> Rollout:
    """The session's replies and ask-tool calls, from its rollout files in order."""
    responses: set[str] = set()
    calls: dict[str, RolloutCall] = {}
    for text in texts:
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            kind, payload = entry.get("type"), entry.get("payload") or {}
            if kind == "token_usage_record":
                responses.add(str(payload.get("response_id") or len(responses)))
            elif kind == "response_item" and payload.get("type") == "function_call":
                if payload.get("name") == ASK_TOOL:
                    try:
                        arguments = json.loads(payload.get("arguments") or "{}")
                    except ValueError:
                        arguments = {"raw": payload.get("arguments")}
                    calls[str(payload.get("call_id"))] = RolloutCall(
                        reply=len(responses) + 1, name=ASK_TOOL, arguments=arguments, output=""
                    )
            elif kind == "response_item" and payload.get("type") == "function_call_output":
                call = calls.get(str(payload.get("call_id")))
                if call is not None:
                    output = payload.get("output")
                    call.output = output if isinstance(output, str) else json.dumps(output)
    return Rollout(replies=len(responses), asks=list(calls.values()))


def question_text(arguments: dict) -> str:
    """The questions of a request_user_input call, one per line."""
    questions = arguments.get("questions")
    if isinstance(questions, list):
        found = [str(q.get("question", "")) for q in questions if isinstance(q, dict)]
        if any(found):
            return "\n".join(found)
    return json.dumps(arguments)
