"""A scripted Anthropic Messages API server on 127.0.0.1, streamed as Claude Code reads it:
each agent request is answered with the content blocks a script returns (tool calls such as
`Bash`, `Write` or `AskUserQuestion`, or text). Requests that aren't the agent's own turn
(titles, summaries) get a short text. Tests point the real Claude Agent SDK at it."""

from __future__ import annotations

import json
from typing import ClassVar

from capabench.testing.scripted_stream import Reply, Script, ScriptedStreamServer

__all__ = ["FakeAnthropic", "Script", "is_agent_turn", "text", "tool", "tool_results", "user_texts"]


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool(name: str, **arguments) -> dict:
    return {"type": "tool_use", "name": name, "input": arguments}


def tool_results(body: dict) -> list[str]:
    """The results of the tools the client ran, oldest first, as text."""
    out = []
    for m in body.get("messages", []):
        for block in m.get("content", []) if isinstance(m.get("content"), list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    content = "".join(c.get("text", "") for c in content if isinstance(c, dict))
                out.append(str(content))
    return out


def user_texts(body: dict) -> list[str]:
    out = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        else:
            out += [b.get("text", "") for b in content or [] if b.get("type") == "text"]
    return out


def is_agent_turn(body: dict) -> bool:
    return any(t.get("name") == "Bash" for t in body.get("tools", []))


class FakeAnthropic(ScriptedStreamServer):
    route = "/v1/messages"
    fixed: ClassVar[dict[str, dict]] = {"/v1/messages/count_tokens": {"input_tokens": 100}}

    @property
    def base_url(self) -> str:
        return self.origin

    def answer(self, body: dict) -> list[dict]:
        return self.script(body) if is_agent_turn(body) else [text("OK")]

    def error(self, kind: str, message: str) -> dict:
        return {"type": "error", "error": {"type": kind, "message": message}}

    def send(self, reply: Reply, body: dict, blocks: list[dict], n: int) -> None:
        blocks = [
            {**b, "id": f"toolu_{n}_{k}"} if b["type"] == "tool_use" else b
            for k, b in enumerate(blocks)
        ]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        message = {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 1},
        }
        if not body.get("stream"):
            return reply.json(
                200,
                {
                    **message,
                    "content": blocks,
                    "stop_reason": stop,
                    "usage": {"input_tokens": 100, "output_tokens": 20},
                },
            )
        reply.start_events()
        reply.event(
            "message_start", {"type": "message_start", "message": {**message, "content": []}}
        )
        for k, block in enumerate(blocks):
            if block["type"] == "text":
                start, delta = (
                    {"type": "text", "text": ""},
                    {"type": "text_delta", "text": block["text"]},
                )
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            reply.event(
                "content_block_start",
                {"type": "content_block_start", "index": k, "content_block": start},
            )
            reply.event(
                "content_block_delta", {"type": "content_block_delta", "index": k, "delta": delta}
            )
            reply.event("content_block_stop", {"type": "content_block_stop", "index": k})
        reply.event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
        reply.event("message_stop", {"type": "message_stop"})
