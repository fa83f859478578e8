"""The test double: capabench's OpenAI-compatible server, scripted. Run as a module it
serves each held-out session's reference (the concurrency benchmark's endpoint)."""

from __future__ import annotations

from capabench.models.serve import OpenAICompatibleServer as FakeOpenAI

__all__ = ["FakeOpenAI"]

QUESTION = "Before I write it: how do you want the result returned, and what about bad input?"


def main() -> None:
    """`python -m capabench.testing.fake_openai [--references BENCH_DIR] [--asks N] [--port P]`:
    serve, in a process of its own, each held-out session's composed reference as the answer
    to its request, after N clarifying questions (the cached default benchmark unless --references).
    Prints the base URL, then serves until stdin closes (or, with --port, until stopped);
    then prints the time.monotonic() at which each answer was sent, as one JSON list."""
    import argparse
    import json
    import sys
    import threading
    import time

    from capabench.benchmark import BenchmarkDirError, cached_default, load_benchmark

    parser = argparse.ArgumentParser(
        description="A keyless OpenAI-compatible server for trying capabench."
    )
    parser.add_argument(
        "--references", help="a benchmark directory (default: the default benchmark)"
    )
    parser.add_argument("--port", type=int, default=0, help="listen here and serve until stopped")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--asks", type=int, default=0, help="questions before the reference")
    args = parser.parse_args()
    try:
        bench = load_benchmark(args.references) if args.references else cached_default(0)
    except BenchmarkDirError as exc:
        parser.error(str(exc))
    by_request = {s.request: s.reference for s in bench.sessions}

    sent: list[float] = []

    def answer(messages):
        sent.append(time.monotonic())  # after the injected latency: when the answer leaves
        if sum(m["role"] == "assistant" for m in messages) < args.asks:
            return QUESTION
        request = next((m["content"] for m in messages if m["role"] == "user"), "")
        return f"```python\n{by_request.get(request, 'pass')}```"

    with FakeOpenAI(answer, latency_s=args.latency, record=False, port=args.port) as server:
        print(server.base_url, flush=True)
        try:
            if args.port:
                threading.Event().wait()
            else:
                sys.stdin.read()
        except KeyboardInterrupt:
            pass
    print(json.dumps(sent), flush=True)


if __name__ == "__main__":
    main()
