"""A scripted OpenAI Responses API server on 127.0.0.1 (streamed, as the Codex CLI reads it):
each request is answered with the output items a script returns for it (function calls such
as `exec_command`, or an assistant message). Tests point the real Codex CLI at it."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Script = Callable[[dict], list[dict]]


def message(text: str) -> dict:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


def shell(command: str) -> dict:
    return {
        "type": "function_call",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": command}),
    }


def tool_outputs(body: dict) -> list[str]:
    """The outputs of the function calls the client ran, oldest first."""
    return [
        str(i.get("output", ""))
        for i in body.get("input", [])
        if i.get("type") == "function_call_output"
    ]


def user_texts(body: dict) -> list[str]:
    return [c.get("text", "") for i in body.get("input", []) if i.get("type") == "message" and i.get("role") == "user"
            for c in i.get("content", []) if isinstance(c, dict)]  # fmt: skip


class FakeResponses:
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

            def do_GET(self):  # model lists and the like: nothing here
                self._plain(404, b'{"error": {"message": "not here"}}')

            def do_POST(self):
                body = json.loads(
                    self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}"
                )
                if self.path.rstrip("/") != "/v1/responses":
                    return self._plain(404, b'{"error": {"message": "no route"}}')
                with server.lock:
                    server.requests.append(body)
                    n = next(ids)
                try:
                    items = server.script(body)
                except Exception as exc:  # the script broke: tell the client, don't hang it
                    return self._plain(500, json.dumps({"error": {"message": str(exc)}}).encode())
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                response = {
                    "id": f"resp_{n}",
                    "object": "response",
                    "status": "in_progress",
                    "output": [],
                }
                self._event("response.created", {"type": "response.created", "response": response})
                done = []
                for k, item in enumerate(items):
                    item = {"id": f"item_{n}_{k}", "status": "completed", **item}
                    if item["type"] == "function_call":
                        item.setdefault("call_id", f"call_{n}_{k}")
                    self._event("response.output_item.added", {"type": "response.output_item.added",
                                                                "output_index": k, "item": item})  # fmt: skip
                    self._event("response.output_item.done", {"type": "response.output_item.done",
                                                               "output_index": k, "item": item})  # fmt: skip
                    done.append(item)
                usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}  # fmt: skip
                finished = {**response, "status": "completed", "output": done, "usage": usage}
                self._event(
                    "response.completed", {"type": "response.completed", "response": finished}
                )
                self.close_connection = True

            def _event(self, kind: str, data: dict) -> None:
                self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def _plain(self, status: int, data: bytes) -> None:
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
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeResponses:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
