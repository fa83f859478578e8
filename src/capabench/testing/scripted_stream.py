"""The plumbing of the scripted streaming API servers (fake_responses, fake_anthropic): a
threaded server on 127.0.0.1 that records and numbers each request to its one route, asks
the subclass for the reply, and gives it JSON and server-sent-event writers. A script that
raises is answered 500 rather than left hanging; anything else is 404."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

Script = Callable[[dict], list[dict]]


class Reply:
    """How a handler answers: one JSON body, or a stream of events."""

    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.handler = handler

    def json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        h = self.handler
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def start_events(self) -> None:
        h = self.handler
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Connection", "close")
        h.end_headers()
        h.close_connection = True

    def event(self, kind: str, data: dict) -> None:
        self.handler.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
        self.handler.wfile.flush()


class ScriptedStreamServer:
    route = ""  # the one path the script answers, e.g. "/v1/responses"
    fixed: ClassVar[dict[str, dict]] = {}  # other paths answered with a fixed JSON body

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        ids = itertools.count(1)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):  # model lists and the like: nothing here
                Reply(self).json(404, server.error("not_found_error", "not here"))

            def do_POST(self):
                size = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(size) or b"{}")
                path = self.path.split("?")[0].rstrip("/")
                if path in server.fixed:
                    return Reply(self).json(200, server.fixed[path])
                if path != server.route:
                    return Reply(self).json(
                        404, server.error("not_found_error", f"no route {path}")
                    )
                with server.lock:
                    server.requests.append(body)
                    n = next(ids)
                try:
                    answer = server.answer(body)
                except Exception as exc:  # the script broke: say so rather than hang the client
                    return Reply(self).json(500, server.error("api_error", str(exc)))
                server.send(Reply(self), body, answer, n)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: dict) -> list[dict]:
        return self.script(body)

    def error(self, kind: str, message: str) -> dict:
        return {"error": {"type": kind, "message": message}}

    def send(self, reply: Reply, body: dict, answer: list[dict], n: int) -> None:
        raise NotImplementedError

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
