"""A scripted Anthropic Messages API server on 127.0.0.1, streamed as Claude Code reads it:
each agent request is answered with the content blocks a script returns (tool calls such as
`Bash`, `Write` or `AskUserQuestion`, or text). Requests that aren't the agent's own turn
(titles, summaries) get a short text. Tests point the real Claude Agent SDK at it."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Script = Callable[[dict], list[dict]]


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


class FakeAnthropic:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        ids = itertools.count(1)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._plain(
                    404,
                    {"type": "error", "error": {"type": "not_found_error", "message": "not here"}},
                )

            def do_POST(self):
                body = json.loads(
                    self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}"
                )
                path = self.path.split("?")[0].rstrip("/")
                if path == "/v1/messages/count_tokens":
                    return self._plain(200, {"input_tokens": 100})
                if path != "/v1/messages":
                    return self._plain(
                        404,
                        {"type": "error", "error": {"type": "not_found_error", "message": path}},
                    )
                with server.lock:
                    server.requests.append(body)
                    n = next(ids)
                try:
                    blocks = server.script(body) if is_agent_turn(body) else [text("OK")]
                except Exception as exc:  # the script broke: say so rather than hang the client
                    return self._plain(
                        500, {"type": "error", "error": {"type": "api_error", "message": str(exc)}}
                    )
                blocks = [{**b, "id": f"toolu_{n}_{k}"} if b["type"] == "tool_use" else b
                          for k, b in enumerate(blocks)]  # fmt: skip
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": body.get("model", ""),
                           "stop_reason": None, "stop_sequence": None,
                           "usage": {"input_tokens": 100, "output_tokens": 1}}  # fmt: skip
                if not body.get("stream"):
                    return self._plain(200, {**message, "content": blocks, "stop_reason": stop,
                                             "usage": {"input_tokens": 100, "output_tokens": 20}})  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self._event(
                    "message_start",
                    {"type": "message_start", "message": {**message, "content": []}},
                )
                for k, block in enumerate(blocks):
                    if block["type"] == "text":
                        start, delta = (
                            {"type": "text", "text": ""},
                            {"type": "text_delta", "text": block["text"]},
                        )
                    else:
                        start = {
                            "type": "tool_use",
                            "id": block["id"],
                            "name": block["name"],
                            "input": {},
                        }
                        delta = {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(block["input"]),
                        }
                    self._event(
                        "content_block_start",
                        {"type": "content_block_start", "index": k, "content_block": start},
                    )
                    self._event(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": k, "delta": delta},
                    )
                    self._event("content_block_stop", {"type": "content_block_stop", "index": k})
                self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                              "usage": {"output_tokens": 20}})  # fmt: skip
                self._event("message_stop", {"type": "message_stop"})
                self.close_connection = True

            def _event(self, kind: str, data: dict) -> None:
                self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _plain(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
