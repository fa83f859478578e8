"""A small OpenAI-compatible (and Anthropic-compatible, /v1/messages) server on 127.0.0.1.

It answers chat completions with a function of the messages and, given an embedder,
serves /v1/embeddings. Two uses: libraries that only speak HTTP (mem0) reach any capabench
model through it (`serve_model`), and the tests script it, with faults injected in order
(429 with Retry-After, 500, a timeout, a dropped connection, a malformed body, latency)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 drops connections when a run opens 32 at once.
    request_queue_size = 256


class OpenAICompatibleServer:
    def __init__(
        self,
        answer: Callable[[list[dict]], str],
        *,
        latency_s: float = 0.0,
        embed: Callable[[list[str]], list[list[float]]] | None = None,
        record: bool = True,
        answer_json: Callable[[list[dict]], str] | None = None,
        port: int = 0,
    ) -> None:
        self.answer = answer
        self.answer_json = answer_json or answer  # for requests in JSON mode
        self.record = record  # keep every request body (tests read them; a long run must not)
        self.embed = embed
        self.latency_s = latency_s
        self.faults: deque[str] = deque()
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def setup(self):
                super().setup()
                # Headers and body go out as separate writes: without this, Nagle's algorithm
                # and delayed ACKs add ~40 ms to every response.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    if server.record:
                        server.requests.append(body)
                    fault = server.faults.popleft() if server.faults else None
                route = self.path.rstrip("/")
                if route == "/v1/embeddings" and server.embed is not None:
                    return self._embeddings(body)
                if route not in ("/v1/chat/completions", "/v1/messages"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                if server.latency_s:
                    time.sleep(server.latency_s)
                if fault == "429":
                    return self._send(
                        429, {"error": {"message": "slow down"}}, {"Retry-After": "2"}
                    )
                if fault == "500":
                    return self._send(500, {"error": {"message": "boom"}})
                if fault == "timeout":
                    time.sleep(3)
                    return None
                if fault == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return None
                if fault == "malformed":
                    return self._raw(200, b"{not json")
                messages = body["messages"]
                if route == "/v1/messages" and body.get(
                    "system"
                ):  # Anthropic's shape: system apart
                    messages = [{"role": "system", "content": body["system"]}, *messages]
                try:
                    wants_json = (body.get("response_format") or {}).get("type") == "json_object"
                    text = (server.answer_json if wants_json else server.answer)(messages)
                except Exception as exc:  # the model behind us failed: say so, don't drop the line
                    retryable = getattr(exc, "retryable", True)
                    return self._send(500 if retryable else 400, {"error": {"message": str(exc)}})
                words = sum(len(str(m.get("content", "")).split()) for m in messages)
                if route == "/v1/messages":
                    return self._send(
                        200,
                        {
                            "id": "msg_fake",
                            "type": "message",
                            "role": "assistant",
                            "model": body["model"],
                            "content": [{"type": "text", "text": text}],
                            "stop_reason": "end_turn",
                            "stop_sequence": None,
                            "usage": {"input_tokens": words, "output_tokens": len(text.split())},
                        },
                    )
                return self._send(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": words,
                            "completion_tokens": len(text.split()),
                            "total_tokens": words + len(text.split()),
                        },
                    },
                )

            def _embeddings(self, body):
                texts = [body["input"]] if isinstance(body["input"], str) else list(body["input"])
                vectors = server.embed(texts)
                data = [
                    {"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
                    for i, v in enumerate(vectors)
                ]
                tokens = sum(len(t.split()) for t in texts)
                return self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model", ""),
                        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                    },
                )

            def _send(self, status, payload, headers=None):
                self._raw(status, json.dumps(payload).encode(), headers)

            def _raw(self, status, data, headers=None):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _Server(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> OpenAICompatibleServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve_model(model, embedder=None) -> OpenAICompatibleServer:
    """`model` (any capabench ChatModel: its cache, retries and token counts apply) and an
    embedder behind an OpenAI-compatible endpoint; use as a context manager."""
    from capabench.models.base import JSON_OBJECT, PLAIN, Message

    def answer(messages: list[dict], json_object: bool = False) -> str:
        return model.complete(
            [Message(role=m["role"], content=str(m.get("content") or "")) for m in messages],
            JSON_OBJECT if json_object else PLAIN,
        ).text

    embed = (lambda texts: embedder.encode(texts).tolist()) if embedder is not None else None
    return OpenAICompatibleServer(
        answer, embed=embed, record=False, answer_json=lambda m: answer(m, json_object=True)
    )
