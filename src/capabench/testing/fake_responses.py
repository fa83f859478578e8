"""A scripted OpenAI Responses API server on 127.0.0.1 (streamed, as the Codex CLI reads it):
each request is answered with the output items a script returns for it (function calls such
as `exec_command`, or an assistant message). Tests point the real Codex CLI at it."""

from __future__ import annotations

import json

from capabench.testing.scripted_stream import Reply, Script, ScriptedStreamServer

__all__ = ["FakeResponses", "Script", "call", "message", "shell", "tool_outputs", "user_texts"]


def message(text: str) -> dict:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def call(name: str, **arguments) -> dict:
    """A function call to any tool the CLI offers (e.g. `request_user_input`)."""
    return {"type": "function_call", "name": name, "arguments": json.dumps(arguments)}


def shell(command: str) -> dict:
    return call("exec_command", cmd=command)


def tool_outputs(body: dict) -> list[str]:
    """The outputs of the function calls the client ran, oldest first."""
    return [
        str(i.get("output", ""))
        for i in body.get("input", [])
        if i.get("type") == "function_call_output"
    ]


def user_texts(body: dict) -> list[str]:
    return [
        c.get("text", "")
        for i in body.get("input", [])
        if i.get("type") == "message" and i.get("role") == "user"
        for c in i.get("content", [])
        if isinstance(c, dict)
    ]


class FakeResponses(ScriptedStreamServer):
    route = "/v1/responses"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def send(self, reply: Reply, body: dict, items: list[dict], n: int) -> None:
        reply.start_events()
        response = {"id": f"resp_{n}", "object": "response", "status": "in_progress", "output": []}
        reply.event("response.created", {"type": "response.created", "response": response})
        done = []
        for k, item in enumerate(items):
            item = {"id": f"item_{n}_{k}", "status": "completed", **item}
            if item["type"] == "function_call":
                item.setdefault("call_id", f"call_{n}_{k}")
            for kind in ("response.output_item.added", "response.output_item.done"):
                reply.event(kind, {"type": kind, "output_index": k, "item": item})
            done.append(item)
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 120,
        }
        finished = {**response, "status": "completed", "output": done, "usage": usage}
        reply.event("response.completed", {"type": "response.completed", "response": finished})
