"""What Claude Code's own session transcript says that its SDK stream doesn't: every model
reply (an empty one yields no SDK message but is a reply, and a turn), which reply made
each tool call, and the tool roster each request offered (its `api-request-shape` entries:
the names the model saw, where the SDK's init message lists every tool, deferred included)."""

from __future__ import annotations

import json

from pydantic import BaseModel


class Transcript(BaseModel):
    replies: list[str] = []  # the main session's assistant message ids, in order
    tool_reply: dict[str, int] = {}  # tool_use id -> the reply (1-based) that made the call
    tools_offered: list[str] = []  # every tool name a request offered, first seen first


def read_transcript(text: str) -> Transcript:
    out = Transcript()
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("isSidechain"):
            continue  # a subagent's: its replies are not the session's turns
        if entry.get("type") == "api-request-shape":
            tools = (entry.get("shape") or {}).get("tools") or []
            names = [str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("name")]
            out.tools_offered += [n for n in names if n not in out.tools_offered]
        elif entry.get("type") == "assistant":
            message = entry.get("message") or {}
            synthetic = entry.get("isApiErrorMessage") or message.get("model") == "<synthetic>"
            if synthetic or not message.get("id"):
                continue  # a failed call, synthesized by the CLI: not a model reply
            if message["id"] not in out.replies:
                out.replies.append(message["id"])
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    out.tool_reply[str(block.get("id"))] = out.replies.index(message["id"]) + 1
    return out
